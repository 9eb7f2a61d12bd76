#!/usr/bin/env bash
# ActiveMQ Artemis over its core protocol, Artemis over AMQP 1.0 and RabbitMQ over AMQP 1.0 side by side (issue 35
# item 4): the same msgscope trace run (`msgscope run`, 1 publisher -> 1 subscriber, 64 B, a fixed rate, every send
# confirmed: artemis confirm=block, amqp10 unsettled) against a PRIVATE Artemis the script starts with
# deploy/artemis.sh (its own ports from ARTEMIS_PORT_BASE, data under OUT/artemis; stopped by PID at the end) and
# against the shared RabbitMQ on 5672 (guest/guest; its rabbitmq_amqp1_0 plugin is enabled online when off, as the
# tests do; the broker is never stopped). The order of the three flips every round; each run records the 1-minute
# load average before and after. Writes OUT/results.csv (one row per run).
# Usage: benchmarks/scripts/artemis-brokers.sh [OUT_DIR] [ROUNDS] [COUNT] [RATE]
#   defaults: results/bench-artemis-brokers, 3 rounds, 20000 messages (a warm-up of COUNT/4), 2000 msg/s
#   env ARTEMIS_PORT_BASE (16716), RABBIT_AMQP10_URI (amqp://guest:guest@127.0.0.1:5672)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-artemis-brokers}"
rounds="${2:-3}"
count="${3:-20000}"
rate="${4:-2000}"
base="${ARTEMIS_PORT_BASE:-16716}"
rabbit_uri="${RABBIT_AMQP10_URI:-amqp://guest:guest@127.0.0.1:5672}"
mkdir -p "$out"
if missing "$jar"; then package -pl dist -am; fi
if command -v rabbitmq-plugins >/dev/null && ! rabbitmq-plugins is_enabled rabbitmq_amqp1_0 >/dev/null 2>&1; then
    rabbitmq-plugins enable --online rabbitmq_amqp1_0
fi
"$root/deploy/artemis.sh" start "$out/artemis" "$base" | tee "$out/artemis-start.log"
trap '"$root/deploy/artemis.sh" stop "$out/artemis"' EXIT
python3 - "$out" "$rounds" "$count" "$rate" "$jar" \
  "artemis-core=artemis=tcp://msgscope:msgscope@127.0.0.1:$base" \
  "artemis-amqp10=amqp10=amqp://msgscope:msgscope@127.0.0.1:$((base + 1))" \
  "rabbitmq-amqp10=amqp10=$rabbit_uri" <<'PY'
import csv, json, shutil, subprocess, sys
out, rounds, count, rate, jar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
targets = [tuple(a.split("=", 2)) for a in sys.argv[6:]]  # (name, driver, uri)

def load1():
    return float(open("/proc/loadavg").read().split()[0])

rows = []
for r in range(rounds):
    for name, driver, uri in (targets if r % 2 == 0 else targets[::-1]):
        d = f"{out}/{name}-{r}"
        shutil.rmtree(d, ignore_errors=True)
        cmd = ["java", "-jar", jar, "run", "--driver", driver, "--uri", uri, "--count", str(count),
               "--warmup", str(max(count // 4, 1000)), "--rate", rate, "--out", d]
        before = load1()
        with open(f"{d}.log", "w") as f:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=1800).returncode
        row = {"target": name, "round": r, "exit": rc, "status": None, "received": None, "lost": None,
               "receive_msg_s": None, "p50_us": None, "p99_us": None, "load1_before": before,
               "load1_after": load1(), "failure": ""}
        try:
            s = json.load(open(f"{d}/summary.json"))
            c, lat = s.get("counters") or {}, s.get("latency") or {}
            row.update(status=s.get("status"), received=c.get("messages_received"), lost=c.get("messages_lost"),
                       receive_msg_s=(s.get("throughput") or {}).get("receive_msg_s"),
                       p50_us=lat.get("latency_p50_us"), p99_us=lat.get("latency_p99_us"),
                       failure=s.get("failure_reason") or "")
        except (OSError, ValueError):
            pass
        rows.append(row)
        print(f"round {r} {name}: {row['status']}, received {row['received']} at {row['receive_msg_s']} msg/s, "
              f"p50 {row['p50_us']} us, p99 {row['p99_us']} us, lost {row['lost']}, "
              f"load {row['load1_before']}-{row['load1_after']} {row['failure']}", flush=True)
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY

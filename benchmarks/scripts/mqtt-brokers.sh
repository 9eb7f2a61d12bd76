#!/usr/bin/env bash
# Mosquitto and RabbitMQ's MQTT plugin side by side (issue 35 item 5): the same msgscope trace run (`msgscope run
# --driver mqtt`, 1 publisher -> 1 subscriber, 64 B, MQTT 3.1.1 on both — RabbitMQ 3.10 has no MQTT 5 — netty
# engine) against the shared Mosquitto and against a PRIVATE RabbitMQ node with the rabbitmq_mqtt plugin, which the
# script starts with deploy/rabbitmq-mqtt.sh (its own ports, cookie, epmd and data under OUT/rabbit; stopped by PID
# at the end; the shared RabbitMQ on 5672 is never touched). Cases: QoS 0 and QoS 1, each at a fixed rate (latency
# at a given load) and at full speed (no --rate: the most each broker passes with msgscope's default window). The
# order of the two brokers flips every round; each run records the 1-minute load average before and after, and the
# broker's CPU per message (--broker-pid: mosquitto's process, the node's beam.smp).
# Writes OUT/results.csv (one row per run) and OUT/brokers.md (medians and spread per case and broker).
# Usage: benchmarks/scripts/mqtt-brokers.sh [OUT_DIR] [ROUNDS] [COUNT] [RATE]
#   defaults: results/bench-mqtt-brokers, 3 rounds, 100000 messages (a warm-up of COUNT/4), 5000 msg/s
#   env MOSQUITTO_URI (tcp://127.0.0.1:1883), MOSQUITTO_PID (the process listening on its port), RABBIT_MQTT_PORT
#   (18840: the private node's MQTT port), SIZE (64), CASES (default "qos0-rate,qos0-full,qos1-rate,qos1-full")
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-mqtt-brokers}"
rounds="${2:-3}"
count="${3:-100000}"
rate="${4:-5000}"
size="${SIZE:-64}"
mosquitto_uri="${MOSQUITTO_URI:-tcp://127.0.0.1:1883}"
rabbit_port="${RABBIT_MQTT_PORT:-18840}"
cases="${CASES:-qos0-rate,qos0-full,qos1-rate,qos1-full}"
mport="${mosquitto_uri##*:}"
mosquitto_pid="${MOSQUITTO_PID:-$(ss -Hltnp "sport = :$mport" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)}"
[ -n "$mosquitto_pid" ] || { echo "mqtt-brokers.sh: nothing listens on $mosquitto_uri (give MOSQUITTO_PID)" >&2; exit 2; }
mkdir -p "$out"
if missing "$jar"; then package -pl dist -am; fi
rabbit="$out/rabbit"
"$root/deploy/rabbitmq-mqtt.sh" start "$rabbit" "$rabbit_port" | tee "$out/rabbit-start.log"
trap '"$root/deploy/rabbitmq-mqtt.sh" stop "$rabbit"' EXIT
rabbit_pid="$(tr -dc '0-9' < "$rabbit/node1/rabbitmq.pid")"
python3 - "$out" "$rounds" "$count" "$rate" "$size" "$jar" "$cases" \
  "mosquitto=$mosquitto_uri=$mosquitto_pid" "rabbitmq=mqtt://127.0.0.1:$rabbit_port=$rabbit_pid" <<'PY'
import csv, json, shutil, statistics, subprocess, sys
out, rounds, count, rate, size, jar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
cases = sys.argv[7].split(",")
brokers = [tuple(a.split("=", 2)) for a in sys.argv[8:]]  # (name, uri, pid)

def load1():
    return float(open("/proc/loadavg").read().split()[0])

def run(case, name, uri, pid, r):
    qos, mode = case.split("-")
    d = f"{out}/{case}-{name}-{r}"
    shutil.rmtree(d, ignore_errors=True)
    cmd = ["java", "-jar", jar, "run", "--driver", "mqtt", "--uri", uri, "--opt", "version=3", "--opt",
           f"qos={qos[3:]}", "--count", str(count), "--warmup", str(max(count // 4, 1000)), "--size", size,
           "--broker-pid", pid, "--out", d] + (["--rate", rate] if mode == "rate" else [])
    before = load1()
    with open(f"{d}.log", "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=1800).returncode
    row = {"case": case, "broker": name, "round": r, "exit": rc, "status": "missing", "received": None, "lost": None,
           "receive_msg_s": None, "p50_us": None, "p99_us": None, "broker_cpu_us_per_msg": None,
           "load1_before": before, "load1_after": load1(), "failure": ""}
    try:
        s = json.load(open(f"{d}/summary.json"))
    except (OSError, ValueError):
        return row
    c, lat = s.get("counters") or {}, s.get("latency") or {}
    b = ((s.get("cpu") or {}).get("broker") or {}).get("time_weighted") or {}
    row.update(status=s.get("status"), received=c.get("messages_received"), lost=c.get("messages_lost"),
               receive_msg_s=(s.get("throughput") or {}).get("receive_msg_s"), p50_us=lat.get("latency_p50_us"),
               p99_us=lat.get("latency_p99_us"), failure=s.get("failure_reason") or "",
               broker_cpu_us_per_msg=None if b.get("cpu_ns_per_message") is None else b["cpu_ns_per_message"] / 1e3)
    return row

rows = []
for r in range(rounds):
    for case in cases:
        for name, uri, pid in (brokers if r % 2 == 0 else brokers[::-1]):
            row = run(case, name, uri, pid, r)
            rows.append(row)
            print(f"round {r} {case} {name}: {row['status']}, {row['receive_msg_s'] or 0:,.0f} msg/s received, "
                  f"p50 {row['p50_us'] or 0:,.0f} us, p99 {row['p99_us'] or 0:,.0f} us, lost {row['lost']}, "
                  f"load {row['load1_before']}-{row['load1_after']} {row['failure']}", flush=True)
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)

def med(case, name, key):
    v = [x[key] for x in rows if x["case"] == case and x["broker"] == name and x["status"] == "ok"
         and x[key] is not None]
    return f"{statistics.median(v):,.1f} ({min(v):,.1f}-{max(v):,.1f})" if v else "n/a"

loads = [x[k] for x in rows for k in ("load1_before", "load1_after")]
lines = [f"# Mosquitto and RabbitMQ MQTT, 1 -> 1, {size} B, MQTT 3.1.1, {count} messages, {rounds} round(s), "
         f"load1 {min(loads)}-{max(loads)}", "",
         "Medians over the ok runs (min-max); a failed run (lost messages, fell behind its rate) counts in 'ok runs' only.", "",
         "| case | broker | ok runs | received msg/s | p50 µs | p99 µs | broker CPU µs/msg |", "|---|---|---|---|---|---|---|"]
for case in cases:
    for name, _, _ in brokers:
        ok = sum(1 for x in rows if x["case"] == case and x["broker"] == name and x["status"] == "ok")
        total = sum(1 for x in rows if x["case"] == case and x["broker"] == name)
        lines.append(f"| {case} | {name} | {ok}/{total} | {med(case, name, 'receive_msg_s')} | "
                     f"{med(case, name, 'p50_us')} | {med(case, name, 'p99_us')} | "
                     f"{med(case, name, 'broker_cpu_us_per_msg')} |")
open(f"{out}/brokers.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

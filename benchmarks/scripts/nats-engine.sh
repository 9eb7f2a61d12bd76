#!/usr/bin/env bash
# The two NATS engines side by side (issue 13): msgscope's flow-controlled throughput (`msgscope throughput`,
# one publishing and one consuming connection, F messages in flight) with --opt engine=netty (the lean core-NATS
# engine) and --opt engine=jnats, alternating (the order flips every round), on the same broker. Each run records
# the median of its throughput samples, the client's process CPU per message (both connections, the flow agent's
# JVM: the fair figure on a shared box, where rates move with the neighbours' load) and the 1-minute load average.
# Writes OUT/results.csv (one row per run) and OUT/engines.md (medians, spread, netty/jnats ratios).
# Usage: benchmarks/scripts/nats-engine.sh [OUT_DIR] [ROUNDS] [IN_FLIGHT] [SAMPLES]
#   env NATS_URI (nats://127.0.0.1:4222), SIZE (64)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-nats-engine}"
rounds="${2:-3}"
inflight="${3:-1000}"
samples="${4:-50}"
size="${SIZE:-64}"
uri="${NATS_URI:-nats://127.0.0.1:4222}"
mkdir -p "$out"
if missing "$jar"; then package -pl dist -am; fi
python3 - "$out" "$rounds" "$inflight" "$samples" "$size" "$uri" "$jar" <<'PY'
import csv, json, statistics, subprocess, sys
out, rounds, inflight, samples, size, uri, jar = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]

def load1():
    return float(open("/proc/loadavg").read().split()[0])

def run(engine, r):
    d = f"{out}/{engine}-{r}"
    cmd = ["java", "-jar", jar, "throughput", "--driver", "nats", "--uri", uri, "--opt", f"engine={engine}",
           "--size", size, "--in-flight", inflight, "--samples", samples, "--out", d]
    before = load1()
    with open(f"{d}.log", "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=1800).returncode
    res = json.load(open(f"{d}/summary.json")).get("result", {})
    return {"engine": engine, "round": r, "exit": rc, "median_msg_s": res.get("median_msg_s", float("nan")),
            "cpu_ns_per_message": res.get("client_cpu_ns_per_message", float("nan")),
            "load1": round((before + load1()) / 2, 2)}

rows = []
for r in range(rounds):
    for engine in (("netty", "jnats") if r % 2 == 0 else ("jnats", "netty")):
        row = run(engine, r)
        rows.append(row)
        print(f"round {r} {engine}: {row['median_msg_s']:,.0f} msg/s, {row['cpu_ns_per_message']:,.0f} ns CPU/msg, "
              f"load {row['load1']}", flush=True)
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)

def med(engine, key):
    v = [x[key] for x in rows if x["engine"] == engine and x["exit"] == 0]
    return (statistics.median(v), min(v), max(v)) if v else (float("nan"),) * 3

lines = [f"# NATS engines, {size} B, F = {inflight}, {rounds} rounds (load1 {min(x['load1'] for x in rows)}-"
         f"{max(x['load1'] for x in rows)})", "",
         "| engine | median msg/s (min-max) | client CPU ns/msg (min-max) |", "|---|---|---|"]
for e in ("netty", "jnats"):
    m, c = med(e, "median_msg_s"), med(e, "cpu_ns_per_message")
    lines.append(f"| {e} | {m[0]:,.0f} ({m[1]:,.0f}-{m[2]:,.0f}) | {c[0]:,.0f} ({c[1]:,.0f}-{c[2]:,.0f}) |")
n, j = med("netty", "median_msg_s")[0], med("jnats", "median_msg_s")[0]
cn, cj = med("netty", "cpu_ns_per_message")[0], med("jnats", "cpu_ns_per_message")[0]
lines += ["", f"netty/jnats: {n / j:.2f}x the rate, {cn / cj:.2f}x the CPU per message"]
open(f"{out}/engines.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

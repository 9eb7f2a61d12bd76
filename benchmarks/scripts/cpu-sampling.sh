#!/usr/bin/env bash
# Does sampling CPU every Nth message cost the other messages anything (issue 3)? Runs the same
# load with sampling on (--cpu-every 1000, relay stamps) and off (--cpu-every 0 --broker-cpu off),
# alternating, and reports the on/off ratios of throughput (full speed, send batch 16) and of
# latency p50 (fixed 10,000 msg/s). Usage: benchmarks/scripts/cpu-sampling.sh [OUT_DIR] [REPEATS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-cpu-sampling}"
repeats="${2:-5}"
mkdir -p "$out"
if missing "$jar"; then package; fi
summary="$out/summary.txt"
echo "# CPU sampling on/off, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $repeats repeats" | tee "$summary"
on=(--cpu-every 1000)
off=(--cpu-every 0 --broker-cpu off)
for i in $(seq 1 "$repeats"); do
  for mode in on off; do
    if [ "$mode" = on ]; then args=("${on[@]}"); else args=("${off[@]}"); fi
    java -jar "$jar" run --count 1000000 --send-batch 16 "${args[@]}" --out "$out/tput-$mode-$i" > /dev/null 2>&1 || true
    java -jar "$jar" run --count 50000 --rate 10000 --warmup 10000 "${args[@]}" --out "$out/lat-$mode-$i" > /dev/null 2>&1 || true
  done
done
python3 - "$out" "$repeats" <<'PY' | tee -a "$summary"
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
def load(kind, mode, key):
    vals = []
    for i in range(1, n + 1):
        s = json.load(open(f"{out}/{kind}-{mode}-{i}/summary.json"))
        vals.append(key(s))
    return vals
tput = lambda s: s["throughput"]["receive_msg_s"]
p50 = lambda s: s["latency"]["latency_p50_us"]
for name, kind, key in (("throughput msg/s (full speed, batch 16)", "tput", tput), ("latency p50 us at 10k msg/s", "lat", p50)):
    a, b = load(kind, "on", key), load(kind, "off", key)
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name}: on {[round(x, 1) for x in a]} off {[round(x, 1) for x in b]}")
    ratio = ma / mb if kind == "tput" else mb / ma
    print(f"  medians on {ma:.1f} off {mb:.1f}; ratio (on/off for throughput, off/on for latency) {ratio:.3f}")
s = json.load(open(f"{out}/tput-on-1/summary.json"))
print("sampling cost reported by the agents (run tput-on-1):", json.dumps(s["cpu"]["sampling_overhead"]))
PY

#!/usr/bin/env bash
# Foundation benchmarks (issue 2), side by side in one run, results into one folder:
#  1. JMH: per-message recording cost on sender and receiver, with allocation (-prof gc)
#  2. JMH + footprint: analysis of a 10,000,000-message trace (time, heap bytes per message)
#  3. msgscope runs: throughput ceiling sender -> relay -> receiver, 64 B, send batch 1 and 16
#  4. latency floor at 10,000 msg/s, 64 B: msgscope p50 against sockperf ping-pong p50 (half round trip)
# Usage: benchmarks/scripts/foundation.sh [OUT_DIR]   (default results/bench-foundation)
# Needs: a built tree (./mvnw -B -DskipTests package) and sockperf (apt-get install sockperf).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-foundation}"
mkdir -p "$out"
bjar="$root/benchmarks/target/benchmarks.jar"
if missing "$jar" "$bjar"; then package; fi
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }

say "# msgscope foundation benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(java -version 2>&1 | head -1)"

# 1. recording cost
java -jar "$bjar" RecorderBenchmark -prof gc -rf json -rff "$out/recorder.json" > "$out/recorder.txt" 2>&1
say "## recording cost per message (JMH, ns/op, gc.alloc.rate.norm B/op)"
python3 - "$out/recorder.json" <<'PY' | tee -a "$summary"
import json, sys
for r in json.load(open(sys.argv[1])):
    name = r["benchmark"].rsplit(".", 1)[1]
    alloc = r["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score", float("nan"))
    print(f"{name:24s} {r['primaryMetric']['score']:8.2f} ± {r['primaryMetric']['scoreError']:.2f} ns/op   alloc {alloc:.4f} B/op")
PY

# 2. analysis of 10M messages
java -jar "$bjar" AnalysisBenchmark.analyse -rf json -rff "$out/analysis.json" > "$out/analysis.txt" 2>&1
say "## analysis of 10,000,000 messages"
python3 - "$out/analysis.json" <<'PY' | tee -a "$summary"
import json, sys
for r in json.load(open(sys.argv[1])):
    m = r["primaryMetric"]
    print(f"JMH {r['benchmark'].rsplit('.',1)[1]}: {m['score']:.2f} ± {m['scoreError']:.2f} {m['scoreUnit']}")
PY
java -Xmx480000000 -cp "$bjar" io.msgscope.bench.AnalysisFootprint | tee -a "$summary"

# 3. throughput ceiling
say "## throughput ceiling, 1,000,000 x 64 B, sender -> relay -> receiver on loopback (3 runs each)"
for batch in 1 16; do
  for i in 1 2 3; do
    d="$out/ceiling-batch$batch-$i"
    java -jar "$jar" run --count 1000000 --send-batch "$batch" --out "$d" > "$d.txt" 2>&1 || true
    say "send-batch $batch run $i: $(json "$d/summary.json" "'%.0f msg/s received, status %s, hot-thread alloc B/msg sender %.4f receiver %.4f relay %.4f' % (d['throughput']['receive_msg_s'], d['status'], d['hot_thread_allocation']['sender']['bytes_per_message'], d['hot_thread_allocation']['receiver']['bytes_per_message'], d['hot_thread_allocation']['relay']['bytes_per_message'])")"
  done
done

# 4. latency floor at 10,000 msg/s against sockperf
say "## latency at a fixed 10,000 msg/s, 64 B (msgscope: two hops via the relay; sockperf: half round trip, one hop)"
if command -v sockperf >/dev/null 2>&1; then
  port=$((20000 + RANDOM % 20000))
  sockperf server --tcp -i 127.0.0.1 -p "$port" > "$out/sockperf-server.txt" 2>&1 &
  spid=$!
  sleep 1
  sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -m 64 --mps 10000 -t 10 > "$out/sockperf.txt" 2>&1 || true
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  sp50=$(grep -E "percentile 50\.000" "$out/sockperf.txt" | awk '{print $NF}')
  d="$out/latency-10k"
  java -jar "$jar" run --count 100000 --rate 10000 --warmup 10000 --out "$d" > "$d.txt" 2>&1 || true
  mp50=$(json "$d/summary.json" "d['latency']['latency_p50_us']")
  say "sockperf ping-pong p50 (half RTT): ${sp50} us"
  say "msgscope sender->relay->receiver p50: ${mp50} us"
  say "ratio msgscope/sockperf: $(python3 -c "print(round($mp50/$sp50, 2))")"
else
  say "sockperf not installed (apt-get install sockperf): latency comparison skipped"
fi
say "results in $out"

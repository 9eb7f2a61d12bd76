#!/usr/bin/env bash
# What does a sweep spend its time on (issue 7)? A 10-point x 1,000,000-message sweep at full speed
# with every plot rendered (sweep and per-point, through trace-envelope.dat), then the split of
# measuring / analysis and output / plotting from sweep.json; and one 1M-message folder plotted
# both ways (every row of trace.dat vs the envelope). The load average is recorded with each figure:
# the machine is shared. Usage: benchmarks/scripts/sweep-cost.sh [OUT_DIR]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-sweep-cost}"
rm -rf "$out"
mkdir -p "$out"
if missing "$jar"; then package; fi
summary="$out/summary.txt"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# sweep cost, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, gnuplot $(gnuplot --version | cut -d' ' -f2-3)" | tee "$summary"
echo "load before the sweep: $(load)" | tee -a "$summary"
java -jar "$jar" sweep --windows 10,20,50,100,200,500,1000,2000,5000,10000 --count 1000000 --plot \
     --out "$out/sweep" > "$out/sweep.log" 2>&1 || echo "(sweep exit $?: see sweep.log)" | tee -a "$summary"
echo "load after the sweep: $(load)" | tee -a "$summary"
grep '^time:' "$out/sweep.log" | tee -a "$summary"
python3 - "$out/sweep/sweep.json" <<'PY' | tee -a "$summary"
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
print("sweep.json timing: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in t.items()))
PY
point="$out/sweep/point-100-1"
rm -f "$point"/*.png
s=$(date +%s.%N); java -jar "$jar" plot "$point" > /dev/null; e=$(date +%s.%N)
echo "one 1M point, every script, per-message plots through the envelope: $(echo "$e - $s" | bc) s (load $(load))" | tee -a "$summary"
# the same folder with the per-message scripts reading every row of trace.dat (what --plot-envelope-above 500000000 writes)
java -jar "$jar" run --count 1000000 --window 100 --plot-envelope-above 500000000 --out "$out/full" > /dev/null 2>&1 || true
s=$(date +%s.%N); java -jar "$jar" plot "$out/full" > /dev/null; e=$(date +%s.%N)
echo "one 1M run, every script, per-message plots from every row of trace.dat: $(echo "$e - $s" | bc) s (load $(load))" | tee -a "$summary"

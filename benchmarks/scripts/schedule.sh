#!/usr/bin/env bash
# The paced sender's due time per message (issue 31's review, JMH ScheduleBenchmark): the inline arithmetic --rate had
# before load phases against the call through a LongUnaryOperator (the plain rate's lambda, alone and on a bimorphic
# call site; a constant one-phase timeline; a ramp). ROUNDS rounds, each running every variant once in its own JVM,
# in an order that alternates from round to round; the 1-minute load average is kept beside each figure.
# Usage: benchmarks/scripts/schedule.sh [OUT_DIR] [ROUNDS]   (default results/bench-schedule, 3)
# Needs: a built tree (./mvnw -B -DskipTests package -pl benchmarks -am).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-schedule}"
rounds="${2:-3}"
mkdir -p "$out"
bjar="$root/benchmarks/target/benchmarks.jar"
if missing "$bjar"; then package -pl benchmarks -am; fi
variants=(inline rateFastPath operatorRate operatorRateBimorphic timelineConstant timelineRamp ${EXTRA_VARIANTS:-})
for r in $(seq 1 "$rounds"); do
  order=("${variants[@]}")
  if [ $((r % 2)) -eq 0 ]; then # every other round backwards, so no variant always runs first
    order=(); for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[$i]}"); done
  fi
  for v in "${order[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    java -jar "$bjar" "ScheduleBenchmark\.$v\$" -rf json -rff "$out/$v-$r.json" > "$out/$v-$r.txt" 2>&1
    echo "$r $v $load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/runs.txt"
  done
done
python3 - "$out" <<'PY'
import json, sys, collections
out = sys.argv[1]
rows = collections.defaultdict(list)
for line in open(f"{out}/runs.txt"):
    r, v, before, after = line.split()
    m = json.load(open(f"{out}/{v}-{r}.json"))[0]["primaryMetric"]
    rows[v].append((int(r), m["score"], m["scoreError"], float(before), float(after)))
print(f"{'variant':24s} rounds: ns/op ± error (load1 before/after)")
for v, rs in rows.items():
    print(f"{v:24s} " + "; ".join(f"{s:.3f} ± {e:.3f} ({b:.2f}/{a:.2f})" for _, s, e, b, a in sorted(rs)))
PY

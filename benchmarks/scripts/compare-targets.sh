#!/usr/bin/env bash
# Issue 34's targets for `msgscope compare`, for a quiet box: REPEATS runs of one spec on the relay as a baseline,
# REPEATS more of the same spec, REPEATS made 20 % slower in throughput (the same message count at a rate 20 % lower
# over the same time: --count and --rate both x 0.8) and REPEATS made slower in latency only (the relay burns
# BURN_NS of CPU per message: the hidden --relay-burn-ns), all interleaved round by round. Then
#   same:       compare --baseline base-* --candidate same-*     expected: every figure "no significant difference"
#   throughput: compare --baseline base-* --candidate slow-*     expected: throughput "worse", exit 3 on the gate
#   latency:    compare --baseline base-* --candidate burn-*     expected: p50/mean "worse", throughput unchanged
# each with --fail-if 'p99 > +10%' --fail-if 'throughput < -5%' (and 'p50 > +10%' for latency).
# Writes OUT/compare-{same,throughput,latency}.txt (the console), OUT/runs.txt (each run's exit and load average
# before and after) and prints each comparison's exit code and its verdict lines.
# Usage: benchmarks/scripts/compare-targets.sh [OUT_DIR] [REPEATS] [COUNT] [RATE] [BURN_NS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-compare-targets}"
repeats="${2:-5}"
count="${3:-50000}"
rate="${4:-10000}"
burn="${5:-10000}"
jar="${MSGSCOPE_JAR:-$jar}"
if missing "$jar"; then package -pl dist -am; fi
msgscope() {
  java -XX:TieredStopAtLevel=1 -jar "$jar" "$@"
}
if [ "${JUDGE_ONLY:-0}" != 1 ]; then  # JUDGE_ONLY=1: compare the runs an earlier call left in OUT again
rm -rf "$out"
mkdir -p "$out"
slow_count=$((count * 8 / 10))
slow_rate=$((rate * 8 / 10))
for ((r = 1; r <= repeats; r++)); do
  for kind in base same slow burn; do
    case $kind in
      slow) args=(--count "$slow_count" --rate "$slow_rate") ;;
      burn) args=(--count "$count" --rate "$rate" --relay-burn-ns "$burn") ;;
      *) args=(--count "$count" --rate "$rate") ;;
    esac
    before=$(load1)
    rc=0
    MSGSCOPE_STORE=none msgscope run "${args[@]}" --out "$out/$kind-$r" > "$out/$kind-$r.log" 2>&1 || rc=$?
    echo "$kind $r exit $rc load $before $(load1)" | tee -a "$out/runs.txt"
  done
done
fi
judge() { # NAME CANDIDATE RULES...
  local name="$1" cand="$2" rc=0
  shift 2
  # the run folders only (NAME-R/), not their consoles beside them (NAME-R.log)
  local base=("$out"/base-*/) cands=("$out"/"$cand"-*/)
  msgscope compare --force --baseline "${base[@]%/}" --candidate "${cands[@]%/}" "$@" \
    > "$out/compare-$name.txt" 2>&1 \
    || rc=$?
  echo "== $name: compare exit $rc"
  grep -E '^\| (throughput|mean|p50|p99) |REGRESSION|not judged' "$out/compare-$name.txt" || true
}
judge same same --fail-if 'p99 > +10%' --fail-if 'throughput < -5%'
judge throughput slow --fail-if 'p99 > +10%' --fail-if 'throughput < -5%'
judge latency burn --fail-if 'p50 > +10%' --fail-if 'throughput < -5%'

#!/usr/bin/env bash
# Issue 33's targets, on one box: a scenario (NATS fan-out, 1 publisher x RATE msg/s, 2 subscribers, DURATION s) run
# through agent daemons on loopback, ROUNDS times alternating between
#   shifted: the publishers daemon's clocks moved by the test hook (MSGSCOPE_TEST_CLOCK_SHIFT=SHIFT, default -3.7 ms,
#            -20 ppm and a -2 ms step half-way: behind the subscribers, so no latency is clamped at 0), which also
#            gives it a boot id of its own: the run is cross-host, its clocks tracked and its latency corrected;
#   plain:   the same daemons' roles without the hook: one box, nothing tracked.
# Reports per round and run the rate received, the p50 as measured and (shifted) as corrected with its bound, and for
# the shifted run the tracked offset at the first probe, the drift and the steps found against what was injected; then
# the two targets: the corrected p50 within its bound of the plain run's (and the offset, drift and step within the
# bound of the injected ones), and probing costs nothing measurable (rate and p50 of the plain runs against the shifted
# runs' corrected ones, side by side, with each run's load average). A quiet box is what the 2 ms step needs (on a
# loaded one the probes' round trips reach milliseconds and a step must stand 4 sigma above them, docs/limits.md).
#
#   benchmarks/scripts/clock-tracking.sh [OUT]     (default results/clock-tracking)
#   ROUNDS=3 DURATION=60 RATE=500 SHIFT=offset=-3.7ms,drift=-20ppm,step=-2ms@31s NATS_URI=nats://127.0.0.1:4222
# Needs the NATS server on NATS_URI. Writes OUT/summary.tsv (one row per run) and each run's results folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out="$(mkdir -p "${1:-$root/results/clock-tracking}" && cd "${1:-$root/results/clock-tracking}" && pwd)"
rounds="${ROUNDS:-3}"
duration="${DURATION:-60}"
rate="${RATE:-500}"
shift_spec="${SHIFT:-offset=-3.7ms,drift=-20ppm,step=-2ms@$((duration / 2 + 1))s}"
nats="${NATS_URI:-nats://127.0.0.1:4222}"
if missing "$jar"; then package -pl dist -am; fi

secret="$out/secret"
printf 'clock-benchmark-%s-0123456789abcdef' "$RANDOM$RANDOM" > "$secret"
chmod 600 "$secret"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# daemon ROLE LOG [SHIFT]: starts an agent daemon on a free loopback port, in this shell (not a subshell, so that
# its pid is kept and the EXIT trap stops it); sets port.
port=""
daemon() {
  local role="$1" log="$2" shift_env="${3:-}"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  if [ -n "$shift_env" ]; then
    MSGSCOPE_TEST_CLOCK_SHIFT="$shift_env" java -jar "$jar" agent --role "$role" --listen "127.0.0.1:$port" \
      --secret-file "$secret" > "$log" 2>&1 &
  else
    java -jar "$jar" agent --role "$role" --listen "127.0.0.1:$port" --secret-file "$secret" > "$log" 2>&1 &
  fi
  pids+=("$!")
  for _ in $(seq 100); do
    grep -q "listening on" "$log" 2>/dev/null && break
    sleep 0.1
  done
}

daemon publishers "$out/agent-publishers-plain.log"
plain_pub="$port"
daemon subscribers "$out/agent-subscribers.log"
sub="$port"

printf 'round\trun\texit\tload1_before\tload1_after\treceive_rate\tp50_us\tcorrected_p50_us\tbound_us\toffset_first_us\tdrift_ppm\tsteps_us\n' \
  > "$out/summary.tsv"
for ((r = 0; r < rounds; r++)); do
  # the hook's clock runs from the daemon's first stamp: a fresh daemon each round holds the step in its run
  daemon publishers "$out/agent-publishers-shifted-$r.log" "$shift_spec"
  shifted_pub="$port"
  for run in shifted plain; do
    d="$out/$run-$r"
    rm -rf "$d"
    pub="$plain_pub"
    [ "$run" = shifted ] && pub="$shifted_pub"
    before="$(load1)"
    rc=0
    java -jar "$jar" scenario --driver nats --uri "$nats" --scenario fan-out --publishers 1 --subscribers 2 \
      --rate "$rate" --duration "$duration" --warmup 1 --agent "publishers=127.0.0.1:$pub" \
      --agent "subscribers=127.0.0.1:$sub" --secret-file "$secret" --out "$d" > "$d.log" 2>&1 || rc=$?
    after="$(load1)"
    python3 - "$d/summary.json" "$r" "$run" "$rc" "$before" "$after" >> "$out/summary.tsv" <<'EOF'
import json, sys
path, r, run, rc, before, after = sys.argv[1:]
try:
    s = json.load(open(path))
except OSError:
    print("\t".join([r, run, rc, before, after] + ["NaN"] * 7))
    sys.exit(0)
res = s["results"]
pair = next(iter((s.get("clock_tracking") or {}).get("pairs", {}).values()), None)
def f(v):
    return "NaN" if v is None else "%.1f" % v
print("\t".join([r, run, rc, before, after, f(res.get("receive_rate")), f(res.get("latency_p50_us")),
                 f(res.get("corrected_latency_p50_us")), f(res.get("corrected_latency_error_bound_us")),
                 f(pair and pair.get("offset_at_first_probe_us")), f(pair and pair.get("drift_ppm")),
                 ",".join(f(x.get("size_us")) for x in (pair or {}).get("steps", [])) or "-"]))
EOF
    tail -1 "$out/summary.tsv"
  done
  kill "${pids[-1]}" 2>/dev/null || true # this round's shifted daemon (started last)
done
echo "injected: $shift_spec; rows in $out/summary.tsv"

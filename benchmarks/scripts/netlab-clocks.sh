#!/usr/bin/env bash
# Issue 33 item 4: the network lab as separate hosts. Publishers agents in two namespaces (client, client2), the
# subscribers agent in a third (client3), nats-server in the broker namespace, the coordinator in client; every link
# shaped by tc tbf (deploy/netlab/netlab.sh). One kernel underneath, so the true offset between any two agents'
# clocks is 0 and the true latency is what one-box runs measure: each round runs the same fan-in scenario
#   hosts:  agents that play boxes of their own (MSGSCOPE_BOOT_ID lab-client, lab-client2, lab-client3): the run is
#           cross-host, each publishers -> subscribers pair's clocks tracked and the latency corrected, with a bound;
#   onebox: agents with the kernel's own boot id: one box, nothing tracked, the latency as measured (the truth here);
# first with every link at LINK both ways (symmetric), then with client3's link at LINK toward the broker and SLOW
# from it (asymmetric: the probes to the subscribers agent take longer going than coming back). Reports per run the
# tracked offset of each pair at its first probe (its error, the truth being 0) and its bound, the corrected p50 and
# its bound against the one-box run's p50, and the load average.
#
#   benchmarks/scripts/netlab-clocks.sh [OUT]      (default results/netlab-clocks)
#   ROUNDS=2 DURATION=30 RATE=100 PUBLISHERS=4 LINK=100mbit SLOW=1mbit
# Needs root, iproute2 and nats-server; takes the lab down at the end (it must not be up before: it is the script's).
# Writes OUT/summary.tsv (one row per run) and each run's results folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out="$(mkdir -p "${1:-$root/results/netlab-clocks}" && cd "${1:-$root/results/netlab-clocks}" && pwd)"
rounds="${ROUNDS:-2}"
duration="${DURATION:-30}"
rate="${RATE:-100}"
publishers="${PUBLISHERS:-4}"
link="${LINK:-100mbit}"
slow="${SLOW:-1mbit}"
netlab="$root/deploy/netlab/netlab.sh"
[ "$(id -u)" = 0 ] || { echo "netlab-clocks: needs root (network namespaces)" >&2; exit 2; }
command -v nats-server > /dev/null || { echo "netlab-clocks: nats-server not found" >&2; exit 2; }
if ip netns list | grep -q '^msc-'; then
  echo "netlab-clocks: a network lab is up already (ip netns list): take it down first (deploy/netlab/netlab.sh down)" >&2
  exit 2
fi
if missing "$jar"; then package -pl dist -am; fi
java="$(command -v java)"

secret="$out/secret"
printf 'netlab-clocks-%s-0123456789abcdef' "$RANDOM$RANDOM" > "$secret"
chmod 600 "$secret"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$netlab" down > /dev/null 2>&1 || true
}
trap cleanup EXIT

"$netlab" up "$(echo "$link" | sed 's/bit$//')" > /dev/null 2>&1 || "$netlab" up 100m > /dev/null
"$netlab" link client "$link" "$link" > /dev/null
"$netlab" link client2 "$link" "$link" > /dev/null
"$netlab" link client3 "$link" "$link" > /dev/null
"$netlab" exec broker nats-server -a 10.77.0.2 -p 4222 > "$out/nats.log" 2>&1 &
pids+=("$!")

# agent NS ROLE LISTEN LOG [BOOT_ID]: an agent daemon in a namespace, waited for until it listens.
agent() {
  local ns="$1" role="$2" listen="$3" log="$4" boot="${5:-}"
  if [ -n "$boot" ]; then
    MSGSCOPE_BOOT_ID="$boot" "$netlab" exec "$ns" "$java" -jar "$jar" agent --role "$role" --listen "$listen" \
      --secret-file "$secret" > "$log" 2>&1 &
  else
    "$netlab" exec "$ns" "$java" -jar "$jar" agent --role "$role" --listen "$listen" --secret-file "$secret" \
      > "$log" 2>&1 &
  fi
  pids+=("$!")
  for _ in $(seq 150); do
    grep -q "listening on" "$log" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "netlab-clocks: the $role agent in $ns did not listen on $listen (see $log)" >&2
  exit 1
}
agent client publishers 10.77.0.1:7604 "$out/agent-pub1-hosts.log" lab-client
agent client2 publishers 10.77.1.1:7604 "$out/agent-pub2-hosts.log" lab-client2
agent client3 subscribers 10.77.2.1:7605 "$out/agent-sub-hosts.log" lab-client3
agent client publishers 10.77.0.1:7614 "$out/agent-pub1-onebox.log"
agent client2 publishers 10.77.1.1:7614 "$out/agent-pub2-onebox.log"
agent client3 subscribers 10.77.2.1:7615 "$out/agent-sub-onebox.log"

printf 'round\tlinks\trun\texit\tload1_before\tload1_after\treceive_rate\tp50_us\tcorrected_p50_us\tcorrected_bound_us\toffset_first_us_per_pair\tbound_us_per_pair\tbest_rtt_us_per_pair\n' \
  > "$out/summary.tsv"
for ((r = 0; r < rounds; r++)); do
  for links in symmetric asymmetric; do
    if [ "$links" = symmetric ]; then
      "$netlab" link client3 "$link" "$link" > /dev/null
    else
      "$netlab" link client3 "$link" "$slow" > /dev/null
    fi
    for run in hosts onebox; do
      d="$out/$links-$run-$r"
      rm -rf "$d"
      p=7604 s=7605
      [ "$run" = onebox ] && p=7614 s=7615
      before="$(load1)"
      rc=0
      "$netlab" exec client "$java" -jar "$jar" scenario --driver nats --uri nats://10.77.0.2:4222 --scenario fan-in \
        --publishers "$publishers" --rate "$rate" --duration "$duration" --warmup 2 \
        --agent "publishers=10.77.0.1:$p" --agent "publishers=10.77.1.1:$p" --agent "subscribers=10.77.2.1:$s" \
        --secret-file "$secret" --out "$d" > "$d.log" 2>&1 || rc=$?
      after="$(load1)"
      python3 - "$d/summary.json" "$r" "$links" "$run" "$rc" "$before" "$after" >> "$out/summary.tsv" <<'EOF'
import json, sys
path, r, links, run, rc, before, after = sys.argv[1:]
head = [r, links, run, rc, before, after]
try:
    s = json.load(open(path))
except OSError:
    print("\t".join(head + ["NaN"] * 7))
    sys.exit(0)
res = s["results"]
pairs = sorted(((s.get("clock_tracking") or {}).get("pairs") or {}).items())
def f(v):
    return "NaN" if v is None else "%.1f" % v
def each(key):
    return ",".join(f(p.get(key)) for _, p in pairs) or "-"
print("\t".join(head + [f(res.get("receive_rate")), f(res.get("latency_p50_us")),
                        f(res.get("corrected_latency_p50_us")), f(res.get("corrected_latency_error_bound_us")),
                        each("offset_at_first_probe_us"), each("error_bound_us"), each("best_rtt_us")]))
EOF
      tail -1 "$out/summary.tsv"
    done
  done
done
echo "links: $link both ways, then client3's $link toward the broker and $slow from it; rows in $out/summary.tsv"

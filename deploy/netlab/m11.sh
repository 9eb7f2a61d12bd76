#!/usr/bin/env bash
# M11's network question with the lab: how throughput and latency change between loopback, a 1 Gbit/s
# and a 100 Mbit/s link, for 64 B and 1 KiB messages. Per point: a full-speed run (throughput in msg/s
# and bytes/s) and a run at a fixed 5,000 msg/s (latency p50/p99 without queueing). Sender and
# receiver run in the client namespace, the relay in the broker namespace, driven remotely with a
# shared secret; the loopback point runs everything on 127.0.0.1.
# Usage: deploy/netlab/m11.sh [OUT_DIR]   (root; writes m11.dat and m11.gp; tears the lab down after)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/results/m11}"
jar="$root/dist/target/msgscope.jar"
netlab="$here/netlab.sh"
mkdir -p "$out"
[ -f "$jar" ] || (cd "$root" && ./mvnw -q -B -DskipTests package)
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
secret="$out/secret"; head -c 32 /dev/urandom | base64 > "$secret"; chmod 600 "$secret"
pids=()
cleanup() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; "$netlab" down >/dev/null 2>&1 || true; }
trap cleanup EXIT

start_agents() {
  "$netlab" exec client "$java_bin" -jar "$jar" agent --role sender --listen 10.77.0.1:7601 --secret-file "$secret" > "$out/agent-sender.log" 2>&1 & pids+=($!)
  "$netlab" exec client "$java_bin" -jar "$jar" agent --role receiver --listen 10.77.0.1:7602 --secret-file "$secret" > "$out/agent-receiver.log" 2>&1 & pids+=($!)
  "$netlab" exec broker "$java_bin" -jar "$jar" agent --role relay --listen 10.77.0.2:7600 --secret-file "$secret" > "$out/agent-relay.log" 2>&1 & pids+=($!)
  sleep 3
}

run_point() { # profile size kind args...
  local profile="$1" size="$2" kind="$3"; shift 3
  local d="$out/$profile-$size-$kind"
  if [ "$profile" = loopback ]; then
    "$java_bin" -jar "$jar" run --size "$size" --out "$d" "$@" > "$d.txt" 2>&1 || true
  else
    "$netlab" exec client "$java_bin" -jar "$jar" run --size "$size" --out "$d" --secret-file "$secret" \
      --agent sender=10.77.0.1:7601 --agent receiver=10.77.0.1:7602 --agent relay=10.77.0.2:7600 "$@" > "$d.txt" 2>&1 || true
  fi
}

for profile in loopback 1g 100m; do
  if [ "$profile" != loopback ]; then
    "$netlab" up "$profile" > /dev/null
    [ ${#pids[@]} -gt 0 ] || start_agents
  fi
  for size in 64 1024; do
    count=$([ "$size" = 64 ] && echo 200000 || echo 100000)
    run_point "$profile" "$size" tput --count "$count" --warmup 10000
    run_point "$profile" "$size" lat --count 20000 --rate 5000 --warmup 2000
  done
done

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = ["# profile size_bytes msg_s bytes_s latency_p50_us latency_p99_us (latency at 5000 msg/s)"]
for i, profile in enumerate(["loopback", "1g", "100m"]):
    for size in (64, 1024):
        t = json.load(open(f"{out}/{profile}-{size}-tput/summary.json"))
        l = json.load(open(f"{out}/{profile}-{size}-lat/summary.json"))
        rows.append(f"{profile} {size} {t['throughput']['receive_msg_s']:.0f} {t['throughput']['receive_bytes_s']:.0f} "
                    f"{l['latency']['latency_p50_us']:.1f} {l['latency']['latency_p99_us']:.1f}")
open(f"{out}/m11.dat", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
cat > "$out/m11.gp" <<'GP'
# M11: throughput (msg/s and bytes/s) and latency per network profile, 64 B and 1 KiB
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,600 } else { set terminal png size 1400,600 }
set output "m11.png"
set multiplot layout 1,3 title "msgscope through the relay: loopback vs 1 Gbit/s vs 100 Mbit/s (network lab)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top right
set title "throughput [msg/s]"
plot "< grep ' 64 ' m11.dat" using 3:xtic(1) title "64 B", "< grep ' 1024 ' m11.dat" using 3 title "1 KiB"
set title "throughput [Mbit/s of payload]"
plot "< grep ' 64 ' m11.dat" using ($4*8/1e6):xtic(1) title "64 B", "< grep ' 1024 ' m11.dat" using ($4*8/1e6) title "1 KiB"
set title "latency at 5,000 msg/s [us] (p50 / p99)"
set logscale y
plot "< grep ' 64 ' m11.dat" using 5:xtic(1) title "64 B p50", "< grep ' 1024 ' m11.dat" using 5 title "1 KiB p50", \
     "< grep ' 64 ' m11.dat" using 6 title "64 B p99", "< grep ' 1024 ' m11.dat" using 6 title "1 KiB p99"
unset multiplot
GP
(cd "$out" && gnuplot m11.gp 2>/dev/null && echo "plotted $out/m11.png") || echo "gnuplot missing: m11.gp not rendered"

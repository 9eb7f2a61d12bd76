#!/usr/bin/env bash
# Issue 32's fault targets on the clusters the project starts itself (deploy/rabbitmq-cluster.sh,
# deploy/kafka-cluster.sh): a confirmed trace run at a steady rate through node 1 while node 3 — the leader of the
# run's queue or partition — is paused (SIGSTOP) from 3 s to 3 s + PAUSE by the broker-probe agent, ROUNDS times
# per system; reports per system the unavailability window (median of the rounds), messages lost and duplicated,
# and the time until throughput and p99 were back. Not a test: the Kafka cluster takes 1-2.5 min to start here.
#   RabbitMQ: a quorum queue declared through node 3's management API (its leader is the declaring node),
#             consumed through node 1 with --opt group (confirm=500, prefetch=1000).
#   Kafka:    a topic with replicas 3,1,2 (broker 3 leads, min.insync.replicas 2), acks=all, linger 0.
# Writes OUT/results.csv (one row per run), OUT/cluster-faults.md (the table) and each run's folder.
# Usage: benchmarks/scripts/cluster-faults.sh [OUT_DIR] [ROUNDS]   env SYSTEMS (rabbitmq,kafka), PAUSE (5, s),
#        RATE (1000), COUNT (RATE x (PAUSE + 8))
set -euo pipefail
. "$(dirname "$0")/common.sh"
out="${1:-$root/results/bench-cluster-faults}"
rounds="${2:-3}"
systems="${SYSTEMS:-rabbitmq,kafka}"
pause="${PAUSE:-5}"
rate="${RATE:-1000}"
count="${COUNT:-$((rate * (pause + 8)))}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if missing "$jar"; then package -pl dist -am; fi
running=""
cleanup() { if [ -n "$running" ]; then "$root/deploy/$running-cluster.sh" stop "$out/$running-cluster" || true; fi; }
trap cleanup EXIT
echo "system,round,received,lost,duplicates,acked,unavailable_ms,lag_pause_ms,throughput_back_s,p99_back_s,load1" \
    >"$out/results.csv"

run() { # run SYSTEM ROUND URI BROKER_PID NODE3_PIDFILE OPTS...
    local sys=$1 r=$2 uri=$3 bpid=$4 pidfile=$5
    shift 5
    local dir="$out/$sys-$r"
    rm -rf "$dir"
    java -jar "$jar" run --uri "$uri" --rate "$rate" --count "$count" --warmup 1000 --broker-pid "$bpid" \
        --fault-target "node3=$pidfile" --faults "3s:pause:node3, $((3 + pause))s:resume:node3" \
        --out "$dir" "$@" >"$dir.log" 2>&1 || echo "cluster-faults.sh: $sys round $r failed (see $dir.log)" >&2
    python3 - "$dir/summary.json" "$sys" "$r" >>"$out/results.csv" <<'PY'
import json, os, sys
try:
    s = json.load(open(sys.argv[1]))
    c, f = s["counters"], s["faults"][0]
except (OSError, KeyError, IndexError):  # a run that failed before its measurement: a row without figures
    print(f"{sys.argv[2]},{sys.argv[3]},,,,,,,,,"); sys.exit()
v = lambda x: "" if x is None else x
print(",".join(str(v(x)) for x in [sys.argv[2], sys.argv[3], c["messages_received"], c["messages_lost"],
      c["duplicates"], c.get("messages_acked"), f["unavailable_ms"], f["lag_ms"], f["throughput_recovered_s"],
      f["p99_recovered_s"], os.getloadavg()[0]]))
PY
}

for sys in ${systems//,/ }; do
    case "$sys" in
        rabbitmq)
            running=rabbitmq
            "$root/deploy/rabbitmq-cluster.sh" start "$out/rabbitmq-cluster" | tee "$out/rabbitmq-cluster.log"
            c="$out/rabbitmq-cluster"
            for r in $(seq 1 "$rounds"); do
                q="msgscope-fault-$r"
                curl -sfu guest:guest -X PUT -H 'content-type: application/json' \
                    -d '{"durable":true,"arguments":{"x-queue-type":"quorum","x-expires":300000}}' \
                    "http://127.0.0.1:15683/api/queues/%2F/$q" >/dev/null
                run rabbitmq "$r" "amqp://guest:guest@127.0.0.1:5681/%2f" "$(cat "$c/node1/rabbitmq.pid")" \
                    "$c/node3/rabbitmq.pid" --driver amqp --opt queue_type=quorum --opt confirm=500 \
                    --opt prefetch=1000 --opt topic=msgscope.fault --opt "group=$q"
            done
            ;;
        kafka)
            running=kafka
            "$root/deploy/kafka-cluster.sh" start "$out/kafka-cluster" | tee "$out/kafka-cluster.log"
            c="$out/kafka-cluster"
            for r in $(seq 1 "$rounds"); do
                t="msgscope-fault-$r"
                "$root/deploy/kafka-cluster.sh" tool "$c" org.apache.kafka.tools.TopicCommand \
                    --bootstrap-server 127.0.0.1:19092 --create --topic "$t" --replica-assignment 3:1:2 2>&1 |
                    grep -v SLF4J
                run kafka "$r" "kafka://127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094" \
                    "$(cat "$c/node1/kafka.pid")" "$c/node3/kafka.pid" --driver kafka --opt "topic=$t" --opt linger_ms=0
            done
            ;;
        *) echo "cluster-faults.sh: SYSTEMS takes rabbitmq and kafka, got '$sys'" >&2; exit 2 ;;
    esac
    "$root/deploy/$running-cluster.sh" stop "$out/$running-cluster"
    running=""
done

python3 - "$out" "$pause" "$rate" <<'PY' | tee "$out/cluster-faults.md"
import csv, statistics, sys
out, pause, rate = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(f"{out}/results.csv")))
print(f"Leader's node paused {pause} s at {rate} msg/s (median of the rounds; '-' where unknown)\n")
print("| system | rounds | unavailable ms | lost | duplicates | throughput back s | p99 back s |")
print("|---|---|---|---|---|---|---|")
for sys_ in dict.fromkeys(r["system"] for r in rows):
    rs = [r for r in rows if r["system"] == sys_ and r["received"]]
    med = lambda k: (lambda xs: f"{statistics.median(xs):.1f}" if xs else "-")([float(r[k]) for r in rs if r[k]])
    tot = lambda k: str(sum(int(r[k]) for r in rs if r[k])) if rs else "-"
    print(f"| {sys_} | {len(rs)} | {med('unavailable_ms')} | {tot('lost')} | {tot('duplicates')} "
          f"| {med('throughput_back_s')} | {med('p99_back_s')} |")
PY

#!/usr/bin/env bash
# Issue 32's fault targets on the clusters the project starts itself (deploy/rabbitmq-cluster.sh,
# deploy/kafka-cluster.sh, deploy/nats-cluster.sh), each with every node in a network namespace of its own
# (RABBITMQ_/KAFKA_/NATS_CLUSTER_NETNS=1: root and iproute2; 10.79.0.N, 10.80.0.N and 10.78.0.N): a confirmed trace run
# at a steady rate through node 1 while node 3 — the leader of the run's queue or partition (for RabbitMQ's kill also
# the node its clients use, node 1 next in their list) — is, by the broker-probe agent, paused (SIGSTOP) from 3 s to
# 3 s + PAUSE (action pause), or killed (SIGKILL) at 3 s and started again on its data at 3 s + PAUSE by the cluster
# script's restart (action kill; the clients with --opt reconnect=true, duplicates allowed), or cut off (its
# namespace's eth0 down) from 3 s to 3 s + PARTITION (action partition; duplicates allowed, and --opt reconnect=true
# on Kafka and NATS — RabbitMQ's clients are on node 1, which the partition leaves alone, and the amqp driver's
# reconnect does not take the --opt topic/group the run's queue needs), ROUNDS times per system and action; reports per
# system and action the unavailability window (median of the rounds), messages lost, duplicated and republished,
# guarantee violations, the time until throughput and p99 were back, the longest stretch without a delivery that
# began after the fault's end (resume, restart, heal: a second outage there, from the run's trace.dat, which the
# fault's own window does not show); and, as an independent count, what the broker
# itself says it took (Kafka: the topic's end offsets, records appended; RabbitMQ's pause and partition: the vhost's
# `publish` statistic over the run — a kill loses the killed node's statistics, so none there), which must lie between the
# distinct messages received and every publish attempt (warm-up included). Not a test: the Kafka cluster takes
# 10 s to 2.5 min to start here.
#   RabbitMQ: a quorum queue declared through node 3's management API (its leader is the declaring node),
#             consumed through node 1 with --opt group (confirm=500, prefetch=1000).
#   Kafka:    a topic with replicas 3,1,2 (broker 3 leads, min.insync.replicas 2), acks=all, linger 0.
# Before each round (the second on) node 3 must be back in the cluster: RabbitMQ's management API on node 1 lists it
# running, Kafka's previous topic has broker 3 in its ISR again (a fenced broker 3 would not lead the next topic),
# NATS node 3 has both routes.
# Writes OUT/results.csv (one row per run), OUT/cluster-faults.md (the table) and each run's folder.
# NATS: JetStream, a stream replicated 3 times, its clients on node 3 (the node paused, killed or cut off; its
# stream's leader is the servers' choice, so no independent count there).
# Usage: benchmarks/scripts/cluster-faults.sh [OUT_DIR] [ROUNDS]   env SYSTEMS (rabbitmq,kafka,nats), ACTIONS (pause,kill,partition),
#        PAUSE (5, s), PARTITION (10, s), RATE (1000), COUNT (RATE x (PAUSE + 8) for a pause; RATE x (PAUSE + 20) for a kill, whose
#        outage lasts until a new leader is elected or the node is back: about 10 s on Kafka's 9 s broker session;
#        RATE x (PARTITION + 20) for a partition). Run as root (the namespaces).
set -euo pipefail
. "$(dirname "$0")/common.sh"
out="${1:-$root/results/bench-cluster-faults}"
rounds="${2:-3}"
systems="${SYSTEMS:-rabbitmq,kafka,nats}"
actions="${ACTIONS:-pause,kill,partition}"
partition="${PARTITION:-10}"
pause="${PAUSE:-5}"
rate="${RATE:-1000}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
jar="${MSGSCOPE_JAR:-$jar}"
if missing "$jar"; then package -pl dist -am; fi
running=""
cleanup() { if [ -n "$running" ]; then "$root/deploy/$running-cluster.sh" stop "$out/$running-cluster" || true; fi; }
trap cleanup EXIT
echo "system,action,round,received,lost,duplicates,acked,republished,violations,unavailable_ms,lag_ms,throughput_back_s,p99_back_s,load1,distinct_received,publish_attempts,gap_after_end_ms" \
    >"$out/results.csv"
echo "system,action,round,broker_count" >"$out/broker-counts.csv"

run() { # run SYSTEM ACTION ROUND URI BROKER_PID CLUSTER_DIR OPTS...
    local sys=$1 action=$2 r=$3 uri=$4 bpid=$5 c=$6
    shift 6
    local dir="$out/$sys-$action-$r" pidfile
    pidfile=$(ls "$c"/node3/*.pid "$c"/n3.pid 2>/dev/null | grep -v epmd | head -1 || true)
    local faults=(--fault-target "node3=$pidfile")
    case "$action" in
        pause) faults+=(--faults "3s:pause:node3, $((3 + pause))s:resume:node3") ;;
        kill) faults+=(--fault-target "node3=restart:$root/deploy/$sys-cluster.sh restart $c 3"
            --faults "3s:kill:node3, $((3 + pause))s:restart:node3" --opt reconnect=true --allow-duplicates) ;;
        partition) faults=(--fault-target "node3=netns:$(netns_target "$c")"
            --faults "3s:partition:node3, $((3 + partition))s:heal:node3" --allow-duplicates)
            [ "$sys" = rabbitmq ] || faults+=(--opt reconnect=true) ;;
    esac
    local count=${COUNT:-$((rate * (pause + 8)))}
    [ "$action" != kill ] || count=${COUNT:-$((rate * (pause + 20)))}
    [ "$action" != partition ] || count=${COUNT:-$((rate * (partition + 20)))}
    rm -rf "$dir"
    java -jar "$jar" run --uri "$uri" --rate "$rate" --count "$count" --warmup 1000 --broker-pid "$bpid" \
        "${faults[@]}" --out "$dir" "$@" >"$dir.log" 2>&1 ||
        echo "cluster-faults.sh: $sys $action round $r failed (see $dir.log)" >&2
    python3 - "$dir/summary.json" "$sys" "$action" "$r" >>"$out/results.csv" <<'PY'
import json, os, sys
try:
    s = json.load(open(sys.argv[1]))
    c, f = s["counters"], s["faults"][0]
except (OSError, KeyError, IndexError):  # a run that failed before its measurement: a row without figures
    print(",".join(sys.argv[2:5]) + ",,,,,,,,,,,,,,"); sys.exit()
v = lambda x: "" if x is None else x

def gap_after_end():  # ms: the longest gap between deliveries that began once the second fault (the end) was applied
    end = s["faults"][1]["applied_s"] if len(s["faults"]) > 1 else None
    if end is None:
        return None
    try:
        with open(os.path.join(os.path.dirname(sys.argv[1]), "trace.dat")) as t:
            recv = sorted(float(r[2]) for r in (l.split() for l in t if not l.startswith("#")) if r[2] != "NaN")
    except OSError:
        return None
    gaps = [b - a for a, b in zip(recv, recv[1:]) if a >= end * 1e9]
    return round(max(gaps) / 1e6, 1) if gaps else None

print(",".join(str(v(x)) for x in sys.argv[2:5] + [c["messages_received"], c["messages_lost"], c["duplicates"],
      c.get("messages_acked"), c.get("messages_republished"), c.get("guarantee_violations"), f["unavailable_ms"],
      f["lag_ms"], f["throughput_recovered_s"], f["p99_recovered_s"], os.getloadavg()[0],
      c["warmup_received"] + c["messages_received"],
      c["warmup_sent"] + c["messages_sent"] + (c.get("messages_republished") or 0), gap_after_end()]))
PY
}

# messages published in the cluster's vhost so far, as RabbitMQ's management statistics count them (the run's queue is
# auto-delete, gone with its statistics when the subscriber leaves; the vhost's stay)
vhost_publishes() {
    curl -sfu guest:guest "http://10.79.0.1:15681/api/vhosts/%2F" |
        python3 -c "import json, sys; print(json.load(sys.stdin).get('message_stats', {}).get('publish', 0))"
}

# netns_target CLUSTER_DIR: node 3's namespace and link (NS/eth0), as the cluster script wrote it in cluster.env
netns_target() {
    (. "$1/cluster.env" && echo "${RABBITMQ_NODE3_NETNS:-${KAFKA_NODE3_NETNS:-${NATS_NODE3_NETNS:-}}}")
}

# cluster_up SYSTEM: starts deploy/SYSTEM-cluster.sh in OUT/SYSTEM-cluster, each node in a namespace of its own
# (stopped, namespaces removed, by the EXIT trap if the script ends early), its folder in c
cluster_up() {
    running=$1
    c="$out/$1-cluster"
    RABBITMQ_CLUSTER_NETNS=1 KAFKA_CLUSTER_NETNS=1 NATS_CLUSTER_NETNS=1 "$root/deploy/$1-cluster.sh" start "$c" |
        tee "$out/$1-cluster.log"
}

# rabbit_node3_running: node 1's management API lists node 3 as running (waits up to 60 s; false if it never does)
rabbit_node3_running() {
    local node
    for _ in $(seq 120); do
        node=$(curl -sfu guest:guest "http://10.79.0.1:15681/api/nodes/msc3@10.79.0.3" 2>/dev/null || true)
        [[ "$node" != *'"running":true'* ]] || return 0
        sleep 0.5
    done
    echo "cluster-faults.sh: RabbitMQ node 3 not running after 60 s" >&2
    return 1
}

# kafka_isr_has3 TOPIC: broker 3 is in TOPIC's in-sync replicas (waits up to 60 s; false if it never is)
kafka_isr_has3() {
    local topic
    for _ in $(seq 30); do
        topic=$("$root/deploy/kafka-cluster.sh" tool "$c" org.apache.kafka.tools.TopicCommand \
            --bootstrap-server 10.80.0.1:19092 --describe --topic "$1" 2>/dev/null || true)
        [[ ! "$topic" =~ Isr:\ [0-9,]*3 ]] || return 0
        sleep 2
    done
    echo "cluster-faults.sh: broker 3 not in $1's ISR after 60 s" >&2
    return 1
}

for sys in ${systems//,/ }; do
    case "$sys" in
        rabbitmq)
            cluster_up rabbitmq
            for action in ${actions//,/ }; do for r in $(seq 1 "$rounds"); do
                rabbit_node3_running || true
                if [ "$action" = kill ]; then
                    # the node the clients use, which leads their quorum queue (declared through it): killed, the
                    # clients reconnect to node 1, the next of their list (reconnect does not take --opt topic/group)
                    run rabbitmq "$action" "$r" "amqp://guest:guest@10.79.0.3:5683/%2f,amqp://guest:guest@10.79.0.1:5681/%2f" \
                        "$(cat "$c/node1/rabbitmq.pid")" "$c" --driver amqp --opt queue_type=quorum --opt confirm=500 \
                        --opt prefetch=1000
                    continue
                fi
                # pause and partition: the queue led by node 3 (declared through it), its clients on node 1
                q="msgscope-fault-$action-$r"
                before=$(vhost_publishes)
                curl -sfu guest:guest -X PUT -H 'content-type: application/json' \
                    -d '{"durable":true,"arguments":{"x-queue-type":"quorum","x-expires":300000}}' \
                    "http://10.79.0.3:15683/api/queues/%2F/$q" >/dev/null
                run rabbitmq "$action" "$r" "amqp://guest:guest@10.79.0.1:5681/%2f" "$(cat "$c/node1/rabbitmq.pid")" \
                    "$c" --driver amqp --opt queue_type=quorum --opt confirm=500 \
                    --opt prefetch=1000 --opt topic=msgscope.fault --opt "group=$q"
                sleep 6 # the management plugin's statistics are 5 s old at most
                echo "rabbitmq,$action,$r,$(($(vhost_publishes) - before))" >>"$out/broker-counts.csv"
            done; done
            ;;
        kafka)
            cluster_up kafka
            t=""
            for action in ${actions//,/ }; do for r in $(seq 1 "$rounds"); do
                [ -z "$t" ] || kafka_isr_has3 "$t" || true
                t="msgscope-fault-$action-$r"
                "$root/deploy/kafka-cluster.sh" tool "$c" org.apache.kafka.tools.TopicCommand \
                    --bootstrap-server 10.80.0.1:19092 --create --topic "$t" --replica-assignment 3:1:2 2>&1 |
                    grep -v SLF4J
                run kafka "$action" "$r" "kafka://10.80.0.1:19092,10.80.0.2:19093,10.80.0.3:19094" \
                    "$(cat "$c/node1/kafka.pid")" "$c" --driver kafka --opt "topic=$t" --opt linger_ms=0
                "$root/deploy/kafka-cluster.sh" tool "$c" org.apache.kafka.tools.GetOffsetShell \
                    --bootstrap-server 10.80.0.1:19092 --topic "$t" 2>/dev/null |
                    awk -F: -v row="kafka,$action,$r" '{ n += $3 } END { print row "," n }' >>"$out/broker-counts.csv"
            done; done
            ;;
        nats)
            cluster_up nats
            for action in ${actions//,/ }; do for r in $(seq 1 "$rounds"); do
                # JetStream, a stream replicated 3 times; the clients on node 3, the first of their list: the node
                # they use is paused, killed or cut off (the stream's leader is the servers' choice:
                # NatsClusterFaultIT pauses it on purpose), and with reconnect=true they move to node 1
                run nats "$action" "$r" "nats://10.78.0.3:14224,nats://10.78.0.1:14222,nats://10.78.0.2:14223" \
                    "$(tr -dc 0-9 <"$c/n1.pid")" "$c" --driver nats --opt jetstream=true --opt replicas=3
                for _ in $(seq 60); do # node 3 back with both routes before the next round
                    "$root/deploy/nats-cluster.sh" status "$c" | grep -q "^n3 pid.* routes 2 " && break
                    sleep 0.5
                done
            done; done
            ;;
        *) echo "cluster-faults.sh: SYSTEMS takes rabbitmq, kafka and nats, got '$sys'" >&2; exit 2 ;;
    esac
    "$root/deploy/$running-cluster.sh" stop "$out/$running-cluster"
    running=""
done

python3 - "$out" "$pause" "$rate" "$partition" <<'PY' | tee "$out/cluster-faults.md"
import csv, statistics, sys
out, pause, rate, partition = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = list(csv.DictReader(open(f"{out}/results.csv")))
print(f"Leader's node paused, or killed and restarted, for {pause} s, or partitioned for {partition} s, at {rate} msg/s "
      "(median of the rounds, totals of the counts; '-' where unknown)\n")
counts = {(r["system"], r["action"], r["round"]): r["broker_count"] for r in csv.DictReader(open(f"{out}/broker-counts.csv"))}
def agrees(r):  # the broker's own count within [distinct received, publish attempts]
    n = counts.get((r["system"], r["action"], r["round"]))
    if not n or not r["distinct_received"]:
        return None
    return int(r["distinct_received"]) <= int(n) <= int(r["publish_attempts"])
print("| system | action | rounds | unavailable ms | lost | duplicates | republished | guarantee violations "
      "| throughput back s | p99 back s | longest gap after the end ms | broker's count agrees |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for sys_, action in dict.fromkeys((r["system"], r["action"]) for r in rows):
    rs = [r for r in rows if (r["system"], r["action"]) == (sys_, action) and r["received"]]
    med = lambda k: (lambda xs: f"{statistics.median(xs):.1f}" if xs else "-")([float(r[k]) for r in rs if r[k]])
    tot = lambda k: (lambda xs: str(sum(xs)) if xs else "-")([int(r[k]) for r in rs if r[k]])
    print(f"| {sys_} | {action} | {len(rs)} | {med('unavailable_ms')} | {tot('lost')} | {tot('duplicates')} "
          f"| {tot('republished')} | {tot('violations')} | {med('throughput_back_s')} | {med('p99_back_s')} "
          f"| {med('gap_after_end_ms')} | {sum(agrees(r) is True for r in rs)} of {sum(agrees(r) is not None for r in rs)} |")
PY

#!/usr/bin/env bash
# A private 3-broker Kafka KRaft cluster for fault runs (issue 32 item 2), on loopback or in namespaces: three JVMs
# (kafka.Kafka from the kafka_2.13 jars Maven resolves), each broker and controller at once, node ids 1-3, one
# controller quorum of the three, topics replicated 3 times by default with min.insync.replicas 2. Separate processes,
# so a fault can pause (SIGSTOP) one broker. Every process it starts is stopped by its own PID.
#
#   deploy/kafka-cluster.sh start  DIR [BASEPORT]   format, start, wait until a topic of replication 3 can be made
#   deploy/kafka-cluster.sh stop   DIR              stop the 3 JVMs by PID (a paused one is resumed first)
#   deploy/kafka-cluster.sh restart DIR N           start broker N again after a kill, on its data; returns once it listens
#   deploy/kafka-cluster.sh tool   DIR CLASS ARGS   run a Kafka tool class (e.g. org.apache.kafka.tools.TopicCommand)
#
# Ports, from BASEPORT (default 19092), broker N = 1..3: client listener BASEPORT+N-1, controller BASEPORT+100+N-1,
# all on 127.0.0.1 — or, with KAFKA_CLUSTER_NETNS=1 at start (root and iproute2), each broker in a network namespace
# of its own (msc-kfk1..3) at 10.80.0.N on a veth whose other end is on the bridge msc-kfkbr (10.80.0.254 here), its
# listeners and the controller quorum on those addresses, so that one broker can be cut off from the others and the
# clients (`--fault-target node3=netns:msc-kfk3/eth0`, partition/heal); restart starts a broker in its namespace again
# and stop removes the namespaces and the bridge (deploy/cluster-lib.sh).
# DIR gets: cluster.env (BOOTSTRAP, and KAFKA_NODEn_NETNS=msc-kfkN/eth0 in netns mode), classpath,
# nodeN/{server.properties,data/,server.log,kafka.pid (what --fault-target wants)}.
# The classpath comes from benchmarks/scripts/kafka-tools-pom.xml through the Maven wrapper (Maven Central).
# KAFKA_HEAP (default -Xmx512m) is each JVM's heap.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/cluster-lib.sh"

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
NODES=(1 2 3)
NS=msc-kfk # the namespaces msc-kfk1..3 in netns mode, 10.80.0.1..3 on the bridge msc-kfkbr

host() { netns_host "$DIR" "$1"; } # broker N's address: 10.80.0.N in netns mode, else 127.0.0.1

usage() {
    sed -n '7,10p' "$0" | sed 's/^# *//' >&2
    exit 2
}

tool() { # tool CLASS ARGS...: a Kafka class's main on the cluster's classpath
    local cls=$1
    shift
    java -Xmx256m -cp "$(cat "$DIR/classpath")" "$cls" "$@"
}

start() {
    if [ -f "$DIR/node1/kafka.pid" ] && alive "$(pid_of "$DIR/node1/kafka.pid")"; then
        echo "kafka-cluster: a cluster already runs from $DIR (stop it first)" >&2
        exit 1
    fi
    rm -f "$DIR/netns"
    if [ "${KAFKA_CLUSTER_NETNS:-}" = 1 ]; then netns_up "$DIR" "$NS" 10.80.0 3 || exit 2; fi
    local n port
    for n in "${NODES[@]}"; do
        for port in $((BASE + n - 1)) $((BASE + 100 + n - 1)); do
            free_port "$port" "$(host "$n")" || { netns_down "$DIR"; echo "kafka-cluster: port $port is in use (choose another BASEPORT)" >&2; exit 1; }
        done
    done
    local t0
    t0=$(date +%s.%N)
    if [ ! -s "$DIR/classpath" ]; then
        (cd "$ROOT" && ./mvnw -q -B -f benchmarks/scripts/kafka-tools-pom.xml dependency:build-classpath \
            -Dmdep.outputFile="$DIR/classpath" >/dev/null)
    fi
    local voters="1@$(host 1):$((BASE + 100)),2@$(host 2):$((BASE + 101)),3@$(host 3):$((BASE + 102))"
    local bootstrap="$(host 1):$BASE,$(host 2):$((BASE + 1)),$(host 3):$((BASE + 2))"
    # a cluster id: 16 random bytes, URL-safe base64 without padding (what kafka-storage random-uuid prints)
    local id
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    cat >"$DIR/cluster.env" <<EOF
BASEPORT=$BASE
BOOTSTRAP=$bootstrap
CLUSTER_ID=$id
EOF
    if [ -f "$DIR/netns" ]; then
        for n in "${NODES[@]}"; do echo "KAFKA_NODE${n}_NETNS=$NS$n/eth0" >>"$DIR/cluster.env"; done
    fi
    for n in "${NODES[@]}"; do
        local d="$DIR/node$n"
        rm -rf "$d/data" "$d/server.log"
        mkdir -p "$d/data"
        cat >"$d/server.properties" <<EOF
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=PLAINTEXT://$(host "$n"):$((BASE + n - 1)),CONTROLLER://$(host "$n"):$((BASE + 100 + n - 1))
advertised.listeners=PLAINTEXT://$(host "$n"):$((BASE + n - 1))
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$d/data
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
EOF
        tool kafka.tools.StorageTool format -t "$id" -c "$d/server.properties" >"$d/format.log" 2>&1 ||
            { echo "kafka-cluster: formatting node $n failed: $(tail -3 "$d/format.log")" >&2; netns_down "$DIR"; exit 1; }
    done
    for n in "${NODES[@]}"; do
        launch "$n"
    done
    # ready once a topic with replication 3 and min.insync.replicas 2 can be created: all 3 brokers registered
    local w=0
    until tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create \
        --topic msgscope-cluster-ready --partitions 1 --replication-factor 3 >"$DIR/ready.log" 2>&1; do
        for n in "${NODES[@]}"; do
            alive "$(pid_of "$DIR/node$n/kafka.pid")" ||
                { echo "kafka-cluster: broker $n exited: $(tail -5 "$DIR/node$n/server.log")" >&2; stop; exit 1; }
        done
        w=$((w + 1))
        [ $w -lt 60 ] || { echo "kafka-cluster: no topic of replication 3 after 60 tries: $(tail -3 "$DIR/ready.log")" >&2; stop; exit 1; }
        sleep 1
    done
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --delete \
        --topic msgscope-cluster-ready >/dev/null 2>&1 || true
    local t1
    t1=$(date +%s.%N)
    echo "kafka-cluster: 3 brokers running in $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s from $DIR"
    echo "  uri kafka://$bootstrap"
    for n in "${NODES[@]}"; do
        echo "  broker$n $(host "$n"):$((BASE + n - 1)) controller :$((BASE + 100 + n - 1))" \
            "pid $(pid_of "$DIR/node$n/kafka.pid") ($DIR/node$n/kafka.pid)$([ ! -f "$DIR/netns" ] || echo " netns $NS$n/eth0")"
    done
}

# launch N: broker N's JVM in a session of its own (and its namespace in netns mode), its pid in nodeN/kafka.pid (the
# log appended to, so a restart keeps what the killed one wrote)
launch() {
    local d="$DIR/node$1"
    # shellcheck disable=SC2086
    (netns_exec "$DIR" "$1" setsid java ${KAFKA_HEAP:--Xmx512m} -cp "$(cat "$DIR/classpath")" kafka.Kafka "$d/server.properties" \
        </dev/null >>"$d/server.log" 2>&1) &
    echo $! >"$d/kafka.pid"
}

# restart N: broker N again after a fault killed it, on its data as the kill left it: what a fault plan's restart
# command runs (--fault-target nodeN=restart:...). Refused while it runs; returns once its client port listens
# (it then catches up with the others' logs as a follower on its own).
restart() {
    local n=$1 t0 w=0
    local port=$((BASEPORT + n - 1))
    if alive "$(pid_of "$DIR/node$n/kafka.pid")"; then
        echo "kafka-cluster: broker $n still runs (pid $(pid_of "$DIR/node$n/kafka.pid")): kill or stop it first" >&2
        exit 1
    fi
    t0=$(date +%s.%N)
    launch "$n"
    until ! free_port "$port" "$(host "$n")"; do
        alive "$(pid_of "$DIR/node$n/kafka.pid")" ||
            { echo "kafka-cluster: broker $n exited: $(tail -5 "$DIR/node$n/server.log")" >&2; exit 1; }
        w=$((w + 1))
        [ $w -lt 1200 ] || { echo "kafka-cluster: broker $n does not listen on $port after 120 s" >&2; exit 1; }
        sleep 0.1
    done
    echo "kafka-cluster: broker $n listening again in $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}") s," \
        "pid $(pid_of "$DIR/node$n/kafka.pid")"
}

# Stops by PID: SIGCONT (a fault may have left one paused), SIGTERM (a controlled shutdown), SIGKILL after 60 s; then
# removes the namespaces, if any.
stop() {
    stop_nodes kafka.pid
    netns_down "$DIR"
}

[ $# -ge 2 ] || usage
CMD=$1
DIR=$2
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
case "$CMD" in
    start)
        BASE=${3:-19092}
        [[ "$BASE" =~ ^[0-9]+$ ]] && [ "$BASE" -ge 1024 ] && [ "$BASE" -le 65000 ] ||
            { echo "kafka-cluster: BASEPORT must be a number from 1024 to 65000, got '$BASE'" >&2; exit 2; }
        mkdir -p "$DIR"
        start
        ;;
    stop)
        [ -f "$DIR/cluster.env" ] || { echo "kafka-cluster: no cluster in $DIR (no cluster.env)" >&2; exit 1; }
        stop
        echo "kafka-cluster: stopped ($DIR)"
        ;;
    restart)
        [ -f "$DIR/cluster.env" ] || { echo "kafka-cluster: no cluster in $DIR (no cluster.env)" >&2; exit 1; }
        [[ "${3:-}" =~ ^[123]$ ]] || { echo "kafka-cluster: restart takes a broker number 1-3, got '${3:-}'" >&2; exit 2; }
        . "$DIR/cluster.env"
        restart "$3"
        ;;
    tool)
        [ $# -ge 3 ] && [ -s "$DIR/classpath" ] || usage
        shift 2
        tool "$@"
        ;;
    *) usage ;;
esac

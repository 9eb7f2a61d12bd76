#!/usr/bin/env bash
# A private 3-node RabbitMQ cluster on loopback for fault runs (issue 32 item 2): quorum queues and streams
# replicated over 3 nodes msc1@localhost, msc2@localhost, msc3@localhost, each with its own ports, data and log
# folders, Erlang cookie and epmd, so the shared RabbitMQ (rabbit@localhost, :5672/:25672/:15672, epmd :4369) is
# never touched. Every process it starts is stopped by its own PID.
#
#   deploy/rabbitmq-cluster.sh start  DIR [BASEPORT]   start, join, wait until all 3 run; prints the ports
#   deploy/rabbitmq-cluster.sh stop   DIR              stop the nodes and the epmd by PID (a paused node is resumed first)
#   deploy/rabbitmq-cluster.sh restart DIR N           start node N again after a kill, on its data; returns once booted
#   deploy/rabbitmq-cluster.sh status DIR              the cluster's status as node 1 sees it
#   deploy/rabbitmq-cluster.sh ctl    DIR N ARGS...    rabbitmqctl ARGS against node N (e.g. list_queues name leader)
#
# Ports, from BASEPORT (default 5681), node N = 1..3:
#   AMQP BASEPORT+N-1, stream BASEPORT+100+N-1, management HTTP BASEPORT+10000+N-1, Erlang distribution
#   BASEPORT+20000+N-1, epmd BASEPORT+3 (the CLI takes a free port in distribution+10000 .. +10010).
# DIR gets: cluster.env (the ports), epmd.pid, home/.erlang.cookie, nodeN/{rabbitmq.conf,enabled_plugins,
# mnesia/,log/,rabbitmq.pid (the node's beam.smp: the pid a fault target needs),wrapper.pid,console.log}.
# Plugins: RABBITMQ_CLUSTER_PLUGINS (unset: "rabbitmq_stream rabbitmq_management"; empty: none); a node's rabbitmq.conf sets the
# listeners of the plugins enabled only (RabbitMQ refuses keys of a disabled plugin). With rabbitmq_mqtt, node N's
# MQTT listener is BASEPORT+200+N-1 (never the default 1883, Mosquitto's). RABBITMQ_CLUSTER_NODES (1-3, default 3):
# fewer nodes, e.g. the one MQTT node of deploy/rabbitmq-mqtt.sh. Needs the Debian package rabbitmq-server (3.10.8
# here) and its Erlang; run as any user that can write DIR.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/cluster-lib.sh"

RMQ_BIN=${RMQ_BIN:-/usr/lib/rabbitmq/bin}
NODE_COUNT=${RABBITMQ_CLUSTER_NODES:-3}
PLUGINS=${RABBITMQ_CLUSTER_PLUGINS-rabbitmq_stream rabbitmq_management}

usage() {
    sed -n '7,11p' "$(readlink -f "$0")" | sed 's/^# *//' >&2
    exit 2
}

# The environment every rabbitmq-* script gets for node $1: nothing read from /etc/rabbitmq.
node_env() {
    local n=$1 d="$DIR/node$1"
    export HOME="$DIR/home"
    export RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf"
    export RABBITMQ_NODENAME="msc$n@localhost"
    export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
    export RABBITMQ_NODE_PORT=$((BASE + n - 1))
    export RABBITMQ_DIST_PORT=$((BASE + 20000 + n - 1))
    export RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf"
    export RABBITMQ_ADVANCED_CONFIG_FILE="$d/advanced.config"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins"
    export RABBITMQ_MNESIA_BASE="$d/mnesia"
    export RABBITMQ_LOG_BASE="$d/log"
    export RABBITMQ_PID_FILE="$d/rabbitmq.pid"
    export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    export ERL_EPMD_PORT=$((BASE + 3))
    export ERL_EPMD_ADDRESS=127.0.0.1
    unset ERL_FLAGS RABBITMQ_ENABLED_PLUGINS
}

ctl() { # ctl N ARGS...: rabbitmqctl against node N, in a subshell so the environment stays per node
    local n=$1
    shift
    (node_env "$n" && "$RMQ_BIN/rabbitmqctl" -n "msc$n@localhost" "$@")
}

load_env() {
    [ -f "$DIR/cluster.env" ] || { echo "rabbitmq-cluster: no cluster in $DIR (no cluster.env)" >&2; exit 1; }
    # shellcheck disable=SC1091
    . "$DIR/cluster.env"
    BASE=$BASEPORT
    NODE_COUNT=${NODE_COUNT:-3}
    set_nodes
}

# NODES=(1 .. NODE_COUNT), after checking NODE_COUNT
# node_arg N: N when it names a node of the cluster (1..NODE_COUNT); else exit 2 with the reason
node_arg() {
    [[ "$1" =~ ^[123]$ ]] && [ "$1" -le "$NODE_COUNT" ] ||
        { echo "rabbitmq-cluster: node must be 1 to $NODE_COUNT, got '$1'" >&2; exit 2; }
    echo "$1"
}

set_nodes() {
    [[ "$NODE_COUNT" =~ ^[123]$ ]] ||
        { echo "rabbitmq-cluster: RABBITMQ_CLUSTER_NODES must be 1, 2 or 3, got '$NODE_COUNT'" >&2; exit 2; }
    mapfile -t NODES < <(seq 1 "$NODE_COUNT")
}

# has_plugin NAME: true when the cluster's plugins include NAME
has_plugin() { [[ " $PLUGINS " == *" $1 "* ]]; }

# node_conf N: node N's rabbitmq.conf, the listeners of the enabled plugins only
node_conf() {
    local n=$1
    echo "listeners.tcp.local = 127.0.0.1:$((BASE + n - 1))"
    if has_plugin rabbitmq_stream; then
        echo "stream.listeners.tcp.local = 127.0.0.1:$((BASE + 100 + n - 1))"
    fi
    if has_plugin rabbitmq_management; then
        echo "management.tcp.ip = 127.0.0.1"
        echo "management.tcp.port = $((BASE + 10000 + n - 1))"
    fi
    if has_plugin rabbitmq_mqtt; then
        echo "mqtt.listeners.tcp.local = 127.0.0.1:$((BASE + 200 + n - 1))"
    fi
    echo "log.file.level = info"
}

# ports N: what node N's line of the start-up report lists, for the plugins enabled
ports() {
    local n=$1
    if has_plugin rabbitmq_stream; then printf ' stream :%s' $((BASE + 100 + n - 1)); fi
    if has_plugin rabbitmq_mqtt; then printf ' mqtt://127.0.0.1:%s' $((BASE + 200 + n - 1)); fi
    if has_plugin rabbitmq_management; then printf ' management http://127.0.0.1:%s' $((BASE + 10000 + n - 1)); fi
}

# port_list PLUGIN OFFSET: the nodes' ports BASE+OFFSET+N-1, space-separated; empty when PLUGIN is off (- for none)
port_list() {
    local n out=""
    if [ "$1" = - ] || has_plugin "$1"; then
        for n in "${NODES[@]}"; do out="$out $((BASE + $2 + n - 1))"; done
    fi
    echo "${out# }"
}

# launch N: starts node N's rabbitmq-server in the background (its data, configuration and plugins as they are in
# DIR/nodeN), its console appended to DIR/nodeN/console.log, the wrapper's pid in DIR/nodeN/wrapper.pid
launch() {
    local n=$1 d="$DIR/node$1"
    (node_env "$n" && exec setsid "$RMQ_BIN/rabbitmq-server" </dev/null >>"$d/console.log" 2>&1) &
    echo $! >"$d/wrapper.pid"
}

# await_boot N SECONDS: waits for the pid file node N writes and for the node to have booted (not for other nodes);
# false, with the reason on stderr, when its wrapper exited or it did not boot in time
await_boot() {
    local n=$1 limit=$2 w=0
    until [ -s "$DIR/node$n/rabbitmq.pid" ]; do
        alive "$(pid_of "$DIR/node$n/wrapper.pid")" ||
            { echo "rabbitmq-cluster: node $n exited: $(tail -5 "$DIR/node$n/console.log")" >&2; return 1; }
        w=$((w + 1))
        [ $w -lt $((limit * 10)) ] || { echo "rabbitmq-cluster: node $n wrote no pid file in $limit s" >&2; return 1; }
        sleep 0.1
    done
    ctl "$n" -q await_startup --timeout "$limit" >/dev/null ||
        { echo "rabbitmq-cluster: node $n did not boot: $(tail -5 "$DIR/node$n/console.log")" >&2; return 1; }
}

# restart N: node N again after a fault killed it (or it stopped), on its data as it was left: what a fault plan's
# restart command runs (--fault-target nodeN=restart:...). Refused while the node runs; returns once it booted.
restart() {
    local n=$1 t0
    if alive "$(pid_of "$DIR/node$n/rabbitmq.pid")"; then
        echo "rabbitmq-cluster: node $n still runs (pid $(pid_of "$DIR/node$n/rabbitmq.pid")): kill or stop it first" >&2
        exit 1
    fi
    alive "$(pid_of "$DIR/epmd.pid")" || { echo "rabbitmq-cluster: the cluster's epmd is gone: start it again" >&2; exit 1; }
    t0=$(date +%s.%N)
    rm -f "$DIR/node$n/rabbitmq.pid"
    launch "$n"
    await_boot "$n" 120 || exit 1
    echo "rabbitmq-cluster: node $n running again in $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}") s," \
        "pid $(pid_of "$DIR/node$n/rabbitmq.pid")"
}

start() {
    [ -x "$RMQ_BIN/rabbitmq-server" ] || { echo "rabbitmq-cluster: $RMQ_BIN/rabbitmq-server not found (Debian package rabbitmq-server)" >&2; exit 1; }
    if [ -f "$DIR/cluster.env" ] && alive "$(pid_of "$DIR/node1/rabbitmq.pid")"; then
        echo "rabbitmq-cluster: a cluster already runs from $DIR (stop it first)" >&2
        exit 1
    fi
    local n port
    for n in "${NODES[@]}"; do
        for port in $((BASE + n - 1)) $((BASE + 100 + n - 1)) $((BASE + 200 + n - 1)) $((BASE + 10000 + n - 1)) \
            $((BASE + 20000 + n - 1)); do
            free_port "$port" || { echo "rabbitmq-cluster: port $port is in use (choose another BASEPORT)" >&2; exit 1; }
        done
    done
    free_port $((BASE + 3)) || { echo "rabbitmq-cluster: port $((BASE + 3)) (epmd) is in use" >&2; exit 1; }
    local t0
    t0=$(date +%s.%N)
    mkdir -p "$DIR/home"
    # a cookie of the cluster's own: the CLI and the 3 nodes read it from HOME; the shared broker's is not used
    if [ ! -s "$DIR/home/.erlang.cookie" ]; then
        (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/home/.erlang.cookie")
    fi
    chmod 400 "$DIR/home/.erlang.cookie"
    : >"$DIR/rabbitmq-env.conf"
    local names="" m
    for m in "${NODES[@]}"; do names="$names msc$m@localhost"; done
    cat >"$DIR/cluster.env" <<EOF
BASEPORT=$BASE
NODE_COUNT=$NODE_COUNT
AMQP_PORTS="$(port_list - 0)"
STREAM_PORTS="$(port_list rabbitmq_stream 100)"
MQTT_PORTS="$(port_list rabbitmq_mqtt 200)"
MANAGEMENT_PORTS="$(port_list rabbitmq_management 10000)"
NODE_NAMES="${names# }"
EOF
    local epmd
    epmd=$(command -v epmd || ls /usr/lib/erlang/erts-*/bin/epmd | head -1)
    setsid "$epmd" -port $((BASE + 3)) -address 127.0.0.1 </dev/null >"$DIR/epmd.log" 2>&1 &
    echo $! >"$DIR/epmd.pid"
    for n in "${NODES[@]}"; do
        local d="$DIR/node$n"
        mkdir -p "$d/mnesia" "$d/log"
        node_conf "$n" >"$d/rabbitmq.conf"
        if [ "$n" -gt 1 ]; then
            # a fresh node 2 or 3 joins node 1 on its first boot (classic config peer discovery), retrying while
            # node 1 boots: no stop_app/join_cluster/start_app cycle
            cat >>"$d/rabbitmq.conf" <<EOF
cluster_formation.peer_discovery_backend = classic_config
cluster_formation.classic_config.nodes.1 = msc1@localhost
cluster_formation.discovery_retry_limit = 360
cluster_formation.discovery_retry_interval = 500
EOF
        fi
        echo "[$(echo "$PLUGINS" | xargs | tr -s ' ' ',')]." >"$d/enabled_plugins"
        launch "$n"
    done
    for n in "${NODES[@]}"; do
        await_boot "$n" 180 || { stop; exit 1; }
    done
    local running=0 w=0
    while [ "$running" -lt "$NODE_COUNT" ]; do
        running=$(ctl 1 -q cluster_status --formatter json | grep -o '"running_nodes":\[[^]]*\]' | grep -o 'msc[123]@localhost' | sort -u | wc -l)
        w=$((w + 1))
        [ $w -lt 120 ] || { echo "rabbitmq-cluster: only $running of $NODE_COUNT nodes running after joining" >&2; stop; exit 1; }
        [ "$running" -ge "$NODE_COUNT" ] || sleep 0.5
    done
    # quorum queues and streams are on by default in 3.10; a feature flag left off by an upgrade path is not here
    ctl 1 -q enable_feature_flag all >/dev/null
    local t1
    t1=$(date +%s.%N)
    echo "rabbitmq-cluster: $NODE_COUNT node(s) running in $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s from $DIR"
    for n in "${NODES[@]}"; do
        echo "  node$n msc$n@localhost amqp://guest:guest@127.0.0.1:$((BASE + n - 1))$(ports "$n")" \
            "pid $(pid_of "$DIR/node$n/rabbitmq.pid") ($DIR/node$n/rabbitmq.pid)"
    done
}

# Stops by PID: each node's beam.smp (SIGCONT first, in case a fault left it paused, then SIGTERM: a clean
# shutdown; SIGKILL after 60 s), its wrapper script, then the cluster's own epmd.
stop() {
    local pid
    stop_nodes rabbitmq.pid wrapper.pid
    pid=$(pid_of "$DIR/epmd.pid")
    signal_stop "$pid"
    await_exit "$pid"
    rm -f "$DIR/epmd.pid"
}

[ $# -ge 2 ] || usage
CMD=$1
DIR=$2
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
case "$CMD" in
    start)
        BASE=${3:-5681}
        [[ "$BASE" =~ ^[0-9]+$ ]] && [ "$BASE" -ge 1024 ] && [ "$BASE" -le 45000 ] ||
            { echo "rabbitmq-cluster: BASEPORT must be a number from 1024 to 45000, got '$BASE'" >&2; exit 2; }
        set_nodes
        mkdir -p "$DIR"
        start
        ;;
    stop)
        load_env
        stop
        echo "rabbitmq-cluster: stopped ($DIR)"
        ;;
    restart)
        [ $# -ge 3 ] || usage
        load_env
        n=$(node_arg "$3") # an assignment: set -e ends the script with node_arg's exit 2
        restart "$n"
        ;;
    status)
        load_env
        ctl 1 cluster_status
        ;;
    ctl)
        [ $# -ge 4 ] || usage
        load_env
        n=$(node_arg "$3")
        shift 3
        ctl "$n" "$@"
        ;;
    *) usage ;;
esac

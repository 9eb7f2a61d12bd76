#!/usr/bin/env bash
# A private 3-node RabbitMQ cluster for fault runs (issue 32 item 2), on loopback or in namespaces: quorum queues
# and streams replicated over 3 nodes msc1@localhost, msc2@localhost, msc3@localhost, each with its own ports, data,
# log folders, Erlang cookie and epmd, so the shared RabbitMQ (rabbit@localhost, :5672/:25672/:15672, epmd :4369) is
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
# All on 127.0.0.1 — or, with RABBITMQ_CLUSTER_NETNS=1 at start (root and iproute2), each node in a network namespace
# of its own (msc-rmq1..3) at 10.79.0.N on a veth whose other end is on the bridge msc-rmqbr (10.79.0.254 here), so
# that one node can be cut off from the others and the clients (`--fault-target node3=netns:msc-rmq3/eth0`,
# partition/heal; deploy/cluster-lib.sh). The namespaces share the host's name, so the nodes take long names on their
# addresses (mscN@10.79.0.N, RABBITMQ_USE_LONGNAME) and each namespace has an epmd of its own on BASEPORT+3 (the
# nodes find one another's at their addresses); rabbitmqctl runs in the namespace of the node it asks; restart starts
# a node in its namespace again and stop removes the namespaces and the bridge.
# DIR gets: cluster.env (the ports and node names; in netns mode HOSTS and RABBITMQ_NODEn_NETNS=msc-rmqN/eth0),
# epmd.pid (netns mode: epmd1.pid..epmd3.pid), home/.erlang.cookie, nodeN/{rabbitmq.conf,enabled_plugins,
# mnesia/,log/,rabbitmq.pid (the node's beam.smp: the pid a fault target needs),wrapper.pid,console.log}.
# Plugins: RABBITMQ_CLUSTER_PLUGINS (unset: "rabbitmq_stream rabbitmq_management"; empty: none); a node's rabbitmq.conf sets the
# listeners of the plugins enabled only (RabbitMQ refuses keys of a disabled plugin). With rabbitmq_mqtt, node N's
# MQTT listener is BASEPORT+200+N-1 (never the default 1883, Mosquitto's); with rabbitmq_stomp its STOMP listener is
# BASEPORT+400+N-1 (never the default 61613). RABBITMQ_CLUSTER_NODES (1-3, default 3):
# fewer nodes, e.g. the one MQTT node of deploy/rabbitmq-mqtt.sh. RABBITMQ_CLUSTER_TLS_DIR=DIR (a folder with ca.pem,
# cert.pem and key.pem, e.g. from `msgscope certs issue`): node N also takes AMQP over TLS (amqps://) on
# BASEPORT+300+N-1, no client certificate asked (benchmarks/scripts/tls-cost.sh); with rabbitmq_stream also streams over
# TLS (rabbitmq-stream+tls://) on BASEPORT+500+N-1 (and the node advertises its address, which the certificate must
# name, to stream clients), with rabbitmq_stomp STOMP over TLS (stomps://) on BASEPORT+600+N-1. Needs the Debian package rabbitmq-server (3.10.8
# here) and its Erlang; run as any user that can write DIR.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/cluster-lib.sh"

RMQ_BIN=${RMQ_BIN:-/usr/lib/rabbitmq/bin}
NODE_COUNT=${RABBITMQ_CLUSTER_NODES:-3}
PLUGINS=${RABBITMQ_CLUSTER_PLUGINS-rabbitmq_stream rabbitmq_management}
NS=msc-rmq # the namespaces msc-rmq1..3 in netns mode, 10.79.0.1..3 on the bridge msc-rmqbr

host() { netns_host "$DIR" "$1"; } # node N's address: 10.79.0.N in netns mode, else 127.0.0.1

# node_name N: node N's Erlang name: mscN@localhost, or mscN@10.79.0.N (a long name) in netns mode
node_name() { if [ -f "$DIR/netns" ]; then echo "msc$1@$(host "$1")"; else echo "msc$1@localhost"; fi; }

# epmd_pidfiles: the pid files of the cluster's epmd (netns mode: one per namespace)
epmd_pidfiles() {
    local n
    if [ -f "$DIR/netns" ]; then
        for n in "${NODES[@]}"; do echo "$DIR/epmd$n.pid"; done
    else
        echo "$DIR/epmd.pid"
    fi
}

usage() {
    sed -n '7,11p' "$(readlink -f "$0")" | sed 's/^# *//' >&2
    exit 2
}

# The environment every rabbitmq-* script gets for node $1: nothing read from /etc/rabbitmq.
node_env() {
    local n=$1 d="$DIR/node$1"
    export HOME="$DIR/home"
    export RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf"
    export RABBITMQ_NODENAME
    RABBITMQ_NODENAME=$(node_name "$n")
    export RABBITMQ_NODE_IP_ADDRESS
    RABBITMQ_NODE_IP_ADDRESS=$(host "$n")
    export RABBITMQ_NODE_PORT=$((BASE + n - 1))
    export RABBITMQ_DIST_PORT=$((BASE + 20000 + n - 1))
    export RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf"
    export RABBITMQ_ADVANCED_CONFIG_FILE="$d/advanced.config"
    export RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins"
    export RABBITMQ_MNESIA_BASE="$d/mnesia"
    export RABBITMQ_LOG_BASE="$d/log"
    export RABBITMQ_PID_FILE="$d/rabbitmq.pid"
    export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {$(host "$n" | tr . ,)}"
    export ERL_EPMD_PORT=$((BASE + 3))
    export ERL_EPMD_ADDRESS=127.0.0.1
    unset ERL_FLAGS RABBITMQ_ENABLED_PLUGINS RABBITMQ_USE_LONGNAME
    if [ -f "$DIR/netns" ]; then export RABBITMQ_USE_LONGNAME=true; fi
}

ctl() { # ctl N ARGS...: rabbitmqctl against node N, in a subshell so the environment stays per node (in netns mode
    # in node N's namespace, whose epmd the CLI registers with)
    local n=$1
    shift
    (node_env "$n" && netns_exec "$DIR" "$n" "$RMQ_BIN/rabbitmqctl" -n "$(node_name "$n")" "$@")
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
    local h
    h=$(host "$n")
    echo "listeners.tcp.local = $h:$((BASE + n - 1))"
    if has_plugin rabbitmq_stream; then
        echo "stream.listeners.tcp.local = $h:$((BASE + 100 + n - 1))"
    fi
    if has_plugin rabbitmq_management; then
        echo "management.tcp.ip = $h"
        echo "management.tcp.port = $((BASE + 10000 + n - 1))"
    fi
    if has_plugin rabbitmq_mqtt; then
        echo "mqtt.listeners.tcp.local = $h:$((BASE + 200 + n - 1))"
    fi
    if has_plugin rabbitmq_stomp; then
        echo "stomp.listeners.tcp.local = $h:$((BASE + 400 + n - 1))"
    fi
    if [ -n "${RABBITMQ_CLUSTER_TLS_DIR:-}" ]; then
        local t
        t=$(readlink -f "$RABBITMQ_CLUSTER_TLS_DIR")
        echo "listeners.ssl.local = $h:$((BASE + 300 + n - 1))"
        if has_plugin rabbitmq_stream; then
            echo "stream.listeners.ssl.local = $h:$((BASE + 500 + n - 1))"
            # the host a stream client is sent to for a stream's leader: the address the certificate names
            echo "stream.advertised_host = $h"
        fi
        if has_plugin rabbitmq_stomp; then
            echo "stomp.listeners.ssl.local = $h:$((BASE + 600 + n - 1))"
        fi
        echo "ssl_options.cacertfile = $t/ca.pem"
        echo "ssl_options.certfile = $t/cert.pem"
        echo "ssl_options.keyfile = $t/key.pem"
        echo "ssl_options.verify = verify_none"
        echo "ssl_options.fail_if_no_peer_cert = false"
    fi
    echo "log.file.level = info"
    # netns mode: the clients and the scripts come from the bridge (10.79.0.254), not loopback, where RabbitMQ lets
    # guest in by default; this private cluster lets it in from there too
    if [ -f "$DIR/netns" ]; then echo "loopback_users.guest = false"; fi
}

# ports N: what node N's line of the start-up report lists, for the plugins enabled
ports() {
    local n=$1
    if has_plugin rabbitmq_stream; then printf ' stream :%s' $((BASE + 100 + n - 1)); fi
    if has_plugin rabbitmq_mqtt; then printf ' mqtt://%s:%s' "$(host "$n")" $((BASE + 200 + n - 1)); fi
    if has_plugin rabbitmq_stomp; then printf ' stomp://%s:%s' "$(host "$n")" $((BASE + 400 + n - 1)); fi
    if [ -n "${RABBITMQ_CLUSTER_TLS_DIR:-}" ]; then
        printf ' amqps://%s:%s' "$(host "$n")" $((BASE + 300 + n - 1))
        if has_plugin rabbitmq_stream; then printf ' rabbitmq-stream+tls://%s:%s' "$(host "$n")" $((BASE + 500 + n - 1)); fi
        if has_plugin rabbitmq_stomp; then printf ' stomps://%s:%s' "$(host "$n")" $((BASE + 600 + n - 1)); fi
    fi
    if has_plugin rabbitmq_management; then printf ' management http://%s:%s' "$(host "$n")" $((BASE + 10000 + n - 1)); fi
    if [ -f "$DIR/netns" ]; then printf ' netns %s' "$NS$n/eth0"; fi
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
# DIR/nodeN; in its namespace in netns mode), its console appended to DIR/nodeN/console.log, the wrapper's pid in
# DIR/nodeN/wrapper.pid
launch() {
    local n=$1 d="$DIR/node$1"
    (node_env "$n" && netns_exec "$DIR" "$n" setsid "$RMQ_BIN/rabbitmq-server" </dev/null >>"$d/console.log" 2>&1) &
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
    local e
    for e in $(epmd_pidfiles); do
        alive "$(pid_of "$e")" || { echo "rabbitmq-cluster: the cluster's epmd ($e) is gone: start it again" >&2; exit 1; }
    done
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
    rm -f "$DIR/netns"
    if [ "${RABBITMQ_CLUSTER_NETNS:-}" = 1 ]; then netns_up "$DIR" "$NS" 10.79.0 "$NODE_COUNT" || exit 2; fi
    local n port
    for n in "${NODES[@]}"; do
        for port in $((BASE + n - 1)) $((BASE + 100 + n - 1)) $((BASE + 200 + n - 1)) $((BASE + 10000 + n - 1)) \
            $((BASE + 20000 + n - 1)); do
            free_port "$port" "$(host "$n")" ||
                { echo "rabbitmq-cluster: port $port is in use (choose another BASEPORT)" >&2; netns_down "$DIR"; exit 1; }
        done
    done
    [ -f "$DIR/netns" ] || free_port $((BASE + 3)) ||
        { echo "rabbitmq-cluster: port $((BASE + 3)) (epmd) is in use" >&2; exit 1; }
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
    for m in "${NODES[@]}"; do names="$names $(node_name "$m")"; done
    cat >"$DIR/cluster.env" <<EOF
BASEPORT=$BASE
NODE_COUNT=$NODE_COUNT
AMQP_PORTS="$(port_list - 0)"
STREAM_PORTS="$(port_list rabbitmq_stream 100)"
MQTT_PORTS="$(port_list rabbitmq_mqtt 200)"
STOMP_PORTS="$(port_list rabbitmq_stomp 400)"
MANAGEMENT_PORTS="$(port_list rabbitmq_management 10000)"
NODE_NAMES="${names# }"
EOF
    if [ -f "$DIR/netns" ]; then
        echo "HOSTS=\"$(for m in "${NODES[@]}"; do host "$m"; done | xargs)\"" >>"$DIR/cluster.env"
        for m in "${NODES[@]}"; do echo "RABBITMQ_NODE${m}_NETNS=$NS$m/eth0" >>"$DIR/cluster.env"; done
    fi
    local epmd
    epmd=$(command -v epmd || ls /usr/lib/erlang/erts-*/bin/epmd | head -1)
    if [ -f "$DIR/netns" ]; then
        # one epmd per namespace, on its loopback (where its node registers) and its address (where the others ask)
        for m in "${NODES[@]}"; do
            (netns_exec "$DIR" "$m" setsid "$epmd" -port $((BASE + 3)) -address "127.0.0.1,$(host "$m")" \
                </dev/null >"$DIR/epmd$m.log" 2>&1) &
            echo $! >"$DIR/epmd$m.pid"
        done
    else
        setsid "$epmd" -port $((BASE + 3)) -address 127.0.0.1 </dev/null >"$DIR/epmd.log" 2>&1 &
        echo $! >"$DIR/epmd.pid"
    fi
    for n in "${NODES[@]}"; do
        local d="$DIR/node$n"
        mkdir -p "$d/mnesia" "$d/log"
        node_conf "$n" >"$d/rabbitmq.conf"
        if [ "$n" -gt 1 ]; then
            # a fresh node 2 or 3 joins node 1 on its first boot (classic config peer discovery), retrying while
            # node 1 boots: no stop_app/join_cluster/start_app cycle
            cat >>"$d/rabbitmq.conf" <<EOF
cluster_formation.peer_discovery_backend = classic_config
cluster_formation.classic_config.nodes.1 = $(node_name 1)
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
        running=$(ctl 1 -q cluster_status --formatter json | grep -o '"running_nodes":\[[^]]*\]' | grep -o 'msc[123]@[^"]*' | sort -u | wc -l)
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
        echo "  node$n $(node_name "$n") amqp://guest:guest@$(host "$n"):$((BASE + n - 1))$(ports "$n")" \
            "pid $(pid_of "$DIR/node$n/rabbitmq.pid") ($DIR/node$n/rabbitmq.pid)"
    done
}

# Stops by PID: each node's beam.smp (SIGCONT first, in case a fault left it paused, then SIGTERM: a clean
# shutdown; SIGKILL after 60 s), its wrapper script, then the cluster's own epmd (each namespace's); then removes the
# namespaces, if any.
stop() {
    local pid e
    stop_nodes rabbitmq.pid wrapper.pid
    for e in $(epmd_pidfiles); do
        pid=$(pid_of "$e")
        signal_stop "$pid"
        await_exit "$pid"
        rm -f "$e"
    done
    netns_down "$DIR"
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

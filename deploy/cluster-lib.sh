# Sourced by deploy/rabbitmq-cluster.sh, deploy/kafka-cluster.sh and deploy/nats-cluster.sh (not run on its own):
# process and port helpers for the private clusters of issue 32, which stop only the processes they started, by PID,
# and the network namespaces a cluster's nodes run in when it is started in netns mode (one namespace per node, so the
# broker-probe agent can partition one: `--fault-target n3=netns:PREFIX3/eth0`).

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# pid_of FILE: the number in a pid file, empty when there is none
pid_of() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }

# free_port PORT [HOST]: true when nothing listens on HOST (default 127.0.0.1):PORT
free_port() { ! (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null; }

# signal_stop PID...: SIGCONT (a fault may have left one paused) and SIGTERM (a clean shutdown) to each live one
signal_stop() {
    local pid
    for pid in "$@"; do
        if alive "$pid"; then
            kill -CONT "$pid" 2>/dev/null || true
            kill -TERM "$pid" 2>/dev/null || true
        fi
    done
}

# stop_nodes PIDFILE [PIDFILE...]: stops the cluster's nodes by PID, each node N of NODES in "$DIR/nodeN": the first
# pid file's process of every node gets signal_stop first (so they shut down side by side), then each node's
# processes of every pid file given (e.g. a wrapper script that ends with the node) are awaited (await_exit: SIGKILL
# after 60 s) and their pid files removed. Uses the sourcing script's DIR and NODES.
stop_nodes() {
    local n f
    for n in "${NODES[@]}"; do
        signal_stop "$(pid_of "$DIR/node$n/$1")"
    done
    for n in "${NODES[@]}"; do
        for f in "$@"; do
            await_exit "$(pid_of "$DIR/node$n/$f")"
            rm -f "$DIR/node$n/$f"
        done
    done
}

# await_exit PID: waits up to 60 s for the process to end, then SIGKILLs it
await_exit() {
    local w=0
    while alive "$1" && [ $w -lt 600 ]; do
        sleep 0.1
        w=$((w + 1))
    done
    if alive "$1"; then
        kill -KILL "$1" 2>/dev/null || true
    fi
}

# Network namespaces, one per node: namespace PREFIX<i> holds a veth `eth0` at SUBNET.<i>/24 whose other end
# (PREFIXh<i>) is on the bridge PREFIXbr, which has SUBNET.254 here in the root namespace, so the clients and the
# scripts' tools reach every node and the nodes reach one another, and taking one namespace's eth0 down cuts that
# node off from all of them. DIR/netns ("PREFIX SUBNET COUNT") records that a cluster runs in them; each system has
# its own PREFIX and SUBNET, so clusters of different systems coexist. Needs root and iproute2.

# netns_up DIR PREFIX SUBNET COUNT: makes the bridge and the namespaces 1..COUNT; false, with the reason on stderr and
# nothing made, without root or ip, or when the bridge exists already (a cluster of that system runs in them)
netns_up() {
    local dir=$1 prefix=$2 net=$3 count=$4 i
    command -v ip >/dev/null || { echo "$prefix: network namespaces need ip (iproute2)" >&2; return 1; }
    [ "$(id -u)" = 0 ] || { echo "$prefix: network namespaces need root (ip netns)" >&2; return 1; }
    if ip link show "${prefix}br" >/dev/null 2>&1; then
        echo "$prefix: the bridge ${prefix}br exists: a cluster in namespaces $prefix* runs already (stop it)" >&2
        return 1
    fi
    echo "$prefix $net $count" >"$dir/netns"
    ip link add "${prefix}br" type bridge
    ip addr add "$net.254/24" dev "${prefix}br"
    ip link set "${prefix}br" up
    for i in $(seq 1 "$count"); do
        ip netns add "$prefix$i"
        ip link add "${prefix}h$i" type veth peer name eth0 netns "$prefix$i"
        ip link set "${prefix}h$i" master "${prefix}br" up
        ip -n "$prefix$i" addr add "$net.$i/24" dev eth0
        ip -n "$prefix$i" link set eth0 up
        ip -n "$prefix$i" link set lo up
    done
}

# netns_down DIR: removes the namespaces (and with them their veth pairs) and the bridge DIR/netns names, and
# DIR/netns; nothing when the cluster runs on loopback
netns_down() {
    local prefix net count i
    [ -f "$1/netns" ] || return 0
    read -r prefix net count <"$1/netns"
    for i in $(seq 1 "$count"); do ip netns del "$prefix$i" 2>/dev/null || true; done
    ip link del "${prefix}br" 2>/dev/null || true
    rm -f "$1/netns"
}

# netns_host DIR N: node N's address: SUBNET.N in netns mode, else 127.0.0.1
netns_host() {
    local prefix net count
    if [ -f "$1/netns" ]; then
        read -r prefix net count <"$1/netns"
        echo "$net.$2"
    else
        echo 127.0.0.1
    fi
}

# netns_name DIR N: node N's namespace (PREFIX<N>), empty on loopback
netns_name() {
    local prefix net count
    if [ -f "$1/netns" ]; then
        read -r prefix net count <"$1/netns"
        echo "$prefix$2"
    fi
}

# netns_exec DIR N COMMAND...: execs COMMAND in node N's namespace in netns mode, else as it is (the same pid either
# way: `ip netns exec` execs it)
netns_exec() {
    local ns
    ns=$(netns_name "$1" "$2")
    shift 2
    if [ -n "$ns" ]; then exec ip netns exec "$ns" "$@"; fi
    exec "$@"
}

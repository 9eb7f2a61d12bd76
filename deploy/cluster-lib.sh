# Sourced by deploy/rabbitmq-cluster.sh and deploy/kafka-cluster.sh (not run on its own): process and port helpers
# for the private clusters of issue 32, which stop only the processes they started, by PID.

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# pid_of FILE: the number in a pid file, empty when there is none
pid_of() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }

# free_port PORT: true when nothing listens on 127.0.0.1:PORT
free_port() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

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

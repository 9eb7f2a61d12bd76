#!/usr/bin/env bash
# A private 3-node NATS cluster with JetStream on loopback (issue 32 item 2), for tests and benchmark scripts:
# three nats-server processes, each with its own client, cluster (route) and monitoring port and its own JetStream
# store, routed to one another. The shared nats-server on 4222 is never touched; the nodes are stopped by the pids
# this script wrote, never by name.
#
#   nats-cluster.sh start DIR [BASEPORT]   write DIR/nN.conf, start n1..n3, wait until the routes are up and
#                                          JetStream has a meta leader (at most 30 s), then print the cluster's
#                                          URIs; exit 1 (nodes stopped again) when it does not form
#   nats-cluster.sh status DIR             each node's pid, ports, routes and meta leader
#   nats-cluster.sh stop DIR               SIGTERM each node by its pid file, SIGKILL after 10 s (idempotent)
#   nats-cluster.sh restart DIR N          start node nN again after a kill, on its store and config; returns once it
#                                          serves clients and has its 2 routes (at most 30 s): a fault plan's restart
#
# Ports, for BASEPORT B (default 14222): node i (1..3) serves clients on B+i-1, routes on B+100+i-1 and
# monitoring (HTTP) on B+200+i-1, all on 127.0.0.1 — or, with NATS_CLUSTER_NETNS=1 at start (root and iproute2), each
# node in a network namespace of its own (msc-nats1..3) at 10.78.0.i on a veth whose other end is on the bridge
# msc-natsbr (10.78.0.254 here), so that one node can be cut off from the others and the clients (`--fault-target
# n3=netns:msc-nats3/eth0`, partition/heal) while they go on; stop removes the namespaces and the bridge. DIR gets nN.conf, nN.pid, nN.log, the stores under nN/, baseport and
# cluster.env (NATS_URLS=nats://127.0.0.1:B,…, NATS_NODE1_URL=…, NATS_NODE1_PIDFILE=…, NATS_NODE1_MONITOR=…).
# A node's pid file is what `msgscope run --fault-target n2=DIR/n2.pid` acts on.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/cluster-lib.sh"

die() { echo "nats-cluster: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: nats-cluster.sh start|status|stop DIR [BASEPORT] | restart DIR N"
cmd="$1"
dir="$2"
node="${3:-}"
[ "$cmd" != restart ] && [ "$cmd" != run-node ] || set -- "$1" "$2" # their third argument is the node, not a BASEPORT
base="${3:-$(cat "$dir/baseport" 2>/dev/null || echo 14222)}" # status/stop/restart: the one start was given
[[ "$base" =~ ^[0-9]+$ ]] && [ "$base" -ge 1024 ] && [ "$base" -le 65000 ] || die "BASEPORT must be 1024..65000, got '$base'"
nodes=(n1 n2 n3)

port() { echo $((base + $2 * 100 + $1 - 1)); } # node index, kind (0 client, 1 route, 2 monitor)

NS=msc-nats # each node's namespace msc-nats1..3 in netns mode, 10.78.0.1..3 on the bridge msc-natsbr
netns_mode() { [ -f "$dir/netns" ]; } # start was given NATS_CLUSTER_NETNS=1
host() { netns_host "$dir" "$1"; } # node index

run_node() { netns_exec "$dir" "$1" nats-server -c "$dir/n$1.conf"; } # node index: in its namespace in netns mode

node_pid() { [ -f "$dir/$1.pid" ] && tr -dc '0-9' < "$dir/$1.pid" || true; }

# a node's process exists and is not a zombie (a killed node whose parent has not reaped it yet is gone)
node_alive() { local p; p="$(node_pid "$1")"; [ -n "$p" ] && kill -0 "$p" 2>/dev/null && [[ "$(ps -o stat= -p "$p")" != Z* ]]; }

jsz_leader() { curl -s --max-time 2 "http://$(host "$1"):$(port "$1" 2)/jsz" 2>/dev/null \
  | tr -d '\n ' | grep -o '"meta_cluster":{[^}]*"leader":"[^"]*"' | sed 's/.*"leader":"//;s/"$//' || true; }

routes() { curl -s --max-time 2 "http://$(host "$1"):$(port "$1" 2)/routez" 2>/dev/null \
  | tr -d '\n ' | grep -o '"num_routes":[0-9]*' | cut -d: -f2 || true; }

stop() {
  local n p
  for n in "${nodes[@]}"; do
    p="$(node_pid "$n")"
    [ -n "$p" ] && kill -CONT "$p" 2>/dev/null || true # a node left paused by a fault cannot act on SIGTERM
    [ -n "$p" ] && kill -TERM "$p" 2>/dev/null || true
  done
  for n in "${nodes[@]}"; do
    p="$(node_pid "$n")"
    [ -n "$p" ] || continue
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    rm -f "$dir/$n.pid"
  done
  netns_down "$dir"
}

write_conf() { # node index
  local i="$1" n="n$1" routes="" j
  for j in 1 2 3; do [ "$j" = "$i" ] || routes="$routes
    \"nats-route://$(host "$j"):$(port "$j" 1)\""; done
  cat > "$dir/$n.conf" <<EOF
server_name: $n
listen: $(host "$i"):$(port "$i" 0)
http: $(host "$i"):$(port "$i" 2)
pid_file: "$dir/$n.pid"
jetstream { store_dir: "$dir/$n/js" }
cluster {
  name: msgscope
  listen: $(host "$i"):$(port "$i" 1)
  routes: [$routes
  ]
}
EOF
}

start() {
  command -v nats-server >/dev/null || die "nats-server not found on PATH (Debian package nats-server)"
  command -v curl >/dev/null || die "curl not found (used to ask the nodes' monitoring ports)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  local i n p started=()
  for n in "${nodes[@]}"; do node_alive "$n" && die "$n runs already (pid $(node_pid "$n")): stop $dir first"; done
  rm -f "$dir/netns"
  if [ "${NATS_CLUSTER_NETNS:-}" = 1 ]; then netns_up "$dir" "$NS" 10.78.0 3 || exit 2; fi
  for i in 1 2 3; do
    for k in 0 1 2; do
      p="$(port "$i" "$k")"
      (exec 3<>"/dev/tcp/$(host "$i")/$p") 2>/dev/null && die "port $p on $(host "$i") is taken: give another BASEPORT"
    done
  done
  echo "$base" > "$dir/baseport"
  for i in 1 2 3; do
    n="n$i"
    mkdir -p "$dir/$n/js"
    rm -f "$dir/$n.pid"
    write_conf "$i"
    (run_node "$i") >> "$dir/$n.log" 2>&1 &
    started+=($!)
  done
  local deadline=$((SECONDS + 30)) formed leader
  while [ "$SECONDS" -lt "$deadline" ]; do
    for p in "${started[@]}"; do
      kill -0 "$p" 2>/dev/null && continue
      echo "nats-cluster: a node exited at start (logs in $dir/n*.log): $(tail -n 1 "$dir"/n*.log | grep -v '^$' | tail -n 1)" >&2
      for p in "${started[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
      rm -f "$dir"/n?.pid
      netns_down "$dir"
      exit 1
    done
    formed=1
    leader=""
    for i in 1 2 3; do
      [ "$(routes "$i")" = 2 ] || formed=0
      leader="$(jsz_leader "$i")"
      [ -n "$leader" ] || formed=0
    done
    if [ "$formed" = 1 ] && [ -n "$(node_pid n1)" ] && [ -n "$(node_pid n2)" ] && [ -n "$(node_pid n3)" ]; then
      {
        echo "NATS_URLS=nats://$(host 1):$(port 1 0),nats://$(host 2):$(port 2 0),nats://$(host 3):$(port 3 0)"
        for i in 1 2 3; do
          echo "NATS_NODE${i}_URL=nats://$(host "$i"):$(port "$i" 0)"
          echo "NATS_NODE${i}_PIDFILE=$dir/n$i.pid"
          echo "NATS_NODE${i}_MONITOR=http://$(host "$i"):$(port "$i" 2)"
          if netns_mode; then echo "NATS_NODE${i}_NETNS=$NS$i/eth0"; fi
        done
      } > "$dir/cluster.env"
      echo "nats cluster up in $dir: n1 nats://$(host 1):$(port 1 0), n2 nats://$(host 2):$(port 2 0), n3 nats://$(host 3):$(port 3 0); JetStream meta leader $leader$(netns_mode && echo ", each node in its namespace $NS{1,2,3}")"
      return 0
    fi
    sleep 0.1
  done
  echo "nats-cluster: the cluster did not form within 30 s (logs in $dir/n*.log); stopping it" >&2
  stop
  exit 1
}

restart() { # node index
  local i="$1" n="n$1" t0=$SECONDS
  [[ "$i" =~ ^[123]$ ]] || die "restart takes a node number 1-3, got '$i'"
  [ -f "$dir/$n.conf" ] || die "no node $n in $dir (start the cluster first)"
  node_alive "$n" && die "$n still runs (pid $(node_pid "$n")): kill or stop it first"
  rm -f "$dir/$n.pid"
  # a session of its own: the broker-probe agent that runs this as a fault's restart may end before the node
  (exec setsid "$0" run-node "$dir" "$i" </dev/null >> "$dir/$n.log" 2>&1) &
  local p=$! deadline=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$deadline" ]; do
    kill -0 "$p" 2>/dev/null || { echo "nats-cluster: $n exited at restart: $(tail -n 1 "$dir/$n.log")" >&2; exit 1; }
    if [ "$(routes "$i")" = 2 ] && [ -n "$(node_pid "$n")" ]; then
      echo "nats-cluster: $n running again in $((SECONDS - t0)) s, pid $(node_pid "$n")"
      return 0
    fi
    sleep 0.1
  done
  echo "nats-cluster: $n did not get its routes back within 30 s (log $dir/$n.log)" >&2
  exit 1
}

status() {
  local i n
  for i in 1 2 3; do
    n="n$i"
    if node_alive "$n"; then
      echo "$n pid $(node_pid "$n") client $(port "$i" 0) route $(port "$i" 1) monitor $(port "$i" 2) routes $(routes "$i") meta leader $(jsz_leader "$i")"
    else
      echo "$n not running"
    fi
  done
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  restart) restart "$node" ;;
  run-node) run_node "$node" ;; # restart's own use: the node's server, in its namespace if any
  *) die "unknown command '$cmd': start, status, stop or restart" ;;
esac

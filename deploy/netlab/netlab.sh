#!/usr/bin/env bash
# msgscope network lab: a dedicated test network on one machine (D7, M11), built from network
# namespaces so that traffic crosses a real (virtual) link instead of loopback:
#
#   msc-client  (sender + receiver)  10.77.0.1/24  --veth-->  10.77.0.2/24  (relay/broker + probe)  msc-broker
#   msc-client2 (a second load box)  10.77.1.1/24  --veth-->  10.77.1.2/24  (the same broker namespace)
#   msc-client3 (a third box)        10.77.2.1/24  --veth-->  10.77.2.2/24  (the same broker namespace)
#
# The broker namespace forwards between the client links, so the clients reach each other (and
# a coordinator in msc-client reaches agents in msc-client2 and msc-client3) through it, as through a router:
# publishers on two boxes, subscribers on a third and the broker on a fourth (issue 33 item 4).
#
# The link's rate is shaped with tc tbf on both veth ends (netem is missing from these kernels;
# delay and loss are injected in user space by the relay instead). Addresses live only inside the
# two namespaces this script creates.
#
#   netlab.sh up [loopback|1g|100m|unlimited]   create (idempotent) and apply a profile
#   netlab.sh profile 1g|100m|unlimited         change the profile of an existing lab
#   netlab.sh link client|client2|client3 TO_BROKER FROM_BROKER
#                                               shape one link each way on its own (asymmetric: e.g.
#                                               100mbit 2mbit; unlimited lifts one direction's shaping)
#   netlab.sh status                            show namespaces, addresses and qdiscs
#   netlab.sh down                              remove everything (idempotent)
#   netlab.sh exec client|client2|client3|broker CMD ...  run a command inside a namespace
#
# The profile "loopback" creates nothing (runs use 127.0.0.1). Needs root and iproute2.
set -euo pipefail

CLIENT_NS=msc-client
BROKER_NS=msc-broker
CLIENT_IF=msc-c0
BROKER_IF=msc-b0
CLIENT_IP=10.77.0.1
BROKER_IP=10.77.0.2
CLIENT2_NS=msc-client2
CLIENT2_IF=msc-c1
BROKER2_IF=msc-b1
CLIENT2_IP=10.77.1.1
BROKER2_IP=10.77.1.2
CLIENT3_NS=msc-client3
CLIENT3_IF=msc-c2
BROKER3_IF=msc-b2
CLIENT3_IP=10.77.2.1
BROKER3_IP=10.77.2.2
PREFIX=24

die() { echo "netlab: $*" >&2; exit 2; }

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (ip netns and tc)"
  command -v ip >/dev/null || die "ip (iproute2) not found"
  command -v tc >/dev/null || die "tc (iproute2) not found"
}

exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }

# join_client NS IF PEER_IF IP BROKER_SIDE_IP: a client namespace and its veth to the broker namespace
join_client() {
  local ns="$1" dev="$2" peer="$3" ip="$4" bip="$5"
  exists "$ns" || ip netns add "$ns"
  if ! ip -n "$ns" link show "$dev" >/dev/null 2>&1; then
    ip link add "$dev" type veth peer name "$peer"
    ip link set "$dev" netns "$ns"
    ip link set "$peer" netns "$BROKER_NS"
  fi
  ip -n "$ns" addr replace "$ip/$PREFIX" dev "$dev"
  ip -n "$BROKER_NS" addr replace "$bip/$PREFIX" dev "$peer"
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "$dev" up
  ip -n "$BROKER_NS" link set "$peer" up
  # every other client network through the broker namespace, as through a router
  local net
  for net in 10.77.0.0 10.77.1.0 10.77.2.0; do
    if [ "${ip%.*}.0" != "$net" ]; then ip -n "$ns" route replace "$net/$PREFIX" via "$bip"; fi
  done
}

create() {
  exists "$BROKER_NS" || ip netns add "$BROKER_NS"
  ip -n "$BROKER_NS" link set lo up
  join_client "$CLIENT_NS" "$CLIENT_IF" "$BROKER_IF" "$CLIENT_IP" "$BROKER_IP"
  join_client "$CLIENT2_NS" "$CLIENT2_IF" "$BROKER2_IF" "$CLIENT2_IP" "$BROKER2_IP"
  join_client "$CLIENT3_NS" "$CLIENT3_IF" "$BROKER3_IF" "$CLIENT3_IP" "$BROKER3_IP"
  ip netns exec "$BROKER_NS" sysctl -qw net.ipv4.ip_forward=1
}

# shape_dev NS DEV RATE: tc tbf on one veth end (its egress: one direction of the link), or none
shape_dev() {
  local ns="$1" dev="$2" rate="$3"
  tc -n "$ns" qdisc del dev "$dev" root >/dev/null 2>&1 || true
  if [ "$rate" != unlimited ]; then
    # burst: at least rate/HZ; latency bounds the queue (bufferbloat) at 50 ms
    local burst
    case "$rate" in
      1gbit) burst=256kb ;;
      *) burst=64kb ;;
    esac
    tc -n "$ns" qdisc add dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms
  fi
}

shape() {
  local pair
  for pair in "$CLIENT_NS:$CLIENT_IF" "$BROKER_NS:$BROKER_IF" "$CLIENT2_NS:$CLIENT2_IF" "$BROKER_NS:$BROKER2_IF" \
              "$CLIENT3_NS:$CLIENT3_IF" "$BROKER_NS:$BROKER3_IF"; do
    shape_dev "${pair%%:*}" "${pair##*:}" "$1"
  done
}

rate_ok() {
  [[ "$1" == unlimited || "$1" =~ ^[0-9]+(kbit|mbit|gbit)$ ]] || die "'$1' is not a rate such as 2mbit, 100mbit or unlimited"
}

profile() {
  case "$1" in
    1g) shape 1gbit ;;
    100m) shape 100mbit ;;
    unlimited) shape unlimited ;;
    *) die "unknown profile '$1' (loopback, 1g, 100m, unlimited)" ;;
  esac
}

case "${1:-}" in
  up)
    p="${2:-unlimited}"
    if [ "$p" = loopback ]; then echo "netlab: profile loopback: nothing to create, use 127.0.0.1"; exit 0; fi
    need_root; create; profile "$p"
    echo "netlab: up, profile $p: client $CLIENT_NS $CLIENT_IP, client2 $CLIENT2_NS $CLIENT2_IP, client3 $CLIENT3_NS $CLIENT3_IP, broker $BROKER_NS $BROKER_IP, $BROKER2_IP and $BROKER3_IP"
    ;;
  profile)
    need_root; exists "$CLIENT_NS" || die "no lab: run 'netlab.sh up' first"; profile "${2:?profile}"
    echo "netlab: profile ${2}"
    ;;
  link)
    need_root; exists "$CLIENT_NS" || die "no lab: run 'netlab.sh up' first"
    case "${2:-}" in
      client) pair="$CLIENT_NS:$CLIENT_IF:$BROKER_IF" ;;
      client2) pair="$CLIENT2_NS:$CLIENT2_IF:$BROKER2_IF" ;;
      client3) pair="$CLIENT3_NS:$CLIENT3_IF:$BROKER3_IF" ;;
      *) die "link client|client2|client3 TO_BROKER FROM_BROKER" ;;
    esac
    to="${3:?link: the rate toward the broker}"; from="${4:?link: the rate from the broker}"
    rate_ok "$to"; rate_ok "$from"
    IFS=: read -r ns dev peer <<< "$pair"
    shape_dev "$ns" "$dev" "$to"
    shape_dev "$BROKER_NS" "$peer" "$from"
    echo "netlab: ${2} link: $to toward the broker, $from from it"
    ;;
  status)
    for ns in "$CLIENT_NS" "$BROKER_NS" "$CLIENT2_NS" "$CLIENT3_NS"; do
      if exists "$ns"; then
        echo "== $ns"; ip -n "$ns" -brief addr; tc -n "$ns" qdisc show
      else
        echo "== $ns: absent"
      fi
    done
    ;;
  down)
    need_root
    for ns in "$CLIENT_NS" "$BROKER_NS" "$CLIENT2_NS" "$CLIENT3_NS"; do
      if exists "$ns"; then ip netns del "$ns"; fi
    done
    echo "netlab: down"
    ;;
  exec)
    need_root
    case "${2:-}" in
      client) ns="$CLIENT_NS" ;;
      client2) ns="$CLIENT2_NS" ;;
      client3) ns="$CLIENT3_NS" ;;
      broker) ns="$BROKER_NS" ;;
      *) die "exec client|client2|client3|broker CMD ..." ;;
    esac
    shift 2
    exec ip netns exec "$ns" "$@"
    ;;
  *)
    sed -n '2,25p' "$0"; exit 2 ;;
esac

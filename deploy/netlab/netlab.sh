#!/usr/bin/env bash
# msgscope network lab: a dedicated test network on one machine (D7, M11), built from network
# namespaces so that traffic crosses a real (virtual) link instead of loopback:
#
#   msc-client  (sender + receiver)  10.77.0.1/24  --veth-->  10.77.0.2/24  (relay/broker + probe)  msc-broker
#   msc-client2 (a second load box)  10.77.1.1/24  --veth-->  10.77.1.2/24  (the same broker namespace)
#
# The broker namespace forwards between the two client links, so the clients reach each other (and
# a coordinator in msc-client reaches agents in msc-client2) through it, as through a router.
#
# The link's rate is shaped with tc tbf on both veth ends (netem is missing from these kernels;
# delay and loss are injected in user space by the relay instead). Addresses live only inside the
# two namespaces this script creates.
#
#   netlab.sh up [loopback|1g|100m|unlimited]   create (idempotent) and apply a profile
#   netlab.sh profile 1g|100m|unlimited         change the profile of an existing lab
#   netlab.sh status                            show namespaces, addresses and qdiscs
#   netlab.sh down                              remove everything (idempotent)
#   netlab.sh exec client|client2|broker CMD ...  run a command inside a namespace
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
PREFIX=24

die() { echo "netlab: $*" >&2; exit 2; }

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (ip netns and tc)"
  command -v ip >/dev/null || die "ip (iproute2) not found"
  command -v tc >/dev/null || die "tc (iproute2) not found"
}

exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }

create() {
  exists "$CLIENT_NS" || ip netns add "$CLIENT_NS"
  exists "$BROKER_NS" || ip netns add "$BROKER_NS"
  if ! ip -n "$CLIENT_NS" link show "$CLIENT_IF" >/dev/null 2>&1; then
    ip link add "$CLIENT_IF" type veth peer name "$BROKER_IF"
    ip link set "$CLIENT_IF" netns "$CLIENT_NS"
    ip link set "$BROKER_IF" netns "$BROKER_NS"
  fi
  ip -n "$CLIENT_NS" addr replace "$CLIENT_IP/$PREFIX" dev "$CLIENT_IF"
  ip -n "$BROKER_NS" addr replace "$BROKER_IP/$PREFIX" dev "$BROKER_IF"
  exists "$CLIENT2_NS" || ip netns add "$CLIENT2_NS"
  if ! ip -n "$CLIENT2_NS" link show "$CLIENT2_IF" >/dev/null 2>&1; then
    ip link add "$CLIENT2_IF" type veth peer name "$BROKER2_IF"
    ip link set "$CLIENT2_IF" netns "$CLIENT2_NS"
    ip link set "$BROKER2_IF" netns "$BROKER_NS"
  fi
  ip -n "$CLIENT2_NS" addr replace "$CLIENT2_IP/$PREFIX" dev "$CLIENT2_IF"
  ip -n "$BROKER_NS" addr replace "$BROKER2_IP/$PREFIX" dev "$BROKER2_IF"
  for ns in "$CLIENT_NS" "$BROKER_NS" "$CLIENT2_NS"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$CLIENT_NS" link set "$CLIENT_IF" up
  ip -n "$BROKER_NS" link set "$BROKER_IF" up
  ip -n "$CLIENT2_NS" link set "$CLIENT2_IF" up
  ip -n "$BROKER_NS" link set "$BROKER2_IF" up
  # the broker namespace routes between the two client links
  ip netns exec "$BROKER_NS" sysctl -qw net.ipv4.ip_forward=1
  ip -n "$CLIENT_NS" route replace 10.77.1.0/$PREFIX via "$BROKER_IP"
  ip -n "$CLIENT2_NS" route replace 10.77.0.0/$PREFIX via "$BROKER2_IP"
}

shape() {
  local rate="$1"
  for pair in "$CLIENT_NS:$CLIENT_IF" "$BROKER_NS:$BROKER_IF" "$CLIENT2_NS:$CLIENT2_IF" "$BROKER_NS:$BROKER2_IF"; do
    local ns="${pair%%:*}" dev="${pair##*:}"
    tc -n "$ns" qdisc del dev "$dev" root >/dev/null 2>&1 || true
    if [ "$rate" != unlimited ]; then
      # burst: at least rate/HZ; latency bounds the queue (bufferbloat) at 50 ms
      local burst
      case "$rate" in
        1gbit) burst=256kb ;;
        100mbit) burst=64kb ;;
        *) burst=64kb ;;
      esac
      tc -n "$ns" qdisc add dev "$dev" root tbf rate "$rate" burst "$burst" latency 50ms
    fi
  done
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
    echo "netlab: up, profile $p: client $CLIENT_NS $CLIENT_IP, client2 $CLIENT2_NS $CLIENT2_IP, broker $BROKER_NS $BROKER_IP and $BROKER2_IP"
    ;;
  profile)
    need_root; exists "$CLIENT_NS" || die "no lab: run 'netlab.sh up' first"; profile "${2:?profile}"
    echo "netlab: profile ${2}"
    ;;
  status)
    for ns in "$CLIENT_NS" "$BROKER_NS" "$CLIENT2_NS"; do
      if exists "$ns"; then
        echo "== $ns"; ip -n "$ns" -brief addr; tc -n "$ns" qdisc show
      else
        echo "== $ns: absent"
      fi
    done
    ;;
  down)
    need_root
    for ns in "$CLIENT_NS" "$BROKER_NS" "$CLIENT2_NS"; do
      if exists "$ns"; then ip netns del "$ns"; fi
    done
    echo "netlab: down"
    ;;
  exec)
    need_root
    case "${2:-}" in
      client) ns="$CLIENT_NS" ;;
      client2) ns="$CLIENT2_NS" ;;
      broker) ns="$BROKER_NS" ;;
      *) die "exec client|client2|broker CMD ..." ;;
    esac
    shift 2
    exec ip netns exec "$ns" "$@"
    ;;
  *)
    sed -n '2,20p' "$0"; exit 2 ;;
esac

#!/usr/bin/env bash
# Issue 35 item 6: what TLS on the data path costs, the same workload plain and with TLS, side by side. For each
# system the script starts private brokers of its own (never the shared ones) with certificates from `msgscope certs`
# (a private CA, a key and certificate for 127.0.0.1/localhost):
#   nats  two nats-server processes: plain, and TLS required (tls://, --opt tls_ca; the netty engine);
#   mqtt  one mosquitto with two listeners: plain, and TLS (mqtts://, --opt tls_ca; QoS QOS), so both runs measure
#         the same broker process;
#   amqp  one private RabbitMQ node (deploy/rabbitmq-cluster.sh, RABBITMQ_CLUSTER_TLS_DIR) with an AMQP and an AMQPS
#         listener (amqps://, --opt tls_ca; a classic queue, CONFIRM publisher confirms in flight), one broker process
#         for both; its boot takes about a minute;
#   redis one redis-server with a plain and a TLS port (rediss://, --opt tls_ca; Redis Streams);
#   stomp, amqp10, rabbitmq-stream  the same RabbitMQ node as amqp (one node for all four, started once with the
#         rabbitmq_stomp, rabbitmq_stream and rabbitmq_amqp1_0 plugins when any of these is asked for): STOMP plain and
#         over TLS (stomps://), AMQP 1.0 on the AMQP and AMQPS listeners (amqps://; unsettled, max_inflight 1000),
#         streams plain and over TLS (rabbitmq-stream+tls://); each --opt tls_ca.
#   kafka the driver's in-process KRaft broker (EmbeddedKafka, its own JVM) with a PLAINTEXT and an SSL listener
#         (kafka+ssl://, --opt tls_ca; a PEM key store; linger_ms=0);
#   artemis one private Artemis (deploy/artemis.sh) with its CORE and CORE over TLS acceptors (ssl://, --opt tls_ca
#         its own CA, DIR/tls/ca.pem; confirm=none: blocking sends held one publisher below 10,000 msg/s here); its
#         start takes 10-40 s.
# ROUNDS rounds alternate plain and TLS per system; each run is `msgscope run` at RATE msg/s for COUNT messages of
# SIZE bytes with --broker-pid, so summary.json holds the CPU per message of the sending and receiving threads, their
# processes and the broker. Reports per run the received rate, latency p50/p99 and those CPU figures, with the load
# average before and after; then per system the medians over the rounds and the TLS/plain ratios.
#
#   benchmarks/scripts/tls-cost.sh [OUT]           (default results/tls-cost)
#   ROUNDS=3 RATE=20000 COUNT=200000 SIZE=64 WARMUP=20000 QOS=0 CONFIRM=100 SYSTEMS="nats mqtt amqp redis kafka artemis"
#   (also: stomp amqp10 rabbitmq-stream)
# Needs nats-server, mosquitto, rabbitmq-server and redis-server (the shared brokers are never used); kafka and
# artemis come through Maven. Writes OUT/summary.tsv (one row per run), OUT/ratios.tsv and each run's folder.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out="$(mkdir -p "${1:-$root/results/tls-cost}" && cd "${1:-$root/results/tls-cost}" && pwd)"
rounds="${ROUNDS:-3}"
rate="${RATE:-20000}"
count="${COUNT:-200000}"
size="${SIZE:-64}"
warmup="${WARMUP:-20000}"
qos="${QOS:-0}"
confirm="${CONFIRM:-100}"
systems="${SYSTEMS:-nats mqtt amqp redis kafka artemis}"
if missing "$jar"; then package -pl dist -am; fi

pids=()
rabbit=""
artemis=""
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$rabbit" ]; then "$root/deploy/rabbitmq-cluster.sh" stop "$rabbit" > /dev/null 2>&1 || true; fi
  if [ -n "$artemis" ]; then "$root/deploy/artemis.sh" stop "$artemis" > /dev/null 2>&1 || true; fi
  stop_embedded_kafka
}
trap cleanup EXIT

rm -rf "$out/ca"
java -jar "$jar" certs init "$out/ca" > /dev/null
java -jar "$jar" certs issue --ca "$out/ca" --host 127.0.0.1 --host localhost > /dev/null
certs="$out/ca/127.0.0.1"

# free_port: a free loopback port.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# listening PORT: waits until something accepts on 127.0.0.1:PORT (10 s at most).
listening() {
  for _ in $(seq 100); do
    (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "tls-cost: nothing listens on 127.0.0.1:$1" >&2
  exit 1
}

# rabbit_node: the one private RabbitMQ node of amqp, stomp, amqp10 and rabbitmq-stream, started on first use at
# BASE b (AMQP b, stream b+100, AMQPS b+300, STOMP b+400, stream over TLS b+500, STOMP over TLS b+600).
b=5750 # its Erlang distribution port BASE+20000 stays below the ephemeral range (32768 up)
rabbit_node() {
  if [ -n "$rabbit" ]; then return 0; fi
  rabbit="$out/rabbitmq"
  rm -rf "$rabbit"
  local plugins=""
  case " $systems " in *" stomp "*|*" amqp10 "*|*" rabbitmq-stream "*)
    plugins="rabbitmq_stomp rabbitmq_stream rabbitmq_amqp1_0" ;;
  esac
  RABBITMQ_CLUSTER_NODES=1 RABBITMQ_CLUSTER_PLUGINS="$plugins" RABBITMQ_CLUSTER_TLS_DIR="$certs" \
    "$root/deploy/rabbitmq-cluster.sh" start "$rabbit" "$b" > "$out/rabbitmq.log" 2>&1
  rabbit_pid="$(cat "$rabbit/node1/rabbitmq.pid")"
}

# rabbit_system SYS PLAIN_URI TLS_URI: SYS plain and over TLS (--opt tls_ca) on the private RabbitMQ node
rabbit_system() {
  rabbit_node
  pid[$1-plain]="$rabbit_pid"; pid[$1-tls]="$rabbit_pid"
  uri[$1-plain]="$2"; uri[$1-tls]="$3"
  opts[$1-plain]=""; opts[$1-tls]="--opt tls_ca=$certs/ca.pem"
}

declare -A uri pid opts
for sys in $systems; do
  case "$sys" in
    nats)
      p="$(free_port)"
      nats-server -a 127.0.0.1 -p "$p" > "$out/nats-plain.log" 2>&1 &
      pids+=("$!"); pid[nats-plain]="$!"; uri[nats-plain]="nats://127.0.0.1:$p"; listening "$p"
      t="$(free_port)"
      nats-server -a 127.0.0.1 -p "$t" --tls --tlscert "$certs/cert.pem" --tlskey "$certs/key.pem" \
        > "$out/nats-tls.log" 2>&1 &
      pids+=("$!"); pid[nats-tls]="$!"; uri[nats-tls]="tls://127.0.0.1:$t"; listening "$t"
      opts[nats-plain]="--opt engine=netty"
      opts[nats-tls]="--opt engine=netty --opt tls_ca=$certs/ca.pem"
      ;;
    mqtt)
      p="$(free_port)"
      t="$(free_port)"
      # mosquitto started as root runs as its own user: a copy of the test's key and certificates it can read
      m="$out/mosquitto-tls"
      mkdir -p "$m" && chmod 755 "$m" && install -m 644 "$certs/ca.pem" "$certs/cert.pem" "$certs/key.pem" "$m/"
      cat > "$out/mosquitto.conf" <<EOF
allow_anonymous true
listener $p 127.0.0.1
listener $t 127.0.0.1
cafile $m/ca.pem
certfile $m/cert.pem
keyfile $m/key.pem
EOF
      mosquitto -c "$out/mosquitto.conf" > "$out/mosquitto.log" 2>&1 &
      pids+=("$!"); pid[mqtt-plain]="$!"; pid[mqtt-tls]="$!"
      uri[mqtt-plain]="tcp://127.0.0.1:$p"; uri[mqtt-tls]="mqtts://127.0.0.1:$t"
      listening "$p"; listening "$t"
      opts[mqtt-plain]="--opt qos=$qos"
      opts[mqtt-tls]="--opt qos=$qos --opt tls_ca=$certs/ca.pem"
      ;;
    amqp)
      rabbit_node
      pid[amqp-plain]="$rabbit_pid"; pid[amqp-tls]="$rabbit_pid"
      uri[amqp-plain]="amqp://guest:guest@127.0.0.1:$b/%2f"; uri[amqp-tls]="amqps://guest:guest@127.0.0.1:$((b + 300))/%2f"
      opts[amqp-plain]="--opt confirm=$confirm"
      opts[amqp-tls]="--opt confirm=$confirm --opt tls_ca=$certs/ca.pem"
      ;;
    redis)
      p="$(free_port)"
      t="$(free_port)"
      redis-server --port "$p" --tls-port "$t" --bind 127.0.0.1 --tls-cert-file "$certs/cert.pem" \
        --tls-key-file "$certs/key.pem" --tls-ca-cert-file "$certs/ca.pem" --tls-auth-clients no --save "" \
        --appendonly no --dir "$out" > "$out/redis.log" 2>&1 &
      pids+=("$!"); pid[redis-plain]="$!"; pid[redis-tls]="$!"
      uri[redis-plain]="redis://127.0.0.1:$p"; uri[redis-tls]="rediss://127.0.0.1:$t"
      listening "$p"; listening "$t"
      opts[redis-plain]=""
      opts[redis-tls]="--opt tls_ca=$certs/ca.pem"
      ;;
    stomp) rabbit_system stomp "stomp://127.0.0.1:$((b + 400))" "stomps://127.0.0.1:$((b + 600))" ;;
    amqp10)
      rabbit_system amqp10 "amqp://guest:guest@127.0.0.1:$b" "amqps://guest:guest@127.0.0.1:$((b + 300))" ;;
    rabbitmq-stream)
      rabbit_system rabbitmq-stream "rabbitmq-stream://guest:guest@127.0.0.1:$((b + 100))/%2f" \
        "rabbitmq-stream+tls://guest:guest@127.0.0.1:$((b + 500))/%2f" ;;
    kafka)
      k="$out/kafka-certs"
      mkdir -p "$k" && cp "$certs/cert.pem" "$k/server.pem" && cp "$certs/key.pem" "$k/server.key"
      t="$(free_port)"
      embedded_kafka "$out" "$t" "$k"
      pid[kafka-plain]="$kafka_pid"; pid[kafka-tls]="$kafka_pid"
      uri[kafka-plain]="$kafka_uri"; uri[kafka-tls]="kafka+ssl://127.0.0.1:$t"
      opts[kafka-plain]="--opt linger_ms=0"
      opts[kafka-tls]="--opt linger_ms=0 --opt tls_ca=$certs/ca.pem"
      ;;
    artemis)
      artemis="$out/artemis"
      b=18616
      "$root/deploy/artemis.sh" start "$artemis" "$b" > "$out/artemis.log" 2>&1
      pid[artemis-plain]="$(cat "$artemis/artemis.pid")"; pid[artemis-tls]="${pid[artemis-plain]}"
      uri[artemis-plain]="tcp://msgscope:msgscope@127.0.0.1:$b"; uri[artemis-tls]="ssl://msgscope:msgscope@127.0.0.1:$((b + 4))"
      # confirm=block waits a round trip per send, which held one publisher below 10,000 msg/s here
      opts[artemis-plain]="--opt confirm=none"
      opts[artemis-tls]="--opt confirm=none --opt tls_ca=$artemis/tls/ca.pem"
      ;;
    *) echo "tls-cost: unknown system '$sys' (nats, mqtt, amqp, redis, stomp, amqp10, rabbitmq-stream, kafka, artemis)" >&2; exit 2 ;;
  esac
done

printf 'round\tsystem\tmode\texit\tload1_before\tload1_after\treceive_rate\tp50_us\tp99_us\tsender_work_ns\treceiver_thread_ns\tsender_process_ns\treceiver_process_ns\tbroker_ns\n' \
  > "$out/summary.tsv"
for ((r = 0; r < rounds; r++)); do
  for sys in $systems; do
    for mode in plain tls; do
      k="$sys-$mode"
      d="$out/$k-$r"
      rm -rf "$d"
      read -ra extra <<< "${opts[$k]}"
      before="$(load1)"
      rc=0
      java -jar "$jar" run --driver "$sys" --uri "${uri[$k]}" "${extra[@]}" --rate "$rate" --count "$count" \
        --size "$size" --warmup "$warmup" --broker-pid "${pid[$k]}" --out "$d" > "$d.log" 2>&1 || rc=$?
      after="$(load1)"
      python3 - "$d/summary.json" "$r" "$sys" "$mode" "$rc" "$before" "$after" >> "$out/summary.tsv" <<'EOF'
import json, sys
path, *head = sys.argv[1:]
try:
    s = json.load(open(path))
except OSError:
    print("\t".join(head + ["NaN"] * 8))
    sys.exit(0)
def f(v):
    return "NaN" if v is None else "%.1f" % v
def tw(side, key="cpu_ns_per_message", process=False):
    c = (s.get("cpu") or {}).get(side) or {}
    if process:
        c = c.get("process") or {}
    return (c.get("time_weighted") or {}).get(key)
lat = s.get("latency") or {}
thr = s.get("throughput") or {}
print("\t".join(head + [f(thr.get("receive_msg_s")), f(lat.get("latency_p50_us")), f(lat.get("latency_p99_us")),
                        f(tw("sender", "work_ns_per_message")), f(tw("receiver")), f(tw("sender", process=True)),
                        f(tw("receiver", process=True)), f(tw("broker"))]))
EOF
      tail -1 "$out/summary.tsv"
    done
  done
done
python3 - "$out/summary.tsv" > "$out/ratios.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
cols = ["receive_rate", "p50_us", "p99_us", "sender_work_ns", "receiver_thread_ns", "sender_process_ns",
        "receiver_process_ns", "broker_ns"]
def med(sys_, mode, c):
    v = [float(r[c]) for r in rows if r["system"] == sys_ and r["mode"] == mode and r[c] != "NaN"]
    return statistics.median(v) if v else None
print("\t".join(["system", "figure", "plain_median", "tls_median", "tls_over_plain"]))
for sys_ in dict.fromkeys(r["system"] for r in rows):
    for c in cols:
        p, t = med(sys_, "plain", c), med(sys_, "tls", c)
        ratio = "NaN" if p in (None, 0) or t is None else "%.2f" % (t / p)
        print("\t".join([sys_, c, "NaN" if p is None else "%.1f" % p, "NaN" if t is None else "%.1f" % t, ratio]))
EOF
cat "$out/ratios.tsv"

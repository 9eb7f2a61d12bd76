#!/usr/bin/env bash
# A private ActiveMQ Artemis broker (issue 35 item 4) on ports of its own, to run msgscope's artemis (core), amqp10,
# mqtt and stomp drivers against it beside RabbitMQ and Mosquitto. The distribution (apache-artemis bin tar.gz) comes
# from Maven Central through the Maven wrapper into the local repository; `artemis create` makes an instance in DIR.
#
#   deploy/artemis.sh start DIR [PORT_BASE]   create (once) and start the broker, wait until its 5 ports accept
#   deploy/artemis.sh stop  DIR               stop the broker by its PID (DIR/artemis.pid)
#   deploy/artemis.sh status DIR              exit 0 when the broker runs, printing its ports
#
# PORT_BASE (default 16616): CORE on PORT_BASE, AMQP 1.0 on PORT_BASE+1, MQTT on PORT_BASE+2, STOMP on PORT_BASE+3,
# CORE over TLS on PORT_BASE+4 (issue 35 item 6: `--driver artemis --uri ssl://...`), all on 127.0.0.1 and never
# Artemis' defaults (61616, 5672, 1883, 61613: the shared RabbitMQ, its STOMP plugin and
# Mosquitto use some of them). User msgscope, password msgscope (login required); addresses and queues are created
# on first use (Artemis' default address settings). DIR gets: home/ (the distribution), instance/ (etc/broker.xml,
# data/, log/), artemis.env (the URIs), artemis.log, artemis.pid. ARTEMIS_VERSION (default 2.40.0), ARTEMIS_HEAP
# (default 512M: -Xms and -Xmx). The journal is NIO with fsync (Artemis' defaults but for libaio): durable messages
# (MQTT QoS 1, persistent STOMP SENDs) wait for the disk. The TLS acceptor's certificate is made once by openssl in
# DIR/tls: a CA of its own (DIR/tls/ca.pem, for the clients' --opt tls_ca) and a server certificate naming IP
# 127.0.0.1 only, presented as a PEM key store (keyStoreType=PEM: the key and the certificate in one file). Then, e.g.:
#   msgscope run --driver amqp10 --uri amqp://msgscope:msgscope@127.0.0.1:16617
#   msgscope run --driver stomp --uri stomp://msgscope:msgscope@127.0.0.1:16619 --opt broker=artemis --opt receipts=1
#   msgscope run --driver artemis --uri ssl://msgscope:msgscope@127.0.0.1:16620 --opt tls_ca=DIR/tls/ca.pem
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/cluster-lib.sh"

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
VERSION=${ARTEMIS_VERSION:-2.40.0}
USER_PASS=msgscope

usage() {
    sed -n '6,8p' "$(readlink -f "$0")" | sed 's/^# *//' >&2
    exit 2
}

ports() { echo "$BASE $((BASE + 1)) $((BASE + 2)) $((BASE + 3)) $((BASE + 4))"; }

# the TLS acceptor's certificates, made once: a CA, and a server certificate it signed naming IP 127.0.0.1 only
make_tls() {
    [ -s "$DIR/tls/server-keystore.pem" ] && return 0
    command -v openssl >/dev/null || { echo "artemis: openssl is needed for the TLS acceptor's certificate" >&2; exit 1; }
    mkdir -p "$DIR/tls"
    (
        cd "$DIR/tls"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 3650 \
            -subj "/CN=msgscope artemis test CA"
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr \
            -subj "/CN=msgscope artemis"
        printf 'subjectAltName=IP:127.0.0.1\n' >san.cnf
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 3650 \
            -extfile san.cnf
        cat server.key server.pem >server-keystore.pem.tmp
        mv server-keystore.pem.tmp server-keystore.pem
    ) >"$DIR/tls.log" 2>&1 || { echo "artemis: openssl failed: $(tail -3 "$DIR/tls.log")" >&2; exit 1; }
}

# the distribution, unpacked once into DIR/home from the tar.gz the Maven wrapper puts in the local repository
fetch_home() {
    [ -x "$DIR/home/bin/artemis" ] && return 0
    mkdir -p "$DIR/dl"
    (cd "$ROOT" && ./mvnw -q -B -N dependency:copy \
        -Dartifact="org.apache.activemq:apache-artemis:$VERSION:tar.gz:bin" -DoutputDirectory="$DIR/dl" >/dev/null) ||
        { echo "artemis: could not fetch org.apache.activemq:apache-artemis:$VERSION:tar.gz:bin through Maven" >&2; exit 1; }
    rm -rf "$DIR/home.tmp"
    mkdir -p "$DIR/home.tmp"
    tar xzf "$DIR/dl/apache-artemis-$VERSION-bin.tar.gz" -C "$DIR/home.tmp" --strip-components=1
    mv "$DIR/home.tmp" "$DIR/home"
    rm -rf "$DIR/dl"
}

# the instance, made once; its acceptors are moved to PORT_BASE+0..3 (each start rewrites them, so a new PORT_BASE
# takes effect on the same data)
create_instance() {
    if [ ! -f "$DIR/instance/etc/broker.xml" ]; then
        "$DIR/home/bin/artemis" create "$DIR/instance" --silent --force --user "$USER_PASS" --password "$USER_PASS" \
            --require-login --no-web --host 127.0.0.1 --nio --no-hornetq-acceptor \
            --java-memory "${ARTEMIS_HEAP:-512M}" >"$DIR/create.log" 2>&1 ||
            { echo "artemis: artemis create failed: $(tail -3 "$DIR/create.log")" >&2; exit 1; }
        sed -i "s/-Xms512M/-Xms${ARTEMIS_HEAP:-512M}/" "$DIR/instance/etc/artemis.profile"
    fi
    make_tls
    # the CORE over TLS acceptor, added once after the STOMP one
    grep -q '<acceptor name="core-tls">' "$DIR/instance/etc/broker.xml" ||
        sed -i "/<acceptor name=\"stomp\">/a\\
         <acceptor name=\"core-tls\">tcp://127.0.0.1:0?sslEnabled=true;keyStoreType=PEM;keyStorePath=$DIR/tls/server-keystore.pem;protocols=CORE</acceptor>" \
            "$DIR/instance/etc/broker.xml"
    local core amqp mqtt stomp tls
    read -r core amqp mqtt stomp tls <<<"$(ports)"
    # the all-protocols acceptor becomes CORE only; every acceptor's port is set whatever it was before
    sed -i -E \
        -e "s#(<acceptor name=\"artemis\">tcp://127\.0\.0\.1:)[0-9]+\?#\1$core?#" \
        -e "/<acceptor name=\"artemis\">/s#protocols=[A-Z,]+#protocols=CORE#" \
        -e "s#(<acceptor name=\"amqp\">tcp://127\.0\.0\.1:)[0-9]+\?#\1$amqp?#" \
        -e "s#(<acceptor name=\"mqtt\">tcp://127\.0\.0\.1:)[0-9]+\?#\1$mqtt?#" \
        -e "s#(<acceptor name=\"stomp\">tcp://127\.0\.0\.1:)[0-9]+\?#\1$stomp?#" \
        -e "s#(<acceptor name=\"core-tls\">tcp://127\.0\.0\.1:)[0-9]+\?#\1$tls?#" \
        "$DIR/instance/etc/broker.xml"
    local p
    for p in $core $amqp $mqtt $stomp $tls; do
        grep -q "tcp://127.0.0.1:$p?" "$DIR/instance/etc/broker.xml" ||
            { echo "artemis: no acceptor on port $p in $DIR/instance/etc/broker.xml" >&2; exit 1; }
    done
}

start() {
    if alive "$(pid_of "$DIR/artemis.pid")"; then
        echo "artemis: a broker already runs from $DIR (pid $(pid_of "$DIR/artemis.pid")): stop it first" >&2
        exit 1
    fi
    local p
    for p in $(ports); do
        free_port "$p" || { echo "artemis: port $p is in use (choose another PORT_BASE)" >&2; exit 1; }
    done
    local t0
    t0=$(date +%s.%N)
    mkdir -p "$DIR"
    fetch_home
    create_instance
    # bin/artemis execs the JVM, so the pid recorded is the broker's own
    (setsid "$DIR/instance/bin/artemis" run </dev/null >>"$DIR/artemis.log" 2>&1) &
    echo $! >"$DIR/artemis.pid"
    local w=0 ready
    while :; do
        ready=1
        for p in $(ports); do
            if free_port "$p"; then ready=0; fi
        done
        [ $ready = 0 ] || break
        alive "$(pid_of "$DIR/artemis.pid")" ||
            { echo "artemis: the broker exited: $(tail -5 "$DIR/artemis.log")" >&2; rm -f "$DIR/artemis.pid"; exit 1; }
        w=$((w + 1))
        [ $w -lt 600 ] || { echo "artemis: the ports do not accept after 60 s: $(tail -3 "$DIR/artemis.log")" >&2; stop; exit 1; }
        sleep 0.1
    done
    local core amqp mqtt stomp tls
    read -r core amqp mqtt stomp tls <<<"$(ports)"
    cat >"$DIR/artemis.env" <<EOF
PORT_BASE=$BASE
CORE_URI=tcp://$USER_PASS:$USER_PASS@127.0.0.1:$core
AMQP_URI=amqp://$USER_PASS:$USER_PASS@127.0.0.1:$amqp
MQTT_URI=mqtt://$USER_PASS:$USER_PASS@127.0.0.1:$mqtt
STOMP_URI=stomp://$USER_PASS:$USER_PASS@127.0.0.1:$stomp
CORE_TLS_URI=ssl://$USER_PASS:$USER_PASS@127.0.0.1:$tls
TLS_CA=$DIR/tls/ca.pem
EOF
    local t1
    t1=$(date +%s.%N)
    echo "artemis: Artemis $VERSION running in $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s from $DIR, pid $(pid_of "$DIR/artemis.pid")"
    echo "  core 127.0.0.1:$core  amqp 127.0.0.1:$amqp  mqtt 127.0.0.1:$mqtt  stomp 127.0.0.1:$stomp  core over TLS 127.0.0.1:$tls (tls_ca $DIR/tls/ca.pem)  (user/password $USER_PASS)"
}

stop() {
    local pid
    pid=$(pid_of "$DIR/artemis.pid")
    signal_stop "$pid"
    await_exit "$pid"
    rm -f "$DIR/artemis.pid"
}

status() {
    local pid
    pid=$(pid_of "$DIR/artemis.pid")
    if alive "$pid"; then
        echo "artemis: running from $DIR, pid $pid"
        cat "$DIR/artemis.env"
    else
        echo "artemis: not running from $DIR"
        exit 1
    fi
}

[ $# -ge 2 ] || usage
DIR=$(mkdir -p "$2" && cd "$2" && pwd)
case "$1" in
    start)
        BASE=${3:-16616}
        [[ "$BASE" =~ ^[0-9]+$ ]] && [ "$BASE" -ge 1024 ] && [ "$BASE" -le 65531 ] ||
            { echo "artemis: PORT_BASE must be a number from 1024 to 65531, got '$BASE'" >&2; exit 2; }
        start
        ;;
    stop) stop ;;
    status) status ;;
    *) usage ;;
esac

#!/usr/bin/env bash
# A private one-node RabbitMQ with its MQTT plugin (rabbitmq_mqtt) on a port of its own, to measure RabbitMQ's MQTT
# beside Mosquitto (issue 35 item 5). The shared RabbitMQ (:5672) keeps the plugin off, and the plugin's default
# port 1883 is Mosquitto's: this node is deploy/rabbitmq-cluster.sh's set-up with one node (its own node name
# msc1@localhost, ports, Erlang cookie, epmd and data folder under DIR; stopped by PID).
#
#   deploy/rabbitmq-mqtt.sh start  DIR [MQTT_PORT]   start the node, wait until it runs; prints its ports
#   deploy/rabbitmq-mqtt.sh stop   DIR               stop the node and its epmd by PID
#   deploy/rabbitmq-mqtt.sh restart DIR              start the node again after a kill (a fault plan's restart command)
#   deploy/rabbitmq-mqtt.sh ctl    DIR ARGS...       rabbitmqctl ARGS against the node (e.g. list_queues)
#
# MQTT_PORT (default 1884): the MQTT listener on 127.0.0.1. The other ports follow from it as from rabbitmq-cluster.sh's
# BASEPORT = MQTT_PORT - 200: AMQP BASEPORT, Erlang distribution BASEPORT+20000, epmd BASEPORT+3. The MQTT plugin
# takes guest/guest from loopback when no credentials are given. Then, e.g.:
#   msgscope run --driver mqtt --uri mqtt://127.0.0.1:1884 --opt version=3
set -euo pipefail
cluster="$(dirname "$(readlink -f "$0")")/rabbitmq-cluster.sh"
export RABBITMQ_CLUSTER_NODES=1 RABBITMQ_CLUSTER_PLUGINS=rabbitmq_mqtt

usage() {
    sed -n '7,10p' "$(readlink -f "$0")" | sed 's/^# *//' >&2
    exit 2
}

[ $# -ge 2 ] || usage
case "$1" in
    start)
        port=${3:-1884}
        [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1224 ] && [ "$port" -le 45200 ] ||
            { echo "rabbitmq-mqtt: MQTT_PORT must be a number from 1224 to 45200, got '$port'" >&2; exit 2; }
        exec "$cluster" start "$2" $((port - 200))
        ;;
    stop) exec "$cluster" stop "$2" ;;
    restart) exec "$cluster" restart "$2" 1 ;;
    ctl)
        dir=$2
        shift 2
        exec "$cluster" ctl "$dir" 1 "$@"
        ;;
    *) usage ;;
esac

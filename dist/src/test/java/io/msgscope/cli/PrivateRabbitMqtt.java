package io.msgscope.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A PRIVATE one-node RabbitMQ with its MQTT plugin, started and stopped by {@code deploy/rabbitmq-mqtt.sh} — the
 * script users run (docs/drivers/mqtt.md), which is {@code deploy/rabbitmq-cluster.sh}'s set-up with one node: its
 * own node name, ports, Erlang cookie, epmd and data folder, stopped by PID. The shared broker (5672, plugin off)
 * and Mosquitto's 1883 are never touched. Without {@code rabbitmq-server} the test is skipped (failed under CI=true).
 */
final class PrivateRabbitMqtt implements AutoCloseable {
    /** Offsets from the MQTT port of every port the node takes (rabbitmq-cluster.sh's, BASEPORT = MQTT port - 200). */
    private static final int[] OFFSETS = {0, -200, -197, -100, 9_800, 19_800};

    final Path dir;
    final int port;

    private PrivateRabbitMqtt(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts the node in {@code dir} on a free MQTT port and waits until it runs (the script waits, up to 180 s). */
    static PrivateRabbitMqtt start(Path dir) throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        PrivateRabbitMqtt n = new PrivateRabbitMqtt(dir, freeMqttPort());
        long t0 = System.nanoTime();
        try {
            System.out.println(script(300, "start", dir.toString(), "" + n.port));
        } catch (Exception | AssertionError e) {
            n.close();
            throw e;
        }
        System.out.println("private RabbitMQ MQTT node up in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
                + " ms");
        return n;
    }

    /** {@code mqtt://127.0.0.1:PORT}. */
    String uri() {
        return "mqtt://127.0.0.1:" + port;
    }

    /** The node's process id (beam.smp), for {@code --broker-pid}. */
    long pid() throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("node1/rabbitmq.pid")).trim());
    }

    /** Stops the node and its epmd by PID (the script's {@code stop}), when it got as far as writing its ports. */
    @Override
    public void close() throws Exception {
        if (Files.exists(dir.resolve("cluster.env"))) {
            script(180, "stop", dir.toString());
        }
    }

    /** An MQTT port whose derived ports (AMQP, stream, epmd, management, distribution) are free too. */
    private static int freeMqttPort() {
        return DeployScripts.freeBase(18_840, "the private RabbitMQ node's MQTT listener", OFFSETS);
    }

    private static String script(int timeoutS, String... args) throws Exception {
        return DeployScripts.run("rabbitmq-mqtt.sh", timeoutS, args);
    }
}

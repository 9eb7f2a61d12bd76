package io.msgscope.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A PRIVATE one-node RabbitMQ for the tests that need a broker of their own — the reconnect tests kill and restart it
 * (issue 32 item 3), the MQTT tests run RabbitMQ's MQTT plugin beside Mosquitto (issue 35 item 5) — started, restarted
 * and stopped by the scripts users run: {@code deploy/rabbitmq-cluster.sh} with one node ({@link #start}) or
 * {@code deploy/rabbitmq-mqtt.sh} ({@link #startMqtt}, the same set-up with the MQTT plugin). Its own node name, ports,
 * Erlang cookie, epmd and data folder under {@link #dir}; the shared broker on 5672 and Mosquitto's 1883 are never
 * touched. The node's {@code beam.smp} writes {@link #pidFile} (a kill's target); {@link #restartCommand} is the fault
 * plan's restart; {@link #close} stops the node as it is then (the restarted one too) and its epmd, by PID. Without
 * {@code rabbitmq-server} the test is skipped (failed under CI=true).
 */
final class PrivateRabbitNode implements AutoCloseable {
    /** Offsets from BASEPORT of the ports a one-node set-up takes: AMQP, epmd, Erlang distribution. */
    private static final int[] BASE_PORTS = {0, 3, 20_000};
    /** The listener a plugin adds, as an offset from BASEPORT (rabbitmq-cluster.sh's layout). */
    private static final Map<String, Integer> PLUGIN_PORTS = Map.of("rabbitmq_stream", 100, "rabbitmq_mqtt", 200,
            "rabbitmq_stomp", 400, "rabbitmq_management", 10_000);
    /** With a TLS folder: amqps, stream over TLS and STOMP over TLS (rabbitmq-cluster.sh's layout). */
    static final int AMQPS = 300;
    static final int STREAM_TLS = 500;
    static final int STOMP_TLS = 600;

    final Path dir;
    /** BASEPORT: the AMQP port. */
    final int port;

    private PrivateRabbitNode(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /**
     * Starts one node in {@code dir} with {@code plugins} enabled (e.g. {@code rabbitmq_amqp1_0}, on this node only;
     * none given: none) and waits until it runs (the script waits, up to 180 s).
     */
    static PrivateRabbitNode start(Path dir, String... plugins) throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        PrivateRabbitNode n = new PrivateRabbitNode(dir, freeBase(plugins));
        return n.started("", () -> DeployScripts.run("rabbitmq-cluster.sh", 300,
                Map.of("RABBITMQ_CLUSTER_NODES", "1", "RABBITMQ_CLUSTER_PLUGINS", String.join(" ", plugins)),
                "start", dir.toString(), "" + n.port));
    }

    /**
     * Starts one node as {@link #start} does that also takes TLS with the certificate in {@code tlsDir} ({@code ca.pem},
     * {@code cert.pem}, {@code key.pem}): amqps on BASEPORT+{@value #AMQPS}, with rabbitmq_stream streams over TLS on
     * +{@value #STREAM_TLS}, with rabbitmq_stomp STOMP over TLS on +{@value #STOMP_TLS}.
     */
    static PrivateRabbitNode startTls(Path dir, Path tlsDir, String... plugins) throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        List<String> withTls = new java.util.ArrayList<>(List.of(plugins));
        withTls.addAll(List.of("tls:" + AMQPS, "tls:" + STREAM_TLS, "tls:" + STOMP_TLS));
        PrivateRabbitNode n = new PrivateRabbitNode(dir, freeBase(withTls.toArray(String[]::new)));
        return n.started(" TLS", () -> DeployScripts.run("rabbitmq-cluster.sh", 300,
                Map.of("RABBITMQ_CLUSTER_NODES", "1", "RABBITMQ_CLUSTER_PLUGINS", String.join(" ", plugins),
                        "RABBITMQ_CLUSTER_TLS_DIR", tlsDir.toString()),
                "start", dir.toString(), "" + n.port));
    }

    /** Starts a node with the MQTT plugin by {@code deploy/rabbitmq-mqtt.sh}, the script docs/drivers/mqtt.md gives. */
    static PrivateRabbitNode startMqtt(Path dir) throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        PrivateRabbitNode n = new PrivateRabbitNode(dir, freeBase("rabbitmq_mqtt"));
        return n.started(" MQTT", () -> DeployScripts.run("rabbitmq-mqtt.sh", 300, Map.of(),
                "start", dir.toString(), "" + (n.port + PLUGIN_PORTS.get("rabbitmq_mqtt"))));
    }

    private PrivateRabbitNode started(String what, java.util.concurrent.Callable<String> start) throws Exception {
        long t0 = System.nanoTime();
        try {
            System.out.println(start.call());
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
        System.out.println("private RabbitMQ" + what + " node up in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
        return this;
    }

    /** {@code amqp://guest:guest@127.0.0.1:PORT} (no virtual host: the default one). */
    String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port;
    }

    /** {@code mqtt://127.0.0.1:PORT}, the MQTT plugin's listener (a node started with it). */
    String mqttUri() {
        return "mqtt://127.0.0.1:" + (port + PLUGIN_PORTS.get("rabbitmq_mqtt"));
    }

    Path pidFile() {
        return dir.resolve("node1/rabbitmq.pid");
    }

    /** The node's process id now (beam.smp). */
    long pid() throws IOException {
        return Long.parseLong(Files.readString(pidFile()).trim());
    }

    /** The command that starts the node again after a kill and returns once it booted (a fault plan's restart). */
    String restartCommand() {
        return "bash " + DeployScripts.path("rabbitmq-cluster.sh") + " restart " + dir + " 1";
    }

    /**
     * Runs {@code msgscope run ARGS} against this node while the broker-probe agent applies {@code faults} to it
     * (e.g. {@code "2s:kill:node1, 2.5s:restart:node1"}: SIGKILL by its pid file, then {@link #restartCommand}),
     * its CPU sampled, duplicates allowed (a reconnect delivers at least once), results in {@code out}; waits for it
     * and prints what it did under {@code name} ({@link ReconnectFaultIT#finish}).
     */
    ReconnectFaultIT.Finished runWithFaults(String name, Path workDir, Path out, String faults, String... args)
            throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("run"));
        all.addAll(List.of(args));
        all.addAll(List.of("--broker-pid", "" + pid(), "--fault-target", "node1=" + pidFile(),
                "--fault-target", "node1=restart:" + restartCommand(), "--faults", faults, "--allow-duplicates",
                "--out", out.toString()));
        return ReconnectFaultIT.finish(name, MsgscopeProcess.start(workDir, all.toArray(new String[0])), out);
    }

    /** Stops the node and its epmd by PID (the script's {@code stop}), when it got as far as writing its ports. */
    @Override
    public void close() throws Exception {
        if (Files.exists(dir.resolve("cluster.env"))) {
            DeployScripts.run("rabbitmq-cluster.sh", 180, Map.of(), "stop", dir.toString());
        }
    }

    /** A BASEPORT whose ports (AMQP, epmd, distribution and the plugins' listeners) are all free. */
    private static int freeBase(String... plugins) {
        List<Integer> offsets = new java.util.ArrayList<>(Arrays.stream(BASE_PORTS).boxed().toList());
        for (String p : plugins) {
            if (PLUGIN_PORTS.containsKey(p)) {
                offsets.add(PLUGIN_PORTS.get(p));
            } else if (p.startsWith("tls:")) { // a TLS listener's offset
                offsets.add(Integer.parseInt(p.substring(4)));
            }
        }
        return DeployScripts.freeBase(18_640, "a private RabbitMQ node",
                offsets.stream().mapToInt(Integer::intValue).toArray());
    }
}

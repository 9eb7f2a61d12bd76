package io.msgscope.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PRIVATE RabbitMQ node for the reconnect tests (issue 32 item 3), started from the Debian package with its own
 * node name, AMQP and distribution ports, Erlang cookie, epmd and data folder, as {@code deploy/rabbitmq-cluster.sh}
 * starts its nodes: the shared broker on 5672 is never touched. {@link #startScript} starts it in the background
 * (its own epmd first, once) with nothing read from /etc/rabbitmq, and is the fault plan's restart command too; the
 * node writes its pid to {@link #pidFile} (the kill's target). {@link #close} stops the node (the restarted one:
 * its pid file was rewritten), its wrapper and its epmd, by PID. Without {@code rabbitmq-server} the test is skipped
 * (failed under CI=true).
 */
final class PrivateRabbitNode implements AutoCloseable {
    final Path dir;
    final int port;
    private final Path start;

    private PrivateRabbitNode(Path dir, int port, Path start) {
        this.dir = dir;
        this.port = port;
        this.start = start;
    }

    /**
     * Writes the node's configuration and start script in {@code dir}, with {@code plugins} enabled (e.g.
     * {@code rabbitmq_amqp1_0}: on this node only), starts it and waits until it listens (up to 180 s).
     */
    static PrivateRabbitNode start(Path dir, String... plugins) throws Exception {
        PrivateBroker.requireBinary("rabbitmq-server");
        int port = PrivateBroker.freePort();
        PrivateRabbitNode n = new PrivateRabbitNode(dir, port,
                write(dir, port, PrivateBroker.freePort(), PrivateBroker.freePort(), plugins));
        long t0 = System.nanoTime();
        try {
            run("bash", n.start.toString());
            n.awaitListening(180);
        } catch (Exception | AssertionError e) {
            n.close();
            throw e;
        }
        System.out.println("private RabbitMQ node up in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
                + " ms");
        return n;
    }

    /** {@code amqp://guest:guest@127.0.0.1:PORT} (no virtual host: the default one). */
    String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port;
    }

    Path pidFile() {
        return dir.resolve("rabbitmq.pid");
    }

    /** The node's process id now (beam.smp). */
    long pid() throws IOException {
        return Long.parseLong(Files.readString(pidFile()).trim());
    }

    /** The command that starts the node again (the fault plan's {@code NAME=restart:COMMAND}). */
    String restartCommand() {
        return "bash " + start;
    }

    private static Path write(Path dir, int amqp, int dist, int epmd, String... plugins) throws IOException {
        Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(dir.resolve("mnesia"));
        Files.createDirectories(dir.resolve("log"));
        Path cookie = dir.resolve("home/.erlang.cookie");
        Files.writeString(cookie, Long.toHexString(new java.security.SecureRandom().nextLong()) + "msgscope");
        Files.setPosixFilePermissions(cookie, java.nio.file.attribute.PosixFilePermissions.fromString("r--------"));
        Files.writeString(dir.resolve("rabbitmq-env.conf"), "");
        Files.writeString(dir.resolve("enabled_plugins"), "[" + String.join(",", plugins) + "].\n");
        Files.writeString(dir.resolve("rabbitmq.conf"), "listeners.tcp.local = 127.0.0.1:" + amqp
                + "\nlog.file.level = info\n");
        String d = dir.toString();
        Path start = dir.resolve("start.sh");
        Files.writeString(start, String.join("\n",
                "export HOME=" + d + "/home RABBITMQ_CONF_ENV_FILE=" + d + "/rabbitmq-env.conf",
                "export RABBITMQ_NODENAME=msgscope-re@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
                "export RABBITMQ_NODE_PORT=" + amqp + " RABBITMQ_DIST_PORT=" + dist,
                "export RABBITMQ_CONFIG_FILE=" + d + "/rabbitmq.conf RABBITMQ_ADVANCED_CONFIG_FILE=" + d + "/advanced.config",
                "export RABBITMQ_ENABLED_PLUGINS_FILE=" + d + "/enabled_plugins RABBITMQ_MNESIA_BASE=" + d + "/mnesia",
                "export RABBITMQ_LOG_BASE=" + d + "/log RABBITMQ_PID_FILE=" + d + "/rabbitmq.pid",
                "export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS='-kernel inet_dist_use_interface {127,0,0,1}'",
                "export ERL_EPMD_PORT=" + epmd + " ERL_EPMD_ADDRESS=127.0.0.1",
                "unset ERL_FLAGS RABBITMQ_ENABLED_PLUGINS",
                "if [ ! -s " + d + "/epmd.pid ]; then",
                "  setsid epmd -port " + epmd + " -address 127.0.0.1 </dev/null >" + d + "/epmd.log 2>&1 &",
                "  echo $! >" + d + "/epmd.pid",
                "fi",
                "setsid /usr/lib/rabbitmq/bin/rabbitmq-server </dev/null >>" + d + "/console.log 2>&1 &",
                "echo $! >" + d + "/wrapper.pid", ""));
        return start;
    }

    private void awaitListening(int timeoutS) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(pidFile())) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                    return;
                } catch (IOException e) {
                    // still booting
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the private RabbitMQ node did not listen on " + port + " within " + timeoutS
                + " s: " + (Files.exists(dir.resolve("console.log")) ? Files.readString(dir.resolve("console.log")) : ""));
    }

    /** Stops the node (the restarted one: its pid file was rewritten), its wrapper and its epmd, by PID. */
    @Override
    public void close() throws IOException {
        for (String f : new String[] {"rabbitmq.pid", "wrapper.pid", "epmd.pid"}) {
            Path file = dir.resolve(f);
            if (!Files.exists(file)) {
                continue;
            }
            String text = Files.readString(file).trim();
            if (text.isEmpty()) {
                continue;
            }
            ProcessHandle.of(Long.parseLong(text)).ifPresent(h -> {
                h.destroy();
                try {
                    h.onExit().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    h.destroyForcibly();
                }
            });
        }
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " timed out: " + out);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    }
}

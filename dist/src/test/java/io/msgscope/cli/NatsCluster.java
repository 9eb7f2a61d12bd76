package io.msgscope.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A test's own 3-node NATS cluster with JetStream (issue 32 item 2), started and stopped by deploy/nats-cluster.sh on
 * free loopback ports: node i serves clients on {@code base+i-1}, routes on {@code base+100+i-1}, monitoring on
 * {@code base+200+i-1}. Stopped by the pids the script wrote (never by name); the shared server on 4222 is untouched.
 * Without nats-server the test is skipped, under CI=true it fails.
 */
final class NatsCluster implements AutoCloseable {
    static final Path SCRIPT = Path.of(System.getProperty("user.dir")).getParent().resolve("deploy/nats-cluster.sh");

    private final Path dir;
    private final int base;

    private NatsCluster(Path dir, int base) {
        this.dir = dir;
        this.base = base;
    }

    /** Starts the cluster in {@code dir} and returns once its routes are up and JetStream has a meta leader. */
    static NatsCluster start(Path dir) throws Exception {
        PrivateBroker.requireBinary("nats-server");
        Files.createDirectories(dir);
        String last = "";
        for (int attempt = 0; attempt < 5; attempt++) {
            int base = freeBase();
            Process p = new ProcessBuilder(SCRIPT.toString(), "start", dir.toString(), "" + base)
                    .redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                new NatsCluster(dir, base).close();
                throw new AssertionError("nats-cluster.sh start did not return within 60 s");
            }
            last = new String(p.getInputStream().readAllBytes());
            if (p.exitValue() == 0) {
                return new NatsCluster(dir, base);
            }
            if (!last.contains("is taken")) { // a port taken between the check and the start: try other ports
                break;
            }
        }
        throw new AssertionError("the NATS cluster did not start: " + last);
    }

    /** A base port whose 9 ports are free now. */
    private static int freeBase() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
            if (List.of(0, 1, 2, 100, 101, 102, 200, 201, 202).stream().allMatch(o -> free(base + o))) {
                return base;
            }
        }
        throw new IOException("no 9 free loopback ports found");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code nats://127.0.0.1:PORT} of node {@code i} (1..3). */
    String url(int i) {
        return "nats://127.0.0.1:" + (base + i - 1);
    }

    /** All three client URLs, comma-separated (what jnats takes as its server list). */
    String urls() {
        return url(1) + "," + url(2) + "," + url(3);
    }

    /** Node {@code i}'s pid file, written by nats-server. */
    Path pidFile(int i) {
        return dir.resolve("n" + i + ".pid");
    }

    long pid(int i) throws IOException {
        return Long.parseLong(Files.readString(pidFile(i)).trim());
    }

    /** The node index (1..3) of a server name {@code nI}. */
    static int index(String serverName) {
        return Integer.parseInt(serverName.substring(1));
    }

    /** Node {@code i}'s log so far, for failure messages. */
    String log(int i) {
        try {
            return Files.readString(dir.resolve("n" + i + ".log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws Exception {
        Process p = new ProcessBuilder(SCRIPT.toString(), "stop", dir.toString(), "" + base).redirectErrorStream(true)
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }
}

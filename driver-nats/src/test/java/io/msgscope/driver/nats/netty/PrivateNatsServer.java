package io.msgscope.driver.nats.netty;

import io.msgscope.core.test.Ci;
import io.msgscope.driver.nats.NatsDriverTest;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A nats-server of the test's own on a free loopback port, with a configuration of its own (auth, TLS, limits):
 * the shared server on 4222 is never reconfigured. Stopped by its process (the one this test started) on close,
 * its folder deleted. Skips the test when nats-server is not installed (fails under CI=true).
 */
final class PrivateNatsServer implements AutoCloseable {
    final Path dir;
    final int port;
    private final Process process;

    PrivateNatsServer(String config) throws IOException {
        this(Files.createTempDirectory("msgscope-nats-"), config);
    }

    PrivateNatsServer(Path dir, String config) throws IOException {
        String exe = NatsDriverTest.onPath("nats-server") ? "nats-server"
                : Files.isExecutable(Path.of("/usr/sbin/nats-server")) ? "/usr/sbin/nats-server" : null;
        if (exe == null && Ci.on()) {
            throw new AssertionError("nats-server must be installed under CI=true");
        }
        Assumptions.assumeTrue(exe != null, "nats-server is not installed: private-server test skipped");
        this.dir = dir;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("nats.conf");
        Files.writeString(conf, "listen: 127.0.0.1:" + port + "\n" + config + "\n");
        process = new ProcessBuilder(exe, "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats.log").toFile()).start();
        awaitListening();
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    String log = log();
                    close();
                    throw new IOException("the private nats-server did not start: " + log);
                }
                LockSupport.parkNanos(20_000_000);
            }
        }
    }

    String uri(String scheme) {
        return scheme + "://127.0.0.1:" + port;
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    String log() {
        try {
            return Files.readString(dir.resolve("nats.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}

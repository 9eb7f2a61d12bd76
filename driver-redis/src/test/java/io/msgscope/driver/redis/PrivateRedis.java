package io.msgscope.driver.redis;

import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A redis-server of a test's own on loopback, its output appended to a log, stopped by its PID. */
final class PrivateRedis {
    private PrivateRedis() {
    }

    /** Fails under CI=true, else skips, when one of {@code tools} is not on PATH. */
    static void require(String... tools) {
        for (String t : tools) {
            boolean present = TestCertificates.onPath(t);
            if (!present && Ci.on()) {
                fail(t + " must be on PATH under CI=true");
            }
            assumeTrue(present, t + " is not on PATH: test skipped");
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Starts {@code redis-server --bind 127.0.0.1 args...} and waits until {@code port} listens. */
    static Process start(int port, Path log, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return p;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    throw new AssertionError("private redis-server did not start: " + Files.readString(log));
                }
                Thread.sleep(20);
            }
        }
    }

    static void stop(Process p) throws InterruptedException {
        if (p != null) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}

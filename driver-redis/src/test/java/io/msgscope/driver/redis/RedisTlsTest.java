package io.msgscope.driver.redis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * rediss:// (issue 35 item 6) against a PRIVATE redis-server with TLS only, on a free port, its certificate made here by
 * openssl (a test CA, a server certificate naming IP 127.0.0.1 only): every message once through the test CA
 * ({@code tls_ca}) in both modes, or through {@code tls_verify=false}; the JVM's trust store, which does not know the
 * CA, refuses it in one line naming the server. Skipped without redis-server or openssl, failed under CI=true. The
 * server is stopped by its PID.
 */
class RedisTlsTest {
    private static final int N = 500;
    @TempDir
    static Path dir;
    private static Process server;
    private static int port;



    @BeforeAll
    static void start() throws Exception {
        boolean tools = TestCertificates.onPath("redis-server") && TestCertificates.onPath("openssl");
        if (!tools && Ci.on()) {
            fail("redis-server and openssl must be on PATH under CI=true");
        }
        assumeTrue(tools, "redis-server or openssl is not on PATH: rediss tests skipped");
        TestCertificates.make(dir);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        server = new ProcessBuilder("redis-server", "--port", "0", "--tls-port", "" + port, "--bind", "127.0.0.1",
                "--tls-cert-file", dir.resolve("server.pem").toString(), "--tls-key-file",
                dir.resolve("server.key").toString(), "--tls-ca-cert-file", dir.resolve("ca.pem").toString(),
                "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !server.isAlive()) {
                    throw new AssertionError("private redis-server did not start: "
                            + Files.readString(dir.resolve("redis.log")));
                }
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static String uri() {
        return "rediss://127.0.0.1:" + port;
    }

    @Test
    void everyMessageOnceThroughTheTestCa() throws Exception {
        for (String mode : List.of("streams", "pubsub")) {
            RoundTrip.run(new RedisDriver(), uri(), Map.of("mode", mode, "tls_ca", dir.resolve("ca.pem").toString()), N,
                    64).assertAllOnce(N, true);
        }
    }

    @Test
    void tlsVerifyFalseTakesAnyCertificate() throws Exception {
        RoundTrip.run(new RedisDriver(), uri(), Map.of("tls_verify", "false"), N, 64).assertAllOnce(N, true);
    }

    @Test
    void theJvmsTrustStoreRefusesTheTestCertificateInOneLine() throws Exception {
        try (ClientContext c = new ClientContext(1, List.of())) {
            IOException e = assertThrows(IOException.class, () -> new RedisDriver().openSubscriber(
                    new DriverSpec("", 0, uri(), 64, 0, Map.of(), ""), c));
            assertTrue(e.getMessage().startsWith("cannot connect to Redis at rediss://127.0.0.1:" + port),
                    e::getMessage);
            assertTrue(!e.getMessage().contains("\n"), e::getMessage);
        }
    }

    @Test
    void tlsOptionsOnAPlainUriOrAnUnreadableFileNameTheirOption() {
        SpecException e = assertThrows(SpecException.class, () -> RedisSettings.of(new DriverSpec("", 0,
                "redis://127.0.0.1:6379", 64, 0, Map.of("tls_verify", "false"), ""), false));
        assertEquals("--opt tls_verify", e.option());
        e = assertThrows(SpecException.class, () -> RedisSettings.of(new DriverSpec("", 0, uri(), 64, 0,
                Map.of("tls_ca", dir.resolve("nope.pem").toString()), ""), false));
        assertEquals("--opt tls_ca", e.option());
    }
}

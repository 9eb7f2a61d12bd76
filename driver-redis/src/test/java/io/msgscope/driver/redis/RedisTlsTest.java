package io.msgscope.driver.redis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        PrivateRedis.require("redis-server", "openssl");
        TestCertificates.make(dir);
        port = PrivateRedis.freePort();
        server = PrivateRedis.start(port, dir.resolve("redis.log"), "--port", "0", "--tls-port", "" + port,
                "--tls-cert-file", dir.resolve("server.pem").toString(), "--tls-key-file",
                dir.resolve("server.key").toString(), "--tls-ca-cert-file", dir.resolve("ca.pem").toString(),
                "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir.toString());
    }

    @AfterAll
    static void stop() throws InterruptedException {
        PrivateRedis.stop(server);
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

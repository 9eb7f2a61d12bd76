package io.msgscope.driver.amqp;

import com.rabbitmq.client.ConnectionFactory;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What an amqps:// connection trusts ({@link AmqpTls}), seen from a TLS server of the test's own on loopback whose
 * certificate (made here by openssl: a test CA, a server certificate naming IP 127.0.0.1 only) no trust store knows:
 * by default any certificate is taken, as docs/drivers/amqp.md says (amqp-client 5.37's own amqps:// default checks
 * the JVM's trust store, which refused it); {@code tls_ca} takes it through the test CA; {@code tls_verify=true}
 * without it refuses it, and with it refuses a host name the certificate does not name. The server only completes
 * (or fails) the handshake and closes: the AMQP connection fails after it either way, so each case reads whether the
 * handshake passed on the server's side. Skipped without openssl, failed under CI=true.
 */
class AmqpTlsTest {
    @TempDir
    static Path dir;
    private static SSLContext server;


    @BeforeAll
    static void certificates() throws Exception {
        boolean openssl = TestCertificates.onPath("openssl");
        if (!openssl && Ci.on()) {
            fail("openssl must be on PATH under CI=true");
        }
        assumeTrue(openssl, "openssl is not on PATH: amqps trust tests skipped");
        TestCertificates.make(dir);
        TestCertificates.run(dir, "openssl", "pkcs12", "-export", "-in", "server.pem", "-inkey", "server.key", "-out",
                "server.p12", "-passout", "pass:test");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            ks.load(in, "test".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "test".toCharArray());
        server = SSLContext.getInstance("TLS");
        server.init(kmf.getKeyManagers(), null, null);
    }

    /** Connects with {@code opts} to a one-shot TLS server on 127.0.0.1 as {@code host}; whether its handshake passed. */
    private static boolean handshakePasses(String host, String... opts) throws Exception {
        try (SSLServerSocket ss = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            CompletableFuture<Boolean> passed = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) ss.accept()) {
                    s.setSoTimeout(10_000);
                    s.startHandshake();
                    s.getInputStream().read(); // the client's TLS is up when its AMQP header comes
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
            Map<String, String> o = new HashMap<>();
            for (int i = 0; i < opts.length; i += 2) {
                o.put(opts[i], opts[i + 1]);
            }
            DriverSpec spec = new DriverSpec("", 0, "amqps://guest:guest@" + host + ":" + ss.getLocalPort() + "/%2f",
                    64, 0, o, "");
            ConnectionFactory f = AmqpConnections.factory(spec, AmqpOptions.of(spec));
            f.setConnectionTimeout(5_000);
            f.setHandshakeTimeout(5_000);
            assertThrows(Exception.class, () -> f.newConnection().close()); // no AMQP behind the TLS
            return passed.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void byDefaultAnyCertificateIsTakenAsDocumented() throws Exception {
        assertTrue(handshakePasses("127.0.0.1"));
        assertTrue(handshakePasses("localhost")); // nor the host name
    }

    @Test
    void tlsCaTrustsTheCertificatesInTheFile() throws Exception {
        assertTrue(handshakePasses("127.0.0.1", "tls_ca", dir.resolve("ca.pem").toString()));
        // a file of another CA refuses it
        assertEquals(false, handshakePasses("127.0.0.1", "tls_ca", dir.resolve("other.pem").toString()));
    }

    @Test
    void tlsVerifyChecksTheChainAndTheHostName() throws Exception {
        assertEquals(false, handshakePasses("127.0.0.1", "tls_verify", "true")); // the JVM's store: unknown CA
        assertTrue(handshakePasses("127.0.0.1", "tls_verify", "true", "tls_ca", dir.resolve("ca.pem").toString()));
        assertEquals(false, handshakePasses("localhost", "tls_verify", "true", "tls_ca",
                dir.resolve("ca.pem").toString())); // the certificate names 127.0.0.1 only
    }

    @Test
    void badTlsOptionsNameTheirOption() throws Exception {
        DriverSpec plain = new DriverSpec("", 0, "amqp://guest:guest@127.0.0.1:5672/%2f", 64, 0,
                Map.of("tls_ca", dir.resolve("ca.pem").toString()), "");
        SpecException e = assertThrows(SpecException.class,
                () -> AmqpConnections.factory(plain, AmqpOptions.of(plain)));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
        DriverSpec missing = new DriverSpec("", 0, "amqps://guest:guest@127.0.0.1:5671/%2f", 64, 0,
                Map.of("tls_ca", dir.resolve("nope.pem").toString()), "");
        e = assertThrows(SpecException.class, () -> AmqpOptions.of(missing));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
        Files.writeString(dir.resolve("empty.pem"), "");
        DriverSpec empty = new DriverSpec("", 0, "amqps://guest:guest@127.0.0.1:5671/%2f", 64, 0,
                Map.of("tls_ca", dir.resolve("empty.pem").toString()), "");
        e = assertThrows(SpecException.class, () -> AmqpConnections.factory(empty, AmqpOptions.of(empty)));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
    }
}

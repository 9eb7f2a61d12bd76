package io.msgscope.driver.nats.netty;

import io.msgscope.core.test.Ci;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.nats.NatsDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.msgscope.driver.nats.netty.NettyEngineFakeServerTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Both engines against nats-server instances of the test's own (the shared one is never reconfigured): user and
 * password or token authentication, TLS with a certificate made for the test, a server that pings its clients, and
 * a subscriber too slow for the server's {@code max_pending}.
 */
class NettyEnginePrivateServerTest {
    private static final int N = 1000;
    private static final ClientContext CONTEXT = new ClientContext(1, List.of());

    @AfterAll
    static void closeContext() {
        CONTEXT.close();
    }

    private static NatsDriver driver() {
        return new NatsDriver();
    }

    private static IOException refusedWith(String uri, Map<String, String> opts) {
        return assertThrows(IOException.class, () -> driver().openSubscriber(new DriverSpec("", 0, uri, 64, 0, opts, ""),
                CONTEXT));
    }

    @Test
    void userAndPassword() throws Exception {
        try (PrivateNatsServer s = new PrivateNatsServer("authorization { user: alice, password: \"wonder land\" }")) {
            for (String engine : new String[] {"netty", "jnats"}) {
                RoundTrip rt = RoundTrip.run(driver(), s.uri("nats"), Map.of("engine", engine, "username", "alice",
                        "password", "wonder land"), N, 64);
                rt.assertAllOnce(N, true);
                IOException e = refusedWith(s.uri("nats"), Map.of("engine", engine, "username", "alice", "password",
                        "wrong-pw-42"));
                assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e), engine + ": " + e.getMessage());
                assertTrue(e.getMessage().contains(s.address()) && e.getMessage().contains("Authorization Violation"),
                        e.getMessage());
                assertFalse(e.getMessage().contains("wrong-pw-42"), "no password in " + e.getMessage());
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
            }
            IOException e = refusedWith(s.uri("nats"), Map.of());
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e), "no credentials: " + e.getMessage());
            RoundTrip.run(driver(), "nats://alice:wonder%20land@127.0.0.1:" + s.port, Map.of(), N, 64)
                    .assertAllOnce(N, true);
        }
    }

    @Test
    void token() throws Exception {
        try (PrivateNatsServer s = new PrivateNatsServer("authorization { token: \"s3cr3t-t0ken\" }")) {
            for (String engine : new String[] {"netty", "jnats"}) {
                RoundTrip.run(driver(), s.uri("nats"), Map.of("engine", engine, "token", "s3cr3t-t0ken"), N, 64)
                        .assertAllOnce(N, true);
                IOException e = refusedWith(s.uri("nats"), Map.of("engine", engine, "token", "not-it"));
                assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e), engine + ": " + e.getMessage());
                assertFalse(e.getMessage().contains("not-it"), e.getMessage());
            }
        }
    }

    /** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in {@code dir}. */
    private static Path certificate(Path dir) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString(),
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
        } catch (IOException e) {
            Ci.require(false, "openssl must be installed (" + e.getMessage() + ")", "NATS TLS test skipped");
            return null;
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, Files.readString(dir.resolve("openssl.log")));
        return dir.resolve("cert.pem");
    }

    @Test
    void tls() throws Exception {
        Path dir = Files.createTempDirectory("msgscope-nats-tls-");
        Path cert = certificate(dir);
        try (PrivateNatsServer s = new PrivateNatsServer(dir, "tls { cert_file: \"" + cert + "\", key_file: \""
                + dir.resolve("key.pem") + "\", timeout: 2 }")) {
            String uri = s.uri("tls");
            RoundTrip.run(driver(), uri, Map.of("tls_ca", cert.toString()), N, 256).assertAllOnce(N, true);
            RoundTrip.run(driver(), uri, Map.of("tls_verify", "false"), N, 64).assertAllOnce(N, true);
            RoundTrip.run(driver(), uri, Map.of("engine", "jnats", "tls_ca", cert.toString()), N, 64).assertAllOnce(N, true);
            try (Subscriber sub = driver().openSubscriber(new DriverSpec("", 0, uri, 64, 0, Map.of("tls_ca",
                    cert.toString()), ""), CONTEXT)) {
                assertEquals("true", sub.serverInfo().get("tls"));
            }
            // the JVM's trust store does not know the test's certificate: the handshake fails, in one line
            IOException e = refusedWith(uri, Map.of());
            assertEquals(Fault.Kind.CONNECT_FAILED, Fault.kindOf(e), e.getMessage());
            assertTrue(e.getMessage().startsWith("TLS handshake with NATS at " + s.address() + " failed: "), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            // a nats:// URI to a server that requires TLS is upgraded too (here with the defaults, so it fails alike)
            e = refusedWith(s.uri("nats"), Map.of());
            assertTrue(e.getMessage().startsWith("TLS handshake with NATS at " + s.address() + " failed: "), e.getMessage());
        }
    }

    @Test
    void theServersPingsAreAnswered() throws Exception {
        try (PrivateNatsServer s = new PrivateNatsServer("ping_interval: \"100ms\"\nping_max: 2")) {
            try (NettyNatsSubscriber sub = (NettyNatsSubscriber) driver().openSubscriber(new DriverSpec("", 0,
                    s.uri("nats"), 64, 0, Map.of(), ""), CONTEXT)) {
                await(() -> sub.connection().pingsAnswered() >= 5, "five PINGs of the server answered");
                assertNull(sub.closeReason(), "the server did not drop the connection as stale");
            }
        }
    }

    /**
     * A subscriber whose handler stops while 32 MB are published: nats-server drops it once max_pending bytes wait
     * for it (without a -ERR: it closes slow clients silently), and the subscriber reports the end once its handler
     * returns, having received less than was sent.
     */
    @Test
    void aSlowConsumerIsDroppedByTheServer() throws Exception {
        try (PrivateNatsServer s = new PrivateNatsServer("max_payload: 16384\nmax_pending: 65536\nwrite_deadline: \"2s\"");
             ClientContext subCtx = new ClientContext(1, List.of())) {
            CountDownLatch release = new CountDownLatch(1);
            AtomicLong received = new AtomicLong();
            List<String> ends = new CopyOnWriteArrayList<>();
            // 16 KiB messages: nats-server stalls a publisher (up to 1 s a message) once 3/4 of a subscriber's
            // max_pending wait, so one message should take it from there to the limit
            int size = 16_384;
            int sent = 2_000;
            try (Subscriber sub = driver().openSubscriber(new DriverSpec("", 0, s.uri("nats"), size, 0, Map.of(), ""),
                    subCtx)) {
                sub.start((b, off) -> {
                    if (received.incrementAndGet() == 1) {
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }, ends::add);
                try (Publisher pub = driver().openPublisher(new DriverSpec("", 0, s.uri("nats"), size, 0, Map.of(),
                        sub.destination()), CONTEXT)) {
                    ByteBuffer buf = driver().allocatePayload(size);
                    for (int i = 0; i < sent; i++) {
                        WireHeader.writeSequence(buf, 0, i);
                        pub.send(buf, 0, size);
                    }
                    pub.drain(30_000);
                }
                release.countDown();
                await(() -> !ends.isEmpty(), "the subscriber told that its connection ended");
                assertEquals(List.of("connection to NATS at " + s.address() + " lost (the server closed it)"), ends);
                assertTrue(received.get() < sent, received.get() + " of " + sent + " received");
                assertTrue(s.log().contains("Slow Consumer Detected"), s.log());
                System.out.println("slow consumer: " + received.get() + " of " + sent + " received; counters "
                        + sub.counters());
            }
        }
    }
}

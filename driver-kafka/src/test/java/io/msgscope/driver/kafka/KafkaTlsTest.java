package io.msgscope.driver.kafka;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.BacklogProbe;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code kafka+ssl://} ({@link KafkaTls}) against the in-process KRaft broker with an SSL listener whose certificate
 * (a test CA's, naming IP 127.0.0.1 only, made by openssl) no trust store knows: with {@code tls_ca} the messages
 * arrive, through the subscriber's Admin, its consumer, the producer and a backlog probe; {@code tls_verify=false}
 * takes it without a CA; the JVM's trust store, another CA's file and a host name the certificate does not name are
 * one-line CONNECT_FAILED faults; TLS options with a plain URI and unusable CA files are usage errors naming the
 * option. Plain Kafka is KafkaDriverTest's. Skipped without openssl, failed under CI=true.
 */
class KafkaTlsTest {
    @TempDir
    static Path dir;
    private static EmbeddedKafka broker;
    private final KafkaDriver driver = new KafkaDriver();

    @BeforeAll
    static void startBroker() throws Exception {
        boolean openssl = TestCertificates.onPath("openssl");
        if (!openssl && Ci.on()) {
            fail("openssl must be on PATH under CI=true");
        }
        assumeTrue(openssl, "openssl is not on PATH: kafka+ssl tests skipped");
        TestCertificates.make(dir);
        broker = EmbeddedKafka.start(0, 0, dir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private static DriverSpec spec(String uri, String... kv) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        return new DriverSpec("", 0, uri, 64, 0, o, "");
    }

    private static String ca() {
        return dir.resolve("ca.pem").toString();
    }

    /** n messages from a publisher to a subscriber, both with {@code kv}; every one arrives. */
    private void delivers(int n, String... kv) throws Exception {
        try (Subscriber sub = driver.openSubscriber(spec(broker.sslUri(), kv));
             Publisher pub = driver.openPublisher(spec(broker.sslUri(), kv).withDestination(sub.destination()));
             BacklogProbe probe = driver.openBacklogProbe(spec(broker.sslUri(), kv), sub.destination())) {
            assertEquals(0, probe.depth(), "the probe's Admin reads over TLS too");
            assertTrue(sub.serverInfo().get("tls").contains("verified"), sub.serverInfo().toString());
            ByteBuffer buf = driver.allocatePayload(64);
            for (int i = 0; i < n; i++) {
                WireHeader.writeSendTime(buf, 0, System.nanoTime());
                WireHeader.writeSequence(buf, 0, i);
                pub.send(buf, 0, 64);
            }
            pub.drain(30_000);
            AtomicInteger got = new AtomicInteger();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (got.get() < n && System.nanoTime() < deadline) {
                sub.poll((b, off) -> assertEquals(got.getAndIncrement(), WireHeader.sequence(b, off)), 200);
            }
            assertEquals(n, got.get(), "messages received over TLS");
        }
    }

    @Test
    void tlsCaTrustsTheBrokersCertificateAndEveryClientGetsIt() throws Exception {
        delivers(500, "tls_ca", ca());
    }

    @Test
    void tlsVerifyFalseTakesAnyCertificate() throws Exception {
        delivers(50, "tls_verify", "false");
    }

    /** The subscriber (its Admin first) fails at once with one line saying TLS and why; exit 1 in a run. */
    private Fault refused(String uri, String... kv) {
        Fault f = assertThrows(Fault.class, () -> driver.openSubscriber(spec(uri, kv)).close());
        assertEquals(Fault.Kind.CONNECT_FAILED, f.kind(), f.getMessage());
        assertTrue(f.getMessage().startsWith("TLS with Kafka at "), f.getMessage());
        assertFalse(f.getMessage().contains("\n"), f.getMessage());
        return f;
    }

    @Test
    void anUntrustedCertificateOrHostNameIsAOneLineFault() throws Exception {
        Fault f = refused(broker.sslUri(), "tls_ca", dir.resolve("other.pem").toString(), "tls_verify", "true");
        assertTrue(f.getMessage().contains("certification path"), f.getMessage());
        f = refused(broker.sslUri());
        assertTrue(f.getMessage().contains("JVM's trust store"), f.getMessage());
        f = refused("kafka+ssl://localhost:" + broker.sslPort(), "tls_ca", ca()); // it names 127.0.0.1 only
        assertTrue(f.getMessage().contains("localhost"), f.getMessage());
        // a publisher alone (to a topic of its own) says the same
        Fault p = assertThrows(Fault.class, () -> driver.openPublisher(spec(broker.sslUri(), "tls_ca",
                dir.resolve("other.pem").toString()).withDestination("msgscope-tls-none")).close());
        assertTrue(p.getMessage().startsWith("TLS with Kafka at "), p.getMessage());
    }

    @Test
    void badTlsOptionsNameTheirOption() throws Exception {
        SpecException e = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec(broker.uri(), "tls_ca", ca())));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
        e = assertThrows(SpecException.class, () -> driver.checkOptions(spec(broker.uri(), "tls_verify", "false")));
        assertEquals("--opt tls_verify", e.option(), e::getMessage);
        e = assertThrows(SpecException.class, () -> driver.checkOptions(spec(broker.sslUri(), "tls_verify", "maybe")));
        assertEquals("--opt tls_verify", e.option(), e::getMessage);
        e = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec(broker.sslUri(), "tls_ca", dir.resolve("nope.pem").toString())));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
        Files.writeString(dir.resolve("empty.pem"), "");
        e = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec(broker.sslUri(), "tls_ca", dir.resolve("empty.pem").toString())));
        assertEquals("--opt tls_ca", e.option(), e::getMessage);
        assertEquals(java.util.List.of("h:9093"), KafkaSettings.servers("KAFKA+SSL://h"));
    }
}

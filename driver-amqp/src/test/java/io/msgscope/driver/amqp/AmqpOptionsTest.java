package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Option parsing and the combinations refused before any connection is made. */
class AmqpOptionsTest {
    private static DriverSpec spec(Map<String, String> opts) {
        return new DriverSpec("", 0, "", 64, 0, opts, "");
    }

    private static SpecException refused(Map<String, String> opts) {
        return assertThrows(SpecException.class, () -> AmqpOptions.of(spec(opts)));
    }

    @Test
    void defaultsAreTheSeedsPlainSetUp() {
        AmqpOptions o = AmqpOptions.of(spec(Map.of()));
        assertEquals(new AmqpOptions(false, 0, false, false, false, 0, 0, 1, false, "", "amq.topic", "", false, AmqpOptions.QueueType.CLASSIC, false, null), o);
        assertFalse(o.routed(), "run and throughput modes: the default exchange and the queue's name (A1)");
    }

    /** Consumer transactions without a prefetch get a bound, else amqp-client's work pool and tx.commit deadlock. */
    @Test
    void consumerTransactionsBoundAnUnlimitedPrefetch() {
        assertEquals(0, AmqpOptions.of(spec(Map.of())).effectivePrefetch());
        assertEquals(510, AmqpOptions.of(spec(Map.of("tx_size", "10"))).effectivePrefetch());
        assertEquals(100, AmqpOptions.of(spec(Map.of("tx_size", "10", "prefetch", "100"))).effectivePrefetch());
        assertEquals(65_535, AmqpOptions.of(spec(Map.of("tx_size", "65035"))).effectivePrefetch());
        assertEquals(0, AmqpOptions.of(spec(Map.of("tx_size", "65036"))).effectivePrefetch(),
                "no bound the consumer could not commit under");
    }

    @Test
    void everyOptionIsRead() {
        AmqpOptions o = AmqpOptions.of(spec(Map.of("tx_size", "10", "mandatory", "true", "immediate", "yes",
                "persistent", "on", "prefetch", "50", "multi_ack", "10")));
        assertEquals(new AmqpOptions(false, 10, true, true, true, 0, 50, 10, false, "", "amq.topic", "", false, AmqpOptions.QueueType.CLASSIC, false, null), o);
        assertEquals(100, AmqpOptions.of(spec(Map.of("confirm", "100"))).confirm());
        assertTrue(AmqpOptions.of(spec(Map.of("auto_ack", "true"))).autoAck());
    }

    /** Issue 19: quorum and stream queues are durable; what they cannot honour is refused naming the option. */
    @Test
    void queueTypesAreReadAndWhatTheyCannotHonourIsRefused() {
        AmqpOptions q = AmqpOptions.of(spec(Map.of("queue_type", "quorum")));
        assertEquals(AmqpOptions.QueueType.QUORUM, q.queueType());
        assertTrue(q.persistent(), "a quorum queue keeps every message on disk: delivery mode 2 says so");
        assertEquals(0, q.effectivePrefetch());
        AmqpOptions st = AmqpOptions.of(spec(Map.of("queue_type", "STREAM")));
        assertEquals(AmqpOptions.QueueType.STREAM, st.queueType());
        assertEquals(AmqpOptions.STREAM_PREFETCH, st.effectivePrefetch(), "a stream consumer needs a prefetch");
        assertEquals(50, AmqpOptions.of(spec(Map.of("queue_type", "stream", "prefetch", "50"))).effectivePrefetch());
        assertEquals(2_500, AmqpOptions.of(spec(Map.of("queue_type", "stream", "tx_size", "2000"))).effectivePrefetch());
        assertEquals(AmqpOptions.QueueType.CLASSIC, AmqpOptions.of(spec(Map.of("queue_type", "classic"))).queueType());

        assertEquals("--opt queue_type", refused(Map.of("queue_type", "lazy")).option());
        SpecException transientQuorum = refused(Map.of("queue_type", "quorum", "persistent", "false"));
        assertEquals("--opt persistent", transientQuorum.option());
        assertTrue(transientQuorum.getMessage().contains("quorum"), transientQuorum.getMessage());
        assertEquals("--opt persistent", refused(Map.of("queue_type", "stream", "persistent", "false")).option());
        assertEquals("--opt immediate", refused(Map.of("queue_type", "quorum", "immediate", "true")).option());
        assertEquals("--opt auto_ack", refused(Map.of("queue_type", "stream", "auto_ack", "true")).option());
        assertEquals("--opt group", refused(Map.of("queue_type", "stream", "topic", "a.b", "group", "g")).option());
        // what a quorum queue can do stays allowed
        AmqpOptions.of(spec(Map.of("queue_type", "quorum", "auto_ack", "true")));
        AmqpOptions.of(spec(Map.of("queue_type", "quorum", "topic", "a.b", "group", "g")));
    }

    @Test
    void badValuesAndUnknownKeysNameTheOption() {
        assertEquals("--opt confirm", refused(Map.of("confirm", "-1")).option());
        assertEquals("--opt auto_ack", refused(Map.of("auto_ack", "maybe")).option());
        assertEquals("--opt prefetch", refused(Map.of("prefetch", "70000")).option());
        assertEquals("--opt multi_ack", refused(Map.of("multi_ack", "0")).option());
        SpecException e = refused(Map.of("qos", "1"));
        assertEquals("--opt qos", e.option());
        assertTrue(e.getMessage().contains("tx_size"), e.getMessage());
    }

    @Test
    void incompatibleCombinationsAreRefused() {
        assertEquals("--opt confirm", refused(Map.of("tx_size", "10", "confirm", "100")).option());
        assertEquals("--opt tx_size", refused(Map.of("auto_ack", "true", "tx_size", "10")).option());
        assertEquals("--opt multi_ack", refused(Map.of("auto_ack", "true", "multi_ack", "10")).option());
        assertEquals("--opt prefetch", refused(Map.of("auto_ack", "true", "prefetch", "10")).option());
        assertEquals("--opt prefetch", refused(Map.of("prefetch", "5", "multi_ack", "10")).option());
        assertEquals("--opt prefetch", refused(Map.of("prefetch", "5", "tx_size", "10")).option());
    }

    @Test
    void topicRoutingOptions() {
        AmqpOptions o = AmqpOptions.of(spec(Map.of("topic", "a.b", "exchange", "prices", "group", "workers")));
        assertTrue(o.routed());
        assertEquals("a.b", o.topic());
        assertEquals("prices", o.exchange());
        assertEquals("workers", o.group());
        assertEquals("--opt exchange", refused(Map.of("exchange", "prices")).option(), "exchange without topic");
        assertEquals("--opt group", refused(Map.of("group", "workers")).option(), "group without topic");
        assertEquals("--opt group", refused(Map.of("topic", "t", "group", "amq.workers")).option());
        assertEquals("--opt topic", refused(Map.of("topic", "")).option());
        assertEquals("--opt topic", refused(Map.of("topic", "x".repeat(256))).option());
        assertEquals("--opt exchange", refused(Map.of("topic", "t", "exchange", "é".repeat(128))).option(),
                "256 bytes of UTF-8");
    }

    @Test
    void ioIsBlockingUnlessNioIsAsked() {
        assertFalse(AmqpOptions.of(spec(Map.of())).nio(), "run and throughput: one connection per side");
        assertTrue(AmqpOptions.of(spec(Map.of("io", "NIO"))).nio());
        assertFalse(AmqpOptions.of(spec(Map.of("io", "blocking"))).nio());
        SpecException e = refused(Map.of("io", "netty"));
        assertEquals("--opt io", e.option());
        assertEquals("--opt io: must be nio (shared I/O threads) or blocking (a thread per connection), got 'netty'",
                e.getMessage());
    }

    /** Q6: a loss fails the run only where confirms (or transactions) and manual acks make delivery a promise. */
    @Test
    void deliveryIsAPromiseWithConfirmsOrTransactionsAndManualAcks() {
        assertFalse(AmqpOptions.of(spec(Map.of())).reliable(), "fire-and-forget publishes");
        assertTrue(AmqpOptions.of(spec(Map.of("confirm", "100"))).reliable());
        assertTrue(AmqpOptions.of(spec(Map.of("tx_size", "10"))).reliable());
        assertFalse(AmqpOptions.of(spec(Map.of("confirm", "100", "auto_ack", "true"))).reliable(),
                "auto-ack: the broker forgets a message as it sends it");
        assertTrue(AmqpOptions.of(spec(Map.of("confirm", "1", "persistent", "true"))).reliable());
    }

    /** basic.publish, the content header, and the body in frames of frameMax - 8 bytes. */
    @Test
    void framesPerMessage() {
        assertEquals(3, BodyArrays.frames(64, 131_072));
        assertEquals(3, BodyArrays.frames(131_064, 131_072));
        assertEquals(4, BodyArrays.frames(131_065, 131_072));
        assertEquals(2, BodyArrays.frames(0, 131_072));
        assertEquals(3, BodyArrays.frames(64 << 20, 0), "frameMax 0: no limit");
        assertEquals(514, BodyArrays.frames(64 << 20, 131_072 + 8), "64 MiB in 512 bodies of 131,072 bytes");
    }

    @Test
    void uriProblemsNameTheUriAndHideThePassword() {
        AmqpOptions o = AmqpOptions.of(spec(Map.of()));
        SpecException e = assertThrows(SpecException.class, () -> AmqpConnections.factory(
                new DriverSpec("", 0, "http://guest:s3cret@host/", 64, 0, Map.of(), ""), o));
        assertEquals("--uri", e.option());
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        SpecException tls = assertThrows(SpecException.class, () -> AmqpConnections.factory(
                new DriverSpec("", 0, "amqp://h/", 64, 0, Map.of("tls_verify", "true"), ""),
                AmqpOptions.of(spec(Map.of("tls_verify", "true")))));
        assertEquals("--opt tls_verify", tls.option());
        assertEquals("amqp://u:****@h:1/v", AmqpConnections.redact("amqp://u:pw@h:1/v"));
    }

    @Test
    void addressHasNoCredentialsAndDefaultsToTheLocalBroker() {
        var f = AmqpConnections.factory(spec(Map.of()), AmqpOptions.of(spec(Map.of())));
        assertEquals("amqp://127.0.0.1:5672/%2f", AmqpConnections.address(f));
        var g = AmqpConnections.factory(new DriverSpec("", 0, "amqps://u:p@broker.example/test", 64, 0,
                Map.of(), ""), AmqpOptions.of(spec(Map.of())));
        assertEquals("amqps://broker.example:5671/test", AmqpConnections.address(g));
    }

    @Test
    void payloadIsAHeapLittleEndianBuffer() {
        ByteBuffer b = new AmqpDriver().allocatePayload(64);
        assertTrue(b.hasArray());
        assertEquals(64, b.array().length);
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
        assertEquals(AmqpOptions.KEYS, new AmqpDriver().optionKeys());
    }
}

package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver against both brokers: the real RabbitMQ on 127.0.0.1:5672 and an embedded Qpid Broker-J
 * (issue 4). Every option, every fault the issue lists, each with a one-line message.
 */
class AmqpDriverIT {
    private static final int N = 2_000;
    private static final int SIZE = 64;
    private static final ExecutorService SENDER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "test-sender");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        SENDER.shutdownNow();
    }

    private static DriverSpec spec(String uri, Map<String, String> opts) {
        return new DriverSpec("", 0, uri, SIZE, 0, opts, "");
    }

    /** Checks that sequences arrive exactly once and in order: the n-th delivery carries n. */
    static final class InOrder implements MessageHandler {
        long received;
        long wrong;
        long firstWrongAt = -1;

        @Override
        public void onMessage(ByteBuffer buffer, int offset) {
            long seq = WireHeader.sequence(buffer, offset);
            if (seq != received) {
                if (wrong++ == 0) {
                    firstWrongAt = received;
                }
            }
            received++;
        }
    }

    record Outcome(long received, long wrong, Map<String, Long> publisher, Map<String, Long> subscriber,
                   double msgPerS) {
    }

    /** Subscriber first (it creates the queue), then the publisher to its queue; N messages; drain. */
    private static Outcome roundTrip(String uri, Map<String, String> opts, int batch) throws Exception {
        AmqpDriver d = new AmqpDriver();
        InOrder h = new InOrder();
        Map<String, Long> pubCounters;
        long t0;
        long t1;
        try (Subscriber sub = d.openSubscriber(spec(uri, opts))) {
            assertQueueName(uri, opts, sub.destination());
            assertEquals(0, sub.poll(h, 0)); // registers the handler and starts basic.consume
            try (Publisher pub = d.openPublisher(spec(uri, opts).withDestination(sub.destination()))) {
                ByteBuffer buf = d.allocatePayload(SIZE * batch);
                t0 = System.nanoTime();
                Future<Map<String, Long>> sending = SENDER.submit(() -> {
                    for (int i = 0; i < N; i += batch) {
                        for (int j = 0; j < batch; j++) {
                            WireHeader.writeSequence(buf, j * SIZE, i + j);
                        }
                        pub.send(buf, 0, batch * SIZE);
                    }
                    pub.drain(30_000);
                    return pub.counters();
                });
                long got = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (got < N && System.nanoTime() < deadline) {
                    int n = sub.poll(h, 50);
                    assertTrue(n >= 0, () -> "poll returned -1: " + ((AmqpSubscriber) sub).closeReason());
                    got += n;
                }
                t1 = System.nanoTime();
                pubCounters = sending.get(60, TimeUnit.SECONDS);
                assertEquals(0, sub.poll(h, 100), "no more than N deliveries");
            }
            return new Outcome(h.received, h.wrong, pubCounters, sub.counters(), N / ((t1 - t0) / 1e9));
        }
    }

    /**
     * A classic queue is named by the broker (RabbitMQ: "amq.gen-" and more; Broker-J: a name of its own), a
     * quorum or stream queue by the driver: "msgscope-TYPE-" and a hexadecimal number.
     */
    private static void assertQueueName(String uri, Map<String, String> opts, String queue) {
        String type = opts.getOrDefault("queue_type", "classic");
        if (!type.equals("classic")) {
            assertTrue(queue.matches("msgscope-" + type + "-[0-9a-f]+"), queue);
        } else if (uri.contains("127.0.0.1:5672/")) {
            assertTrue(queue.startsWith("amq.gen-") && queue.length() > "amq.gen-".length(), queue);
        } else {
            assertTrue(!queue.isBlank() && !queue.startsWith("msgscope-"), queue);
        }
    }

    static List<Arguments> variants() {
        List<Arguments> a = new ArrayList<>();
        for (Broker b : Broker.values()) {
            a.add(Arguments.of(b, Map.of()));
            a.add(Arguments.of(b, Map.of("auto_ack", "true")));
            // consumer transactions: with an explicit prefetch, and (RabbitMQ) without one, where the driver
            // bounds it itself (AmqpOptions.effectivePrefetch: an unbounded one stalled a tx.commit)
            a.add(Arguments.of(b, Map.of("tx_size", "10", "prefetch", "100")));
            if (b == Broker.RABBITMQ) {
                a.add(Arguments.of(b, Map.of("tx_size", "10")));
                // issue 19: RabbitMQ's durable queue types
                a.add(Arguments.of(b, Map.of("queue_type", "quorum")));
                a.add(Arguments.of(b, Map.of("queue_type", "quorum", "confirm", "100", "prefetch", "200")));
                a.add(Arguments.of(b, Map.of("queue_type", "quorum", "auto_ack", "true")));
                a.add(Arguments.of(b, Map.of("queue_type", "stream")));
                a.add(Arguments.of(b, Map.of("queue_type", "stream", "confirm", "100", "multi_ack", "10")));
                a.add(Arguments.of(b, Map.of("queue_type", "stream", "io", "blocking")));
            }
            a.add(Arguments.of(b, Map.of("persistent", "true")));
            a.add(Arguments.of(b, Map.of("confirm", "100")));
            a.add(Arguments.of(b, Map.of("prefetch", "50", "multi_ack", "10")));
            a.add(Arguments.of(b, Map.of("mandatory", "true")));
            a.add(Arguments.of(b, Map.of("persistent", "true", "confirm", "1", "prefetch", "1")));
            // amqp-client's blocking sockets, a reader thread per connection (issue 13: NIO is the default)
            a.add(Arguments.of(b, Map.of("io", "blocking")));
            a.add(Arguments.of(b, Map.of("io", "blocking", "confirm", "100", "tx_size", "0")));
        }
        return a;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("variants")
    void everySequenceArrivesExactlyOnceInOrder(Broker broker, Map<String, String> opts) throws Exception {
        Outcome o = roundTrip(broker.uri(), opts, 1);
        System.out.printf("%s %s: %d msgs, %.0f msg/s, publisher %s, subscriber %s%n", broker, opts, o.received(),
                o.msgPerS(), o.publisher(), o.subscriber());
        assertEquals(N, o.received());
        assertEquals(0, o.wrong(), "deliveries out of order or duplicated");
        assertEquals(0, o.subscriber().get("errors"), o.subscriber().toString());
        assertEquals(0, o.subscriber().get("short_payloads"));
        assertEquals(0, o.subscriber().get("redelivered"));
        assertEquals(0, o.publisher().get("errors"), o.publisher().toString());
        assertEquals(0, o.publisher().get("returned"));
        assertEquals(0, o.publisher().get("messages_nacked"));
        long window = Long.parseLong(opts.getOrDefault("confirm", "0"));
        assertEquals(window > 0 ? N : 0, o.publisher().get("messages_acked"), "publisher confirms");
        long tx = Long.parseLong(opts.getOrDefault("tx_size", "0"));
        assertEquals(tx > 0 ? N / tx : 0, o.publisher().get("producer_tx_commits"), "producer transactions");
        assertEquals(tx > 0 ? N / tx : 0, o.subscriber().get("consumer_tx_commits"), "consumer transactions");
    }

    /** Issue 19: a quorum or stream queue is named, durable, of its type, and gone once the subscriber closed. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"quorum", "stream"})
    void aDurableQueueTypeIsDeclaredAsSuchAndDeletedWhenTheSubscriberCloses(String type) throws Exception {
        AmqpDriver d = new AmqpDriver();
        String uri = Broker.RABBITMQ.uri();
        String queue;
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(uri);
        try (Connection c = f.newConnection()) {
            try (Subscriber sub = d.openSubscriber(spec(uri, Map.of("queue_type", type)))) {
                queue = sub.destination();
                assertTrue(queue.startsWith("msgscope-" + type + "-"), queue);
                // the broker checks a redeclaration for equivalence: the same type and arguments pass, ...
                c.createChannel().queueDeclare(queue, true, false, false,
                        QueueTypes.arguments(AmqpOptions.QueueType.valueOf(type.toUpperCase(java.util.Locale.ROOT))));
                // ... a transient or auto-delete one is refused
                IOException other = assertThrows(IOException.class, () -> c.createChannel().queueDeclare(queue, false,
                        false, true, null));
                assertTrue(String.valueOf(other.getCause()).contains("PRECONDITION_FAILED"),
                        String.valueOf(other.getCause()));
                assertEquals(0, sub.poll(new InOrder(), 0));
            }
            Channel ch = c.createChannel();
            IOException gone = assertThrows(IOException.class, () -> ch.queueDeclarePassive(queue));
            assertTrue(String.valueOf(gone.getCause()).contains("NOT_FOUND"), String.valueOf(gone.getCause()));
        }
    }

    @Test
    void aDurableQueueTypeOnABrokerWithoutItIsRefusedNamingTheOption() throws Exception {
        AmqpDriver d = new AmqpDriver();
        IOException e = assertThrows(IOException.class,
                () -> d.openSubscriber(spec(Broker.QPID.uri(), Map.of("queue_type", "quorum"))));
        assertTrue(e.getMessage().startsWith("amqp: --opt queue_type=quorum needs RabbitMQ 3.8 or later"),
                e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void severalMessagesPerSendArePublishedOneByOne(Broker broker) throws Exception {
        Outcome o = roundTrip(broker.uri(), Map.of(), 10);
        assertEquals(N, o.received());
        assertEquals(0, o.wrong());
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void warmUpMessagesAreNotCountedAsConfirmedOrReturned(Broker broker) throws Exception {
        AmqpDriver d = new AmqpDriver();
        DriverSpec s = spec(broker.uri(), Map.of("mandatory", "true", "confirm", "100"))
                .withDestination("msgscope-nowhere-" + UUID.randomUUID());
        try (Publisher pub = d.openPublisher(s)) {
            ByteBuffer buf = d.allocatePayload(SIZE);
            for (int i = 0; i < 500; i++) {
                WireHeader.writeSequence(buf, 0, -1 - i); // the sender's warm-up sequences
                pub.send(buf, 0, SIZE);
            }
            for (int i = 0; i < N; i++) {
                WireHeader.writeSequence(buf, 0, i);
                pub.send(buf, 0, SIZE);
            }
            pub.drain(30_000);
            System.out.println(broker + ", 500 warm-up + " + N + " unroutable mandatory, confirm=100: "
                    + pub.counters());
            assertEquals(N, pub.counters().get("messages_acked") + pub.counters().get("messages_nacked"));
            assertEquals(N, pub.counters().get("returned"));
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void mandatoryMessagesToAnUnroutableQueueAreReturned(Broker broker) throws Exception {
        AmqpDriver d = new AmqpDriver();
        DriverSpec s = spec(broker.uri(), Map.of("mandatory", "true"))
                .withDestination("msgscope-nowhere-" + UUID.randomUUID());
        try (Publisher pub = d.openPublisher(s)) {
            ByteBuffer buf = d.allocatePayload(SIZE);
            for (int i = 0; i < N; i++) {
                WireHeader.writeSequence(buf, 0, i);
                pub.send(buf, 0, SIZE);
            }
            pub.drain(30_000);
            assertEquals(N, pub.counters().get("returned"));
            assertEquals(0, pub.counters().get("errors"));
        }
    }

    @Test
    void rabbitMqRefusesImmediateWithOneLine() throws Exception {
        String uri = Broker.RABBITMQ.uri();
        AmqpDriver d = new AmqpDriver();
        try (Subscriber sub = d.openSubscriber(spec(uri, Map.of()));
             Publisher pub = d.openPublisher(spec(uri, Map.of("immediate", "true"))
                     .withDestination(sub.destination()))) {
            ByteBuffer buf = d.allocatePayload(SIZE);
            IOException e = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 10_000; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, SIZE);
                }
                pub.drain(10_000);
            });
            String m = e.getMessage();
            System.out.println("RabbitMQ, immediate=true: " + m);
            assertOneLine(m);
            assertTrue(m.contains("540") && m.contains("NOT_IMPLEMENTED") && m.contains("immediate"), m);
            assertTrue(m.contains("drop --opt immediate"), m);
        }
    }

    @Test
    void qpidReturnsImmediateMessagesWhenNoConsumerIsReady() throws Exception {
        String uri = Broker.QPID.uri();
        AmqpDriver d = new AmqpDriver();
        try (Subscriber sub = d.openSubscriber(spec(uri, Map.of()))) {
            // no poll yet: the queue exists, nobody consumes it
            try (Publisher pub = d.openPublisher(spec(uri, Map.of("immediate", "true"))
                    .withDestination(sub.destination()))) {
                ByteBuffer buf = d.allocatePayload(SIZE);
                for (int i = 0; i < 100; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, SIZE);
                }
                pub.drain(10_000);
                System.out.println("Qpid, immediate=true, no consumer: " + pub.counters());
                assertEquals(100, pub.counters().get("returned"));
                assertEquals(0, pub.counters().get("errors"));
            }
            assertEquals(0, sub.poll(new InOrder(), 200), "returned messages are not queued");
        }
        // with a consumer: each message is either delivered or returned, never both, never lost
        AmqpDriver d2 = new AmqpDriver();
        try (Subscriber sub = d2.openSubscriber(spec(uri, Map.of()))) {
            InOrder h = new InOrder();
            sub.poll(h, 0);
            try (Publisher pub = d2.openPublisher(spec(uri, Map.of("immediate", "true"))
                    .withDestination(sub.destination()))) {
                ByteBuffer buf = d2.allocatePayload(SIZE);
                for (int i = 0; i < N; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, SIZE);
                }
                pub.drain(10_000);
                long returned = pub.counters().get("returned");
                long got = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (got + returned < N && System.nanoTime() < deadline) {
                    got += sub.poll(h, 50);
                }
                got += sub.poll(h, 100);
                System.out.println("Qpid, immediate=true, consumer ready: delivered " + got + ", returned "
                        + returned);
                assertEquals(N, got + returned);
                assertEquals(0, pub.counters().get("errors"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void aWrongPasswordIsOneLineNamingTheBrokerNotThePassword(Broker broker) throws Exception {
        String uri = broker.uriWith("not-the-password", "%2f");
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class,
                () -> new AmqpDriver().openSubscriber(spec(uri, Map.of())));
        double s = (System.nanoTime() - t0) / 1e9;
        String m = e.getMessage();
        System.out.printf("%s, wrong password (%.2f s): %s%n", broker, s, m);
        assertOneLine(m);
        assertFalse(m.contains("not-the-password"), m);
        assertTrue(m.contains("127.0.0.1:"), m);
        assertTrue(m.contains("guest"), m);
        assertTrue(s < 15, "took " + s + " s");
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void aMissingVirtualHostIsOneLine(Broker broker) throws Exception {
        String uri = broker.uriWith("guest", "msgscope-no-such-vhost");
        IOException e = assertThrows(IOException.class,
                () -> new AmqpDriver().openSubscriber(spec(uri, Map.of())));
        String m = e.getMessage();
        System.out.println(broker + ", missing vhost: " + m);
        assertOneLine(m);
        assertTrue(m.contains("msgscope-no-such-vhost"), m);
        assertFalse(m.contains(":guest@"), m);
    }

    @Test
    void anUnreachableBrokerFailsWithinTheConnectTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String uri = "amqp://guest:guest@127.0.0.1:" + port + "/%2f";
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class,
                () -> new AmqpDriver().openPublisher(spec(uri, Map.of()).withDestination("q")));
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("unreachable (%.2f s): %s%n", s, e.getMessage());
        assertOneLine(e.getMessage());
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertTrue(s < AmqpConnections.CONNECT_TIMEOUT_MS / 1000.0 + 1, "took " + s + " s");
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void aQueueDeletedMidRunEndsThePollWithTheReason(Broker broker) throws Exception {
        String uri = broker.uri();
        AmqpDriver d = new AmqpDriver();
        try (Subscriber sub = d.openSubscriber(spec(uri, Map.of()));
             Publisher pub = d.openPublisher(spec(uri, Map.of()).withDestination(sub.destination()))) {
            InOrder h = new InOrder();
            sub.poll(h, 0);
            ByteBuffer buf = d.allocatePayload(SIZE);
            for (int i = 0; i < 100; i++) {
                WireHeader.writeSequence(buf, 0, i);
                pub.send(buf, 0, SIZE);
            }
            long got = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (got < 100 && System.nanoTime() < deadline) {
                got += sub.poll(h, 50);
            }
            assertEquals(100, got);
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(uri);
            try (Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                ch.queueDelete(sub.destination());
            }
            long t0 = System.nanoTime();
            int n;
            do {
                n = sub.poll(h, 50);
            } while (n >= 0 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
            assertEquals(-1, n, "poll must end once the queue is gone");
            String why = ((AmqpSubscriber) sub).closeReason();
            System.out.println(broker + ", queue deleted: " + why);
            assertNotNull(why);
            assertOneLine(why);
            assertTrue(why.contains("deleted") && why.contains(sub.destination()), why);
            assertEquals(1, sub.counters().get("broker_closed"));
            assertEquals(-1, sub.poll(h, 10), "stays closed");
        }
    }

    private static void assertOneLine(String m) {
        assertNotNull(m);
        assertFalse(m.contains("\n") || m.contains("\r"), m);
        assertTrue(m.startsWith("amqp: ") || m.startsWith("the broker"), m);
        assertTrue(m.length() < 400, m);
        assertFalse(m.contains("Exception"), m);
    }
}

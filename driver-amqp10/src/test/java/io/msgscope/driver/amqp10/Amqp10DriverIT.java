package io.msgscope.driver.amqp10;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.test.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQP 1.0 driver against an embedded Qpid Broker-J (AMQP 1.0 plugin) and the local RabbitMQ with
 * rabbitmq_amqp1_0 (enabled by the set-up when off; skipped when RabbitMQ is absent, a failure under CI=true): every
 * message delivered once and in order through the dynamic node, unsettled (every disposition counted) and pre-settled,
 * durable, the receiver's credit respected, push delivery, a node the broker refuses and a port without AMQP 1.0 named
 * in one line.
 */
class Amqp10DriverIT {
    static final int SIZE = 64;

    enum Broker {
        BROKER_J, RABBITMQ;

        String uri() throws Exception {
            return this == RABBITMQ ? RabbitAmqp10.require() : brokerJ().uri();
        }
    }

    private static EmbeddedBrokerJ brokerJ;

    static synchronized EmbeddedBrokerJ brokerJ() throws Exception {
        if (brokerJ == null) {
            brokerJ = EmbeddedBrokerJ.start();
        }
        return brokerJ;
    }

    @AfterAll
    static void stopBroker() throws IOException {
        if (brokerJ != null) {
            brokerJ.close();
        }
    }

    private final Amqp10Driver driver = new Amqp10Driver();

    static DriverSpec spec(String uri, Map<String, String> opts) {
        return new DriverSpec("", 0, uri, SIZE, 0, opts, "");
    }

    /** Records each sequence delivered. */
    static final class Recording implements MessageHandler {
        final List<Long> sequences = new ArrayList<>();

        @Override
        public synchronized void onMessage(ByteBuffer buffer, int offset) {
            sequences.add(WireHeader.sequence(buffer, offset));
        }

        synchronized List<Long> sequences() {
            return new ArrayList<>(sequences);
        }
    }

    static void send(Publisher pub, long first, int n) throws IOException {
        ByteBuffer b = new Amqp10Driver().allocatePayload(SIZE);
        for (long i = first; i < first + n; i++) {
            WireHeader.writeSequence(b, 0, i);
            pub.send(b, 0, SIZE);
        }
    }

    private static List<Long> receive(Subscriber sub, Recording r, int n) throws IOException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        int got = 0;
        while (got < n && System.nanoTime() < deadline) {
            int k = sub.poll(r, 100);
            assertTrue(k >= 0, () -> "the link ended: " + sub.closeReason());
            got += k;
        }
        return r.sequences();
    }

    private static List<Long> expected(long first, int n) {
        List<Long> l = new ArrayList<>();
        for (long i = first; i < first + n; i++) {
            l.add(i);
        }
        return l;
    }

    private void roundTrip(Broker broker, Map<String, String> opts, int n) throws Exception {
        String uri = broker.uri();
        try (Subscriber sub = driver.openSubscriber(spec(uri, opts))) {
            assertFalse(sub.destination().isEmpty(), "the dynamic node is named");
            try (Publisher pub = driver.openPublisher(spec(uri, opts).withDestination(sub.destination()))) {
                send(pub, -10, 10); // warm-up sequences are negative
                send(pub, 0, n);
                pub.drain(30_000);
                Recording r = new Recording();
                assertEquals(expected(-10, n + 10), receive(sub, r, n + 10), "complete and in order");
                Map<String, Long> c = pub.counters();
                if ("true".equals(opts.get(Amqp10Options.SETTLED))) {
                    assertEquals(0, c.getOrDefault("accepted", 0L), c::toString);
                } else {
                    assertEquals(n, c.get("accepted"), c::toString);
                    assertEquals(n, c.get("messages_acked"), c::toString);
                    assertEquals(10, c.get("warmup_acked"), c::toString);
                    assertEquals(0, c.get("rejected") + c.get("released") + c.get("modified"), c::toString);
                }
                assertEquals(0, c.get("publish_errors"), c::toString);
                assertEquals(0, sub.counters().get("errors"));
                assertEquals("AMQP 1.0", sub.serverInfo().get("protocol"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void unsettledTransfersArriveCompleteAndInOrderWithEveryDispositionCounted(Broker broker) throws Exception {
        roundTrip(broker, Map.of(Amqp10Options.MAX_INFLIGHT, "50"), 3_000);
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void preSettledTransfersArriveCompleteAndInOrder(Broker broker) throws Exception {
        roundTrip(broker, Map.of(Amqp10Options.SETTLED, "true"), 3_000);
    }

    /**
     * RabbitMQ only: against the embedded Broker-J (Memory store) durable messages were accepted and never delivered,
     * through a dynamic node and a named queue alike; not understood yet (docs/drivers/amqp10.md, limits).
     */
    @Test
    void durableMessagesArriveCompleteAndInOrder() throws Exception {
        roundTrip(Broker.RABBITMQ, Map.of(Amqp10Options.DURABLE, "true"), 1_000);
    }

    /** With credit 5 and nobody receiving, the client holds 5 deliveries: the broker keeps the rest. */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void theReceiverCreditBoundsWhatTheBrokerSends(Broker broker) throws Exception {
        String uri = broker.uri();
        Map<String, String> opts = Map.of(Amqp10Options.CREDIT, "5");
        try (Amqp10Subscriber sub = (Amqp10Subscriber) driver.openSubscriber(spec(uri, opts));
             Publisher pub = driver.openPublisher(spec(uri, opts).withDestination(sub.destination()))) {
            send(pub, 0, 200);
            pub.drain(30_000);
            Await.until(() -> sub.queued() == 5, 30, "5 deliveries held by the client");
            for (int i = 0; i < 20; i++) {
                assertTrue(sub.queued() <= 5, "more than the credit arrived: " + sub.queued());
                Thread.onSpinWait();
            }
            assertEquals(expected(0, 200), receive(sub, new Recording(), 200));
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void pushDeliveryHandsEveryMessageOverInOrder(Broker broker) throws Exception {
        String uri = broker.uri();
        Map<String, String> opts = Map.of();
        try (Subscriber sub = driver.openSubscriber(spec(uri, opts));
             Publisher pub = driver.openPublisher(spec(uri, opts).withDestination(sub.destination()))) {
            send(pub, 0, 100); // before start: kept by the broker and the client
            Recording r = new Recording();
            List<String> ended = new ArrayList<>();
            sub.start(r, ended::add);
            send(pub, 100, 900);
            pub.drain(30_000);
            Await.until(() -> r.sequences().size() == 1_000, 60, "1,000 messages pushed");
            assertEquals(expected(0, 1_000), r.sequences());
            assertTrue(ended.isEmpty(), ended::toString);
        }
    }

    /** A named node: Broker-J creates msgscope... queues on first use (its policy), RabbitMQ's /queue/ declares. */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void aNamedAddressCarriesTheMessages(Broker broker) throws Exception {
        String uri = broker.uri();
        String node = (broker == Broker.RABBITMQ ? "/queue/" : "") + "msgscope-it-" + ProcessHandle.current().pid();
        Map<String, String> opts = Map.of(Amqp10Options.ADDRESS, node);
        try (Subscriber sub = driver.openSubscriber(spec(uri, opts));
             Publisher pub = driver.openPublisher(spec(uri, opts))) {
            assertEquals(node, sub.destination());
            send(pub, 0, 500);
            pub.drain(30_000);
            assertEquals(expected(0, 500), receive(sub, new Recording(), 500));
        } finally {
            if (broker == Broker.RABBITMQ) { // the plugin's /queue/ queues outlive the link
                RabbitQueues.delete(spec(uri, opts), node.substring("/queue/".length()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void aNodeTheBrokerRefusesIsNamedInOneLine(Broker broker) throws Exception {
        String uri = broker.uri();
        String node = broker == Broker.RABBITMQ ? "/nosuch/kind/x" : "no-such-node-" + ProcessHandle.current().pid();
        Fault f = assertThrows(Fault.class, () -> driver.openSubscriber(spec(uri, Map.of(Amqp10Options.ADDRESS, node))));
        assertEquals(Fault.Kind.REFUSED, f.kind());
        assertOneLine(f.getMessage());
        assertTrue(f.getMessage().contains(node), f.getMessage());
    }

    /** A port that answers with AMQP 0-9-1's header and closes, as RabbitMQ does without rabbitmq_amqp1_0. */
    @Test
    void aBrokerWithoutAmqp10IsNamedInOneLine() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        InputStream in = s.getInputStream();
                        in.readNBytes(8);
                        s.getOutputStream().write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
                        s.getOutputStream().flush();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            Map<String, String> opts = new HashMap<>();
            opts.put(Amqp10Options.OPEN_TIMEOUT_MS, "5000");
            Fault f = assertThrows(Fault.class, () -> driver.openSubscriber(
                    spec("amqp://guest:guest@127.0.0.1:" + server.getLocalPort(), opts)));
            assertOneLine(f.getMessage());
            assertTrue(f.getMessage().contains("rabbitmq_amqp1_0"), f.getMessage());
        }
    }

    static void assertOneLine(String m) {
        assertTrue(m != null && !m.contains("\n") && !m.contains("\r") && m.length() < 500
                && !m.contains("Exception"), () -> "not one clear line: " + m);
    }
}

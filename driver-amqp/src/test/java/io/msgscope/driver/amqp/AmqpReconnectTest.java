package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} on the publishing side (issue 32 item 3), on a simulated broker: fake connections and
 * channels whose confirms (acks, nacks, multiple), losses (the shutdown signal amqp-client sends when the socket goes)
 * and channel closes the test plays in a planned order, while the real {@link AmqpPublisher} publishes. Every count is
 * worked out by hand below: which sequences were confirmed, which went out again, how many reconnects.
 */
class AmqpReconnectTest {
    private static final int SIZE = 64;

    /** One simulated connection with one channel: what was published on it, the listeners it was given. */
    static final class FakeLink {
        final List<Long> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<ShutdownListener> shutdown = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<Long> acks = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> consumed = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile com.rabbitmq.client.Consumer consumer;
        volatile ConfirmListener confirms;
        ShutdownSignalException closedBy;
        final Connection connection;
        final Channel channel;

        FakeLink() {
            connection = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "getFrameMax" -> 131_072;
                        case "isOpen" -> closedBy == null;
                        case "getCloseReason" -> closedBy;
                        case "addShutdownListener" -> shutdown.add((ShutdownListener) args[0]);
                        case "abort", "close" -> {
                            if (closedBy == null) {
                                closedBy = new ShutdownSignalException(true, true, null, proxy);
                            }
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> null;
                    });
            channel = (Channel) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Channel.class},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "isOpen" -> closedBy == null;
                        case "getConnection" -> connection;
                        case "addShutdownListener" -> shutdown.add((ShutdownListener) args[0]);
                        case "addConfirmListener" -> {
                            confirms = (ConfirmListener) args[0];
                            yield null;
                        }
                        case "basicAck" -> {
                            if (closedBy != null) {
                                throw new AlreadyClosedException(closedBy);
                            }
                            acks.add((Long) args[0]);
                            yield null;
                        }
                        case "basicConsume" -> {
                            consumed.add((String) args[0]);
                            consumer = (com.rabbitmq.client.Consumer) args[args.length - 1];
                            yield "ctag";
                        }
                        case "basicPublish" -> {
                            if (closedBy != null) {
                                throw new AlreadyClosedException(closedBy);
                            }
                            byte[] body = (byte[]) args[args.length - 1];
                            published.add(WireHeader.sequence(ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0));
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> null; // confirmSelect, basicQos, addReturnListener, ...
                    });
        }

        /** The socket is gone: amqp-client's signal (a hard error with no close method) to every listener. */
        void lose() {
            closedBy = new ShutdownSignalException(true, false, null, connection);
            for (ShutdownListener l : List.copyOf(shutdown)) {
                l.shutdownCompleted(closedBy);
            }
        }

        /** The broker closes the channel for a cause of the run's own: 404 NOT_FOUND. */
        void closeChannel(int code) {
            closedBy = new ShutdownSignalException(false, false,
                    new AMQP.Channel.Close.Builder().replyCode(code).replyText("NOT_FOUND - no exchange").build(), channel);
            for (ShutdownListener l : List.copyOf(shutdown)) {
                l.shutdownCompleted(closedBy);
            }
        }

        AmqpReconnect.Link link() {
            return new AmqpReconnect.Link(connection, channel, null);
        }
    }

    private final List<FakeLink> links = new java.util.concurrent.CopyOnWriteArrayList<>();

    private AmqpPublisher publisher(Map<String, String> opts) throws IOException {
        AmqpOptions o = AmqpOptions.of(new DriverSpec("", 0, "", SIZE, 0, opts, "q"));
        links.add(new FakeLink());
        AmqpReconnect.Opener reopen = () -> {
            FakeLink l = new FakeLink();
            links.add(l);
            return l.link();
        };
        return new AmqpPublisher(o, "amqp://fake:5672/%2f", links.get(0).link(), reopen, "", "q", SIZE);
    }

    private static void send(AmqpPublisher p, long... seqs) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE * seqs.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < seqs.length; i++) {
            WireHeader.writeSequence(b, i * SIZE, seqs[i]);
        }
        p.send(b, 0, b.capacity());
    }

    @Test
    void nackedAndOutstandingMessagesGoOutAgainAfterALostConnection() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "100", "persistent", "true"));
        FakeLink one = links.get(0);
        send(p, -2, -1); // warm-up: tags 1-2, neither counted nor republished
        send(p, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9); // tags 3-12
        one.confirms.handleAck(5, true); // tags 1-5: warm-up and seq 0, 1, 2
        one.confirms.handleNack(7, false); // seq 4
        one.confirms.handleAck(6, false); // seq 3
        send(p, 10); // seq 4 goes out again first (tag 13), then seq 10 (tag 14)
        assertEquals(List.of(-2L, -1L, 0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 4L, 10L), one.published);
        one.confirms.handleAck(8, false); // seq 5
        one.lose(); // outstanding: seq 6, 7, 8, 9 (tags 9-12), 4 (13), 10 (14)
        send(p, 11); // refused by the lost channel (nothing written): reconnect, the six go out again, then seq 11
        assertEquals(2, links.size(), "one reconnect");
        FakeLink two = links.get(1);
        assertEquals(List.of(6L, 7L, 8L, 9L, 4L, 10L, 11L), two.published);
        two.confirms.handleAck(7, true);
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(12, c.get("messages_confirmed"), c::toString); // seq 0-11
        assertEquals(0, c.get("messages_unconfirmed"), c::toString);
        assertEquals(7, c.get("messages_republished"), c::toString); // seq 4 after its nack, the six after the loss
        assertEquals(1, c.get("publisher_reconnects"), c::toString);
        assertEquals(12, c.get("messages_acked"), c::toString); // measured acks: 3 + 1 + 1 on the first, 7 on the second
        assertEquals(1, c.get("messages_nacked"), c::toString);
        assertEquals(0, c.get("errors"), c::toString); // a survived loss is a reconnect, not an error
        assertTrue(p.confirms());
        assertArrayEquals(new long[0], p.unconfirmed());
    }

    @Test
    void whatIsNeverConfirmedIsCountedUnconfirmedByRange() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "10"));
        FakeLink one = links.get(0);
        send(p, 0, 1, 2, 3, 4);
        one.confirms.handleAck(2, true); // seq 0, 1
        one.lose();
        send(p, 5); // reconnect; seq 2, 3, 4, 5 on the second link
        FakeLink two = links.get(1);
        assertEquals(List.of(2L, 3L, 4L, 5L), two.published);
        two.confirms.handleAck(1, false); // seq 2
        two.confirms.handleAck(4, false); // seq 5
        p.drain(50); // seq 3 and 4 never confirmed: counted, not thrown
        Map<String, Long> c = p.counters();
        assertEquals(4, c.get("messages_confirmed"), c::toString);
        assertEquals(2, c.get("messages_unconfirmed"), c::toString);
        assertEquals(3, c.get("messages_republished"), c::toString); // seq 2, 3, 4 (seq 5 had not gone out)
        assertEquals(1, c.get("publisher_reconnects"), c::toString);
        assertArrayEquals(new long[] {3, 5}, p.unconfirmed());
    }

    @Test
    void aLostConnectionDuringTheDrainIsSurvivedToo() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "10"));
        FakeLink one = links.get(0);
        send(p, 0, 1, 2);
        one.lose();
        Thread acker = new Thread(() -> {
            while (links.size() < 2 || links.get(1).confirms == null || links.get(1).published.size() < 3) {
                Thread.onSpinWait();
            }
            try {
                links.get(1).confirms.handleAck(3, true);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        acker.start();
        p.drain(5_000);
        Map<String, Long> c = p.counters();
        assertEquals(3, c.get("messages_confirmed"), c::toString);
        assertEquals(0, c.get("messages_unconfirmed"), c::toString);
        assertEquals(3, c.get("messages_republished"), c::toString);
        assertEquals(1, c.get("publisher_reconnects"), c::toString);
    }

    @Test
    void aChannelClosedByTheBrokerIsNotSurvived() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "10"));
        FakeLink one = links.get(0);
        send(p, 0);
        one.closeChannel(404);
        IOException e = assertThrows(IOException.class, () -> send(p, 1));
        assertTrue(e.getMessage().contains("404"), e.getMessage());
        assertEquals(1, links.size(), "no reconnect for a refusal that would come again");
        assertEquals(1, p.counters().get("errors"));
        assertEquals(0, p.counters().get("publisher_reconnects"));
    }

    @Test
    void withoutReconnectALostConnectionEndsTheRunAndConfirmsAreStillCounted() throws IOException {
        AmqpPublisher p = publisher(Map.of("confirm", "10"));
        FakeLink one = links.get(0);
        send(p, 0, 1);
        one.confirms.handleAck(1, false);
        one.lose();
        assertThrows(IOException.class, () -> p.drain(1_000));
        Map<String, Long> c = p.counters();
        assertEquals(1, c.get("messages_confirmed"), c::toString);
        assertEquals(1, c.get("messages_unconfirmed"), c::toString);
        assertFalse(c.containsKey("publisher_reconnects"), c::toString);
        assertArrayEquals(new long[] {1, 2}, p.unconfirmed());
    }

    /** Auto-ack forgets what it delivers: loss is allowed and counted, no confirmed message is a promise. */
    @Test
    void withAutoAckNothingConfirmedIsAPromise() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "10", "auto_ack", "true"));
        send(p, 0);
        links.get(0).confirms.handleAck(1, false);
        assertFalse(p.confirms());
        assertNull(p.unconfirmed());
        assertEquals(1, p.counters().get("messages_confirmed"));
    }

    /** A comma-separated list of nodes: each reconnect goes to the next one, round the list. */
    @Test
    void aListOfNodesIsTriedInTurn() {
        Map<String, String> on = Map.of("reconnect", "true");
        DriverSpec spec = new DriverSpec("", 0, "amqp://u:p@a:5672/%2f, amqp://u:p@b:5673/%2f", SIZE, 0, on, "q");
        AmqpOptions o = AmqpOptions.of(spec);
        AmqpReconnect.Nodes nodes = new AmqpReconnect.Nodes(AmqpConnections.nodes(spec, o));
        List<String> tried = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            com.rabbitmq.client.Address a = nodes.next();
            tried.add(a.getHost() + ":" + a.getPort());
        }
        assertEquals(List.of("a:5672", "b:5673", "a:5672"), tried);
        assertEquals("a", AmqpConnections.factory(spec, o).getHost(), "the first node is connected first");
        DriverSpec one = new DriverSpec("", 0, "amqp://u:p@a:5672/%2f", SIZE, 0, on, "q");
        assertNull(new AmqpReconnect.Nodes(AmqpConnections.nodes(one, o)).next(), "one node: the factory's own");

        DriverSpec off = new DriverSpec("", 0, "amqp://u:p@a:5672/%2f,amqp://u:p@b:5673/%2f", SIZE, 0, Map.of(), "q");
        SpecException e = assertThrows(SpecException.class,
                () -> AmqpConnections.factory(off, AmqpOptions.of(off)));
        assertTrue(e.getMessage().contains("--uri") && e.getMessage().contains("--opt reconnect=true"), e.getMessage());
        DriverSpec mixed = new DriverSpec("", 0, "amqp://u:p@a:5672/%2f,amqp://u:other@b:5673/%2f", SIZE, 0, on, "q");
        e = assertThrows(SpecException.class, () -> AmqpConnections.factory(mixed, o));
        assertTrue(e.getMessage().contains("differ only in host and port"), e.getMessage());
        assertFalse(e.getMessage().contains("other"), "the password is masked: " + e.getMessage());
    }

    private static void deliver(com.rabbitmq.client.Consumer c, long tag, boolean redelivered, long seq)
            throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        WireHeader.writeSequence(b, 0, seq);
        c.handleDelivery("ctag", new com.rabbitmq.client.Envelope(tag, redelivered, "", "q"), null, b.array());
    }

    /**
     * The consuming side: deliveries on the first channel, the connection lost, the next poll reconnects (declaring
     * the queue again through the opener) and consumes again; each delivery is acknowledged on its own channel, a
     * late one of the lost channel on none (the broker redelivers it), and the redelivery is counted.
     */
    @Test
    void aSubscriberGetsItsQueueBackAndAcksEachDeliveryOnItsOwnChannel() throws Exception {
        AmqpOptions o = AmqpOptions.of(new DriverSpec("", 0, "", SIZE, 0, Map.of("reconnect", "true"), ""));
        FakeLink one = new FakeLink();
        links.add(one);
        AmqpReconnect.Opener reopen = () -> {
            FakeLink l = new FakeLink();
            links.add(l);
            return l.link();
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        AmqpSubscriber sub = new AmqpSubscriber(o, "amqp://fake:5672/%2f", one.connection, one.channel,
                new AmqpDispatch(pool), "msgscope-classic-1", SIZE, reopen, null);
        List<Long> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.msgscope.core.driver.MessageHandler h = (buf, off) -> seen.add(WireHeader.sequence(buf, off));
        try {
            assertEquals(0, sub.poll(h, 0));
            assertEquals(List.of("msgscope-classic-1"), one.consumed);
            deliver(sub, 1, false, 0);
            deliver(sub, 2, false, 1);
            one.lose();
            deliver(sub, 3, false, 2); // in amqp-client's queue when the socket went: handed over, not acked
            assertEquals(3, sub.poll(h, 0));
            assertEquals(2, links.size(), "the poll reconnected");
            FakeLink two = links.get(1);
            assertEquals(List.of("msgscope-classic-1"), two.consumed, "the same queue consumed again");
            deliver(two.consumer, 1, true, 2); // the broker delivers seq 2 again
            deliver(two.consumer, 2, false, 3);
            assertEquals(2, sub.poll(h, 0));
            assertEquals(List.of(1L, 2L), one.acks);
            assertEquals(List.of(1L, 2L), two.acks);
            assertEquals(List.of(0L, 1L, 2L, 2L, 3L), seen);
            Map<String, Long> c = sub.counters();
            assertEquals(1, c.get("subscriber_reconnects"), c::toString);
            assertEquals(1, c.get("redelivered"), c::toString);
            assertEquals(0, c.get("errors"), c::toString);
            assertEquals(0, c.get("broker_closed"), c::toString);
            assertNull(sub.closeReason());
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean offer(AmqpPublisher p, long seq) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        WireHeader.writeSequence(b, 0, seq);
        return p.offer(b, 0, SIZE);
    }

    /**
     * Scenario mode's offer (issue 32 item 3): it never waits while the connection is up (a full window refuses), and
     * after a loss the offering pacer gets the connection back and publishes again what it left unconfirmed, ahead of
     * the new message; by hand: a window of 3, seq 0-2 out, seq 0 acked, seq 3 then fits; the loss leaves seq 1, 2, 3
     * outstanding, which go out again on the second link, then seq 4.
     */
    @Test
    void anOfferAfterALostConnectionReconnectsAndRepublishesFirst() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "3"));
        FakeLink one = links.get(0);
        assertTrue(offer(p, 0) && offer(p, 1) && offer(p, 2));
        assertFalse(offer(p, 3), "the window of 3 is full: refused, not waited for");
        one.confirms.handleAck(1, false); // seq 0
        assertTrue(offer(p, 3));
        assertEquals(List.of(0L, 1L, 2L, 3L), one.published);
        one.lose();
        assertEquals(1, links.size(), "nothing reconnects before the next offer");
        assertFalse(offer(p, 4), "reconnected, seq 1-3 out again: the window of 3 is full again");
        assertEquals(2, links.size(), "one reconnect");
        FakeLink two = links.get(1);
        assertEquals(List.of(1L, 2L, 3L), two.published);
        two.confirms.handleAck(3, true); // seq 1, 2, 3
        assertTrue(offer(p, 4));
        two.confirms.handleAck(4, false);
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(5, c.get("messages_confirmed"), c::toString); // seq 0-4
        assertEquals(0, c.get("messages_unconfirmed"), c::toString);
        assertEquals(3, c.get("messages_republished"), c::toString); // seq 1, 2, 3
        assertEquals(1, c.get("publisher_reconnects"), c::toString);
        assertEquals(0, c.get("errors"), c::toString);
    }

    /** A channel the broker closed for a cause of the run's own is not survived by offer either: thrown, no reconnect. */
    @Test
    void anOfferOnAChannelClosedByTheBrokerFailsAsWithoutTheOption() throws IOException {
        AmqpPublisher p = publisher(Map.of("reconnect", "true", "confirm", "3"));
        assertTrue(offer(p, 0));
        links.get(0).closeChannel(404);
        assertThrows(IOException.class, () -> offer(p, 1));
        assertEquals(1, links.size());
        assertEquals(1, p.counters().get("errors"));
    }

    /**
     * Push mode (scenarios): a lost connection is got back on the retry thread, not on amqp-client's, the queue consumed
     * again under its name; two attempts fail (the broker still booting), the third succeeds: one reconnect, and the
     * end is not reported for the survived loss, only for the later 404 channel close (the queue deleted), once.
     */
    @Test
    void aPushModeSubscriberReconnectsOnTheRetryThreadAndReportsOnlyARealEnd() throws Exception {
        AmqpOptions o = AmqpOptions.of(new DriverSpec("", 0, "", SIZE, 0, Map.of("reconnect", "true", "topic", "t"), ""));
        FakeLink one = new FakeLink();
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        AmqpReconnect.Opener reopen = () -> {
            threads.add(Thread.currentThread().getName());
            if (attempts.incrementAndGet() <= 2) {
                throw new IOException("amqp: cannot connect to amqp://fake:5672/%2f: Connection refused");
            }
            FakeLink l = new FakeLink();
            links.add(l);
            return l.link();
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.ScheduledExecutorService retries = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> new Thread(r, "retry"));
        AmqpSubscriber sub = new AmqpSubscriber(o, "amqp://fake:5672/%2f", one.connection, one.channel,
                new AmqpDispatch(pool), "msgscope-classic-2", SIZE, reopen, retries);
        List<Long> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> ends = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            sub.start((buf, off) -> seen.add(WireHeader.sequence(buf, off)), ends::add);
            assertEquals(List.of("msgscope-classic-2"), one.consumed);
            deliver(sub, 1, false, 0);
            one.lose(); // to the channel's and the connection's listeners: one loss, one round of attempts
            long until = System.nanoTime() + 5_000_000_000L;
            while (sub.counters().get("subscriber_reconnects") == 0 && System.nanoTime() < until) {
                Thread.sleep(5); // counted once the queue is consumed again, after the opener's link is made
            }
            assertEquals(1, links.size(), "back at the third attempt");
            assertEquals(3, attempts.get());
            assertEquals(List.of("retry", "retry", "retry"), threads);
            FakeLink two = links.get(0);
            assertEquals(List.of("msgscope-classic-2"), two.consumed, "the same queue consumed again");
            deliver(two.consumer, 1, false, 1);
            assertEquals(List.of(1L), two.acks, "acknowledged on the channel it came on");
            assertEquals(List.of(), ends, "a survived loss is no end");
            assertEquals(1, sub.counters().get("subscriber_reconnects"));
            two.closeChannel(404);
            assertEquals(1, ends.size(), ends::toString);
            assertTrue(ends.get(0).contains("404"), ends::toString);
            assertEquals(List.of(0L, 1L), seen);
            assertEquals(1, sub.counters().get("broker_closed"));
        } finally {
            pool.shutdownNow();
            retries.shutdownNow();
        }
    }

    @Test
    void combinationsItCannotResumeAreRefusedNamingTheOption() {
        SpecException tx = assertThrows(SpecException.class, () -> AmqpOptions.of(new DriverSpec("", 0, "", SIZE, 0,
                Map.of("reconnect", "true", "tx_size", "10"), "q")));
        assertTrue(tx.getMessage().contains("--opt reconnect"), tx.getMessage());
        // routed by topic (scenario mode) it reconnects since issue 32 item 3's scenario part; a stream cannot be
        // read across a reconnect there (its consumers start at the next message): refused, naming queue_type
        assertTrue(AmqpOptions.of(new DriverSpec("", 0, "", SIZE, 0, Map.of("reconnect", "true", "topic", "t"), ""))
                .reconnect());
        assertEquals("nio", AmqpScenarios.INSTANCE.options(io.msgscope.core.scenario.Scenario.FAN_OUT,
                Map.of("reconnect", "true")).get("io"));
        SpecException e = assertThrows(SpecException.class, () -> AmqpScenarios.INSTANCE.options(
                io.msgscope.core.scenario.Scenario.FAN_OUT, Map.of("reconnect", "true", "queue_type", "stream")));
        assertEquals("--opt queue_type", e.option());
        assertTrue(e.getMessage().contains("reconnect") && !e.getMessage().contains("\n"), e.getMessage());
        AmqpDriver d = new AmqpDriver();
        assertTrue(d.whyClientsCannotReconnect(Map.of()).contains("--opt reconnect=true"));
        assertNull(d.whyClientsCannotReconnect(Map.of("reconnect", "true")));
    }
}

package io.msgscope.driver.amqp10;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionRemotelyClosedException;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.apache.qpid.protonj2.client.exceptions.ClientOperationTimedOutException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQP 1.0 publisher's accounting with {@code --opt reconnect=true} (issue 32 item 3), played on a simulated
 * ProtonJ2 sender whose trackers the test settles or fails as ProtonJ2 does when a connection is lost ("send result
 * is unknown"), every count worked out by hand; and the option's checks.
 */
class Amqp10ReconnectTest {
    private static final int SIZE = 32;

    /** A tracker the test settles (accepted) or fails (the connection lost) by hand. */
    static final class FakeTracker implements Tracker {
        final long seq;
        final CompletableFuture<Tracker> settlement = new CompletableFuture<>();
        volatile DeliveryState state;

        FakeTracker(long seq) {
            this.seq = seq;
        }

        void accept() {
            state = DeliveryState.accepted();
            settlement.complete(this);
        }

        void lose() {
            settlement.completeExceptionally(new ClientConnectionRemotelyClosedException(
                    "Connection failed and send result is unknown"));
        }

        @Override
        public boolean settled() {
            return settlement.isDone() && !settlement.isCompletedExceptionally();
        }

        @Override
        public boolean remoteSettled() {
            return settled();
        }

        @Override
        public DeliveryState remoteState() {
            return state;
        }

        @Override
        public Future<Tracker> settlementFuture() {
            return settlement;
        }

        @Override
        public Tracker awaitSettlement(long timeout, TimeUnit unit) throws ClientException {
            try {
                return settlement.get(timeout, unit);
            } catch (ExecutionException e) {
                throw (ClientException) e.getCause();
            } catch (TimeoutException e) {
                throw new ClientOperationTimedOutException("not yet");
            } catch (InterruptedException e) {
                throw new ClientException("interrupted", e);
            }
        }

        @Override
        public Tracker awaitSettlement() throws ClientException {
            return awaitSettlement(1, TimeUnit.DAYS);
        }

        @Override
        public Sender sender() {
            return null;
        }

        @Override
        public Tracker settle() {
            return this;
        }

        @Override
        public DeliveryState state() {
            return null;
        }

        @Override
        public Tracker disposition(DeliveryState s, boolean settle) {
            return this;
        }

        @Override
        public Tracker awaitAccepted() {
            return this;
        }

        @Override
        public Tracker awaitAccepted(long timeout, TimeUnit unit) {
            return this;
        }
    }

    /** The simulated link: every send makes a tracker; {@code refuseNext} sends fail as a lost connection's do. */
    static final class FakeLink {
        final List<FakeTracker> trackers = new ArrayList<>();
        int refuseNext;
        /** Offers ({@code trySend}) refused next for want of credit, as by a link re-attached after a loss. */
        int noCreditNext;
        /** Every transfer from now on accepted at once, as a broker that answers before the next send. */
        boolean acceptAtOnce;

        Sender sender() {
            return (Sender) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Sender.class},
                    (proxy, method, args) -> {
                        if (method.getDeclaringClass() == Object.class) {
                            return method.getName().equals("equals") ? proxy == args[0]
                                    : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "FakeSender";
                        }
                        if (!method.getName().equals("send") && !method.getName().equals("trySend")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        if (method.getName().equals("trySend") && noCreditNext > 0) {
                            noCreditNext--;
                            return null;
                        }
                        if (refuseNext > 0) { // as ProtonJ2 fails a send that meets the dead transport
                            refuseNext--;
                            throw new ClientException("java.io.IOException: Cannot send to a non-connected transport.",
                                    new java.io.UncheckedIOException(new IOException("Cannot send")));
                        }
                        byte[] body = (byte[]) ((Message<?>) args[0]).body();
                        FakeTracker t = new FakeTracker(WireHeader.sequence(
                                ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0));
                        trackers.add(t);
                        if (acceptAtOnce) {
                            t.accept();
                        }
                        return t;
                    });
        }

        long[] sentSeqs() {
            return trackers.stream().mapToLong(t -> t.seq).toArray();
        }

        void acceptAll() {
            trackers.stream().filter(t -> !t.settlement.isDone()).forEach(FakeTracker::accept);
        }
    }

    private static Amqp10Options options(String... kv) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return Amqp10Options.of(new DriverSpec("", 0, "", SIZE, 0, m, ""));
    }

    private static Amqp10Publisher publisher(FakeLink link, Amqp10Reconnect.Events events, Amqp10Options o)
            throws ClientException {
        return new Amqp10Publisher(o, new Amqp10Connections.Opened(null, null, "amqp://127.0.0.1:5672", events),
                link.sender(), "/queue/q", SIZE);
    }

    private static void send(Amqp10Publisher p, long seq) throws IOException {
        ByteBuffer b = new Amqp10Driver().allocatePayload(SIZE);
        WireHeader.writeSequence(b, 0, seq);
        p.send(b, 0, SIZE);
    }

    @Test
    void transfersALostConnectionLeftUnsettledAreSentAgainAndEveryMessageEndsConfirmed() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Reconnect.Events events = new Amqp10Reconnect.Events();
        Amqp10Publisher p = publisher(link, events, options("reconnect", "true", "max_inflight", "4"));
        for (long s = 0; s < 4; s++) {
            send(p, s); // slots 0-3
        }
        link.trackers.get(0).accept();
        link.trackers.get(1).accept();
        link.trackers.get(2).lose(); // the connection went with 2 and 3 unsettled
        link.trackers.get(3).lose();
        events.interrupted();
        events.reconnected();
        send(p, 4); // first 2 and 3 again, oldest first; then slot 0 (seq 0, accepted) is retired and takes 4
        assertArrayEquals(new long[] {0, 1, 2, 3, 2, 3, 4}, link.sentSeqs());
        // lost again: a send meets the dead transport before a byte went out; made again once the connection is back
        // and what the loss left was sent again (nothing: 2, 3 and 4 are still unsettled on the new link), not counted
        link.refuseNext = 1;
        Thread back = new Thread(() -> {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
            events.reconnected();
        });
        back.start();
        send(p, 5); // slot 1 (seq 1, accepted) retired; 5 refused, then sent after the second reconnect
        back.join();
        link.trackers.get(4).accept(); // 2 sent again, accepted: its slot takes 6
        link.noCreditNext = 3; // no credit for a while: offered again until it is taken, not counted
        send(p, 6);
        assertArrayEquals(new long[] {0, 1, 2, 3, 2, 3, 4, 5, 6}, link.sentSeqs());
        link.acceptAll();
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(7, c.get("messages_confirmed"), c::toString);
        assertEquals(0, c.get("messages_unconfirmed"), c::toString);
        assertEquals(2, c.get("messages_republished"), c::toString); // 2 and 3
        assertEquals(2, c.get("publisher_reconnects"), c::toString);
        assertEquals(7, c.get("accepted"), c::toString); // the lost transfers have no outcome
        assertEquals(7, c.get("messages_acked"), c::toString);
        assertEquals(0, c.get("publish_errors"), c::toString);
        assertTrue(p.confirms());
        assertArrayEquals(new long[0], p.unconfirmed());
    }

    @Test
    void aSlotThatFindsItsTransferLostBeforeTheReconnectIsCountedSendsTheWholeLossAgain() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Reconnect.Events events = new Amqp10Reconnect.Events();
        Amqp10Publisher p = publisher(link, events, options("reconnect", "true", "max_inflight", "3"));
        for (long s = 0; s < 3; s++) {
            send(p, s);
        }
        link.trackers.get(0).lose(); // ProtonJ2 failed them; its reconnected event has not come yet, and the
        link.trackers.get(1).lose(); // newest transfer, accepted, does not tell
        link.trackers.get(2).accept();
        link.acceptAtOnce = true;
        send(p, 3); // slot 0 waits, finds 0 lost: 0 and 1 again (accepted), then 3 takes slot 0
        assertArrayEquals(new long[] {0, 1, 2, 0, 1, 3}, link.sentSeqs());
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(4, c.get("messages_confirmed"), c::toString);
        assertEquals(2, c.get("messages_republished"), c::toString);
        assertEquals(0, c.get("publisher_reconnects"), c::toString); // the event never came in this play
    }

    @Test
    void aSendDuringTheOutageWaitsForTheReconnectAndTheLostTransfersGoFirst() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Reconnect.Events events = new Amqp10Reconnect.Events();
        Amqp10Publisher p = publisher(link, events, options("reconnect", "true", "max_inflight", "8"));
        send(p, 0);
        send(p, 1);
        link.trackers.get(0).lose(); // the connection went: ProtonJ2 failed the unsettled transfers at once; its
        link.trackers.get(1).lose(); // interrupted event has not reached this thread yet
        Thread back = new Thread(() -> {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            events.reconnected();
        });
        back.start();
        send(p, 2); // the newest transfer lost: waits for the reconnect, sends 0 and 1 again, then 2
        back.join();
        assertArrayEquals(new long[] {0, 1, 0, 1, 2}, link.sentSeqs());
        link.acceptAll();
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(3, c.get("messages_confirmed"), c::toString);
        assertEquals(2, c.get("messages_republished"), c::toString);
        assertEquals(1, c.get("publisher_reconnects"), c::toString);
        // ProtonJ2 gives up while the next send waits: the run fails as without the option, in one line
        events.interrupted();
        events.disconnected("amqp:connection:forced");
        IOException e = assertThrows(IOException.class, () -> send(p, 3));
        assertTrue(e.getMessage().contains("could not reconnect") && e.getMessage().contains("forced"), e.getMessage());
        assertEquals(1, p.counters().get("publish_errors"));
    }

    @Test
    void whatTheDrainsDeadlineLeavesWithoutAnOutcomeIsCountedUnconfirmedNotThrown() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Publisher p = publisher(link, new Amqp10Reconnect.Events(), options("reconnect", "true"));
        for (long s = 0; s < 3; s++) {
            send(p, s);
        }
        link.trackers.get(0).accept();
        p.drain(50);
        Map<String, Long> c = p.counters();
        assertEquals(1, c.get("messages_confirmed"), c::toString);
        assertEquals(2, c.get("messages_unconfirmed"), c::toString);
        assertArrayEquals(new long[] {1, 3}, p.unconfirmed());
    }

    @Test
    void onceProtonJ2GaveUpALostTransferFailsTheRunAsWithoutTheOption() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Reconnect.Events events = new Amqp10Reconnect.Events();
        Amqp10Publisher p = publisher(link, events, options("reconnect", "true"));
        send(p, 0);
        events.disconnected("no broker");
        link.trackers.get(0).lose();
        assertThrows(IOException.class, () -> p.drain(1_000));
        assertEquals(1, p.counters().get("publish_errors"));
    }

    @Test
    void withoutTheOptionALostTransferFailsAndNoReconnectIsCounted() throws Exception {
        FakeLink link = new FakeLink();
        Amqp10Publisher p = publisher(link, null, options());
        send(p, 0);
        link.trackers.get(0).lose();
        assertThrows(IOException.class, () -> p.drain(1_000));
        Map<String, Long> c = p.counters();
        assertFalse(c.containsKey("publisher_reconnects"), c::toString);
        assertFalse(c.containsKey("messages_confirmed"), c::toString);
        assertFalse(p.confirms());
        assertNull(p.unconfirmed());
    }

    @Test
    void onlyALostConnectionIsSurvivedNotALinkTheBrokerClosed() {
        Amqp10Reconnect.Events events = new Amqp10Reconnect.Events();
        assertTrue(Amqp10Reconnect.survivable(new ClientConnectionRemotelyClosedException("gone"), events));
        assertTrue(Amqp10Reconnect.survivable(new ClientException("java.io.IOException: Cannot send",
                new java.io.UncheckedIOException(new IOException("Cannot send"))), events));
        assertFalse(Amqp10Reconnect.survivable(
                new org.apache.qpid.protonj2.client.exceptions.ClientLinkRemotelyClosedException("amqp:not-found"),
                events));
        assertFalse(Amqp10Reconnect.survivable(new ClientConnectionRemotelyClosedException("gone"), null));
        events.disconnected("given up");
        assertFalse(Amqp10Reconnect.survivable(new ClientConnectionRemotelyClosedException("gone"), events));
    }

    @Test
    void theOptionIsCheckedBeforeAnythingConnects() {
        Amqp10Driver d = new Amqp10Driver();
        assertTrue(d.whyClientsCannotReconnect(Map.of()).contains("--opt reconnect=true"));
        assertNull(d.whyClientsCannotReconnect(Map.of("reconnect", "true")));
        String list = "amqp://guest:guest@127.0.0.1:5681,amqp://guest:guest@127.0.0.1:5682";
        SpecException e = assertThrows(SpecException.class,
                () -> d.checkOptions(new DriverSpec("", 0, list, SIZE, 0, Map.of(), "")));
        assertEquals("--uri", e.option());
        assertTrue(e.getMessage().contains("--opt reconnect=true"), e.getMessage());
        DriverSpec two = new DriverSpec("", 0, list, SIZE, 0, Map.of("reconnect", "true"), "");
        d.checkOptions(two);
        assertEquals(List.of(new Amqp10Connections.Node("127.0.0.1", 5681), new Amqp10Connections.Node("127.0.0.1", 5682)),
                Amqp10Connections.nodes(two, true));
        assertEquals("--uri", assertThrows(SpecException.class, () -> d.checkOptions(new DriverSpec("", 0,
                list + "/vhost:other", SIZE, 0, Map.of("reconnect", "true"), ""))).option());
        // scenario mode takes it (issue 32 item 5): the option passes through to every connection
        assertEquals("true", d.scenarios().options(Scenario.FAN_OUT, Map.of("reconnect", "true")).get("reconnect"));
        // every unsettled transfer is kept: 1,000 x 1 MiB is refused, naming max_inflight
        assertEquals("--opt max_inflight", assertThrows(SpecException.class, () -> d.checkOptions(new DriverSpec("", 0,
                "", 1 << 20, 0, Map.of("reconnect", "true"), ""))).option());
        assertTrue(options("reconnect", "true", "durable", "true").durableRunQueue());
        assertFalse(options("reconnect", "true").durableRunQueue());
        assertFalse(options("durable", "true").durableRunQueue());
    }
}

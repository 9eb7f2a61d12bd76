package io.msgscope.driver.nats.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.driver.nats.FakeNatsServer;
import io.msgscope.driver.nats.NatsDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.msgscope.driver.nats.FakeNatsServer.readLine;
import static io.msgscope.driver.nats.FakeNatsServer.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine's {@code --opt reconnect=true} (issue 32 item 3) against a core-NATS server in miniature on local
 * sockets ({@link MiniNats}: CONNECT, PING, SUB and PUB, each PUB forwarded to the subject's subscriptions), killed
 * by closing every connection. Counts worked out by hand in the comments; waits are for conditions, never for time.
 * Core NATS confirms nothing, so no confirmation figure is reported, as on jnats.
 */
class NettyReconnectFakeServerTest {
    private static final int SIZE = 64;
    private static final ClientContext CONTEXT = new ClientContext(1, List.of());

    @AfterAll
    static void closeContext() {
        CONTEXT.close();
    }

    /** A core-NATS server in miniature: what it was sent, by connection number (1 for the first accepted). */
    static final class MiniNats implements AutoCloseable {
        final FakeNatsServer net;
        /** Each PUB as it arrived: "connection:sequence". */
        final List<String> published = new CopyOnWriteArrayList<>();
        /** The connection of each PING as it arrived. */
        final List<Integer> pinged = new CopyOnWriteArrayList<>();
        /** Each SUB as it arrived: "connection:SUB line". */
        final List<String> subscribed = new CopyOnWriteArrayList<>();
        /** Connections the server has gone silent on (a paused node): their PINGs go unanswered, PUBs nowhere. */
        final java.util.Set<Integer> silent = ConcurrentHashMap.newKeySet();
        /** The connection of each PING that came while it was silent. */
        final List<Integer> unanswered = new CopyOnWriteArrayList<>();
        /** The live subscriptions: connection number to its socket's stream and subscription id. */
        private final Map<Integer, Object[]> subs = new ConcurrentHashMap<>();

        MiniNats(String name) throws IOException {
            net = new FakeNatsServer(name, this::serve);
        }

        private void serve(Socket s, int conn) throws IOException {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            write(out, NettyEngineFakeServerTest.INFO);
            try {
                while (true) {
                    String line = readLine(in);
                    String[] w = line.split("\\s+");
                    switch (w[0].toUpperCase()) {
                        case "PING" -> {
                            pinged.add(conn);
                            if (silent.contains(conn)) {
                                unanswered.add(conn);
                            } else {
                                write(out, "PONG\r\n");
                            }
                        }
                        case "SUB" -> {
                            subscribed.add(conn + ":" + line);
                            subs.put(conn, new Object[] {out, w[w.length - 1]});
                        }
                        case "PUB" -> {
                            int len = Integer.parseInt(w[w.length - 1]);
                            byte[] p = new byte[len + 2]; // the payload and its CRLF
                            in.readFully(p);
                            if (silent.contains(conn)) {
                                continue;
                            }
                            published.add(conn + ":" + WireHeader.sequence(ByteBuffer.wrap(p, 0, len).slice()
                                    .order(ByteOrder.LITTLE_ENDIAN), 0));
                            for (Object[] sub : subs.values()) {
                                forward((OutputStream) sub[0], "MSG " + w[1] + " " + sub[1] + " " + len + "\r\n", p);
                            }
                        }
                        default -> { } // CONNECT, PONG
                    }
                }
            } finally {
                subs.remove(conn);
            }
        }

        private static void forward(OutputStream out, String line, byte[] payload) {
            synchronized (out) { // as FakeNatsServer.write: one frame at a time
                try {
                    out.write(line.getBytes(StandardCharsets.US_ASCII));
                    out.write(payload);
                    out.flush();
                } catch (IOException e) {
                    // that subscriber is gone
                }
            }
        }

        String uri() {
            return net.uri();
        }

        @Override
        public void close() throws IOException {
            net.close();
        }
    }

    private static DriverSpec spec(String uri, boolean reconnect, String... more) {
        Map<String, String> o = new java.util.HashMap<>(Map.of("subject", "t", "reconnect", "" + reconnect));
        for (int i = 0; i < more.length; i += 2) {
            o.put(more[i], more[i + 1]);
        }
        return new DriverSpec("", 0, uri, SIZE, 0, o, "");
    }

    private static NettyNatsPublisher publisher(String uri, boolean reconnect, String... more) throws IOException {
        return (NettyNatsPublisher) new NatsDriver().openPublisher(spec(uri, reconnect, more).withDestination("t"),
                CONTEXT);
    }

    private static NettyNatsSubscriber subscriber(String uri, boolean reconnect, String... more) throws IOException {
        return (NettyNatsSubscriber) new NatsDriver().openSubscriber(spec(uri, reconnect, more), CONTEXT);
    }

    private static void send(NettyNatsPublisher p, long from, long to) throws IOException {
        for (long seq = from; seq < to; seq++) {
            p.send(ByteBuffer.wrap(NettyEngineFakeServerTest.message(seq, SIZE)), 0, SIZE);
        }
    }

    /** Sends {@code [from, to)}, drains (the server has them all) and polls until {@code seqs} holds {@code to}. */
    private static void sendAndReceive(NettyNatsPublisher pub, NettyNatsSubscriber sub, MessageHandler h,
            List<Long> seqs, long from, int to) throws IOException {
        send(pub, from, to);
        pub.drain(10_000);
        NettyEngineFakeServerTest.await(() -> {
            sub.poll(h, 10);
            return seqs.size() >= to;
        }, to + " messages");
    }

    /**
     * After a kill, with reconnect=true: the subscriber back (it dials again on its own thread and subscribes again)
     * and the publisher's loss seen (it dials from the sending thread, at its next send).
     */
    private static void awaitLoss(NettyNatsSubscriber sub, NettyNatsPublisher pub) {
        NettyEngineFakeServerTest.await(() -> sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS) == 1,
                "the subscriber back");
        NettyEngineFakeServerTest.await(() -> pub.connection().lostWhy() != null, "the publisher's loss seen");
    }

    private static List<Long> range(long from, long to) {
        return java.util.stream.LongStream.range(from, to).boxed().toList();
    }

    @Test
    void aServerKilledAndBackCostsOneReconnectEachAndHidesNothing() throws Exception {
        try (MiniNats nats = new MiniNats("mini-nats")) {
            List<Long> seqs = new CopyOnWriteArrayList<>();
            MessageHandler h = (b, off) -> seqs.add(WireHeader.sequence(b, off));
            // connection 1 the subscriber's, 2 the publisher's
            try (NettyNatsSubscriber sub = subscriber(nats.uri(), true);
                 NettyNatsPublisher pub = publisher(nats.uri(), true)) {
                sendAndReceive(pub, sub, h, seqs, 0, 5);
                nats.net.dropAll(); // killed, and listening again at once
                // the subscriber dials again at once (connection 3); the publisher at its next send (connection 4)
                awaitLoss(sub, pub);
                sendAndReceive(pub, sub, h, seqs, 5, 10);
                assertEquals(range(0, 10), seqs);
                assertEquals(4, nats.net.connections.get());
                assertEquals(List.of("1:SUB t 1", "3:SUB t 1"), nats.subscribed);
                assertEquals(List.of("2:0", "2:1", "2:2", "2:3", "2:4", "4:5", "4:6", "4:7", "4:8", "4:9"),
                        nats.published);
                // one reconnect each; core NATS confirms nothing: no confirmation figures (unknown, not 0)
                assertEquals(Map.of("publish_errors", 0L, Reconnects.PUBLISHER_RECONNECTS, 1L), pub.counters());
                assertFalse(pub.confirms());
                assertNull(pub.unconfirmed());
                assertEquals(Map.of("errors", 0L, "short_payloads", 0L, "slow_consumer_events", 0L,
                        Reconnects.SUBSCRIBER_RECONNECTS, 1L), sub.counters());
                assertNull(sub.closeReason());
            }
        }
    }

    private static final String SILENCE_NOTICED = "the server answered none of the last 2 PINGs sent 100 ms apart "
            + "(--opt ping_interval)";

    /**
     * {@code --opt ping_interval} on the lean engine (issue 32): a server gone silent on both connections (a paused
     * node: no PONG, nothing forwarded, the sockets open) is noticed by the clients' own PINGs, exactly two unanswered
     * on each before it is dropped as lost, and with reconnect=true both dial again and nothing after is missing.
     */
    @Test
    void aSilentServerIsNoticedByTwoUnansweredPingsAndLeft() throws Exception {
        try (MiniNats nats = new MiniNats("mini-nats")) {
            List<Long> seqs = new CopyOnWriteArrayList<>();
            MessageHandler h = (b, off) -> seqs.add(WireHeader.sequence(b, off));
            try (NettyNatsSubscriber sub = subscriber(nats.uri(), true, "ping_interval", "100ms");
                 NettyNatsPublisher pub = publisher(nats.uri(), true, "ping_interval", "100ms")) {
                sendAndReceive(pub, sub, h, seqs, 0, 5);
                nats.silent.addAll(List.of(1, 2));
                awaitLoss(sub, pub);
                assertEquals(SILENCE_NOTICED, pub.connection().lostWhy());
                sendAndReceive(pub, sub, h, seqs, 5, 10);
                assertEquals(range(0, 10), seqs);
                assertEquals(List.of("1:SUB t 1", "3:SUB t 1"), nats.subscribed);
                // after the last PONG each client sent two more PINGs, then left (its keep-alive ends with it)
                assertEquals(List.of(2, 2), List.of(count(nats.unanswered, 1), count(nats.unanswered, 2)));
                assertEquals(1L, pub.counters().get(Reconnects.PUBLISHER_RECONNECTS));
                assertEquals(1L, sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS));
                assertNull(sub.closeReason());
            }
        }
    }

    /** Without reconnect the silence ends the delivery, with the reason naming the option. */
    @Test
    void withoutReconnectASilentServerEndsTheSubscriptionNamingTheOption() throws Exception {
        try (MiniNats nats = new MiniNats("mini-nats")) {
            try (NettyNatsSubscriber sub = subscriber(nats.uri(), false, "ping_interval", "100ms")) {
                nats.silent.add(1);
                NettyEngineFakeServerTest.await(() -> sub.closeReason() != null, "the silence noticed");
                assertTrue(sub.closeReason().contains(SILENCE_NOTICED), sub::closeReason);
                assertEquals(2, count(nats.unanswered, 1));
            }
        }
    }

    /**
     * {@code --opt spread=true}: six connections over a list of three servers start at each in turn, two on each
     * (whatever server the process's turn stood at); a server that does not answer passes its turn to the next one
     * (dead, a, b: per three connections a gets its own and dead's, b its own: 4 and 2 of six). Without the option
     * all six go to the first server that answers, on either engine.
     */
    @Test
    void spreadStartsEachConnectionAtTheNextServerInTurn() throws Exception {
        FakeNatsServer dead = new FakeNatsServer("dead-nats", (s, n) -> { });
        String deadUri = dead.uri();
        dead.close();
        try (MiniNats a = new MiniNats("nats-a"); MiniNats b = new MiniNats("nats-b");
             MiniNats c = new MiniNats("nats-c")) {
            openSix(a.uri() + "," + b.uri() + "," + c.uri(), true);
            assertEquals(List.of(2, 2, 2), List.of(a.net.connections.get(), b.net.connections.get(),
                    c.net.connections.get()));
            openSix(deadUri + "," + a.uri() + "," + b.uri(), true);
            assertEquals(List.of(2 + 4, 2 + 2), List.of(a.net.connections.get(), b.net.connections.get()));
            openSix(b.uri() + "," + c.uri(), false);
            assertEquals(List.of(4 + 6, 2), List.of(b.net.connections.get(), c.net.connections.get()));
            // jnats too follows the list's order without spread (its shuffle off): all six at the first
            openSix(c.uri() + "," + a.uri() + "," + b.uri(), false, "jnats");
            assertEquals(List.of(2 + 6, 2 + 4, 4 + 6), List.of(c.net.connections.get(), a.net.connections.get(),
                    b.net.connections.get()));
        }
    }

    private static void openSix(String list, boolean spread) throws IOException {
        openSix(list, spread, "netty");
    }

    /** Six publishers of an engine opened one after another on the list and closed again. */
    private static void openSix(String list, boolean spread, String engine) throws IOException {
        List<io.msgscope.core.driver.Publisher> pubs = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                pubs.add(new NatsDriver().openPublisher(new DriverSpec("", 0, list, SIZE, 0,
                        Map.of("subject", "t", "spread", "" + spread, "engine", engine), "").withDestination("t"),
                        CONTEXT));
            }
        } finally {
            for (io.msgscope.core.driver.Publisher p : pubs) {
                try {
                    p.close();
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        }
    }

    /**
     * A drain begun ahead ({@code beginDrain}, as the scenario publishers do for all their connections first) waits for
     * that PING's PONG instead of sending another: per connection the CONNECT's PING and one more, whose PONG came
     * before drain returned; a drain not begun sends its own.
     */
    @Test
    void aBegunDrainWaitsForItsOwnPing() throws Exception {
        try (MiniNats nats = new MiniNats("mini-nats")) {
            try (NettyNatsPublisher a = publisher(nats.uri(), false); NettyNatsPublisher b = publisher(nats.uri(), false)) {
                send(a, 0, 5);
                send(b, 0, 5);
                a.beginDrain();
                b.beginDrain();
                a.drain(10_000);
                b.drain(10_000);
                assertEquals(List.of(2, 2), List.of(count(nats.pinged, 1), count(nats.pinged, 2)));
                assertEquals(10, nats.published.size()); // the PONG follows every PUB before it
                a.drain(10_000); // not begun: a PING of its own
                assertEquals(3, count(nats.pinged, 1));
            }
        }
    }

    private static int count(List<Integer> conns, int conn) {
        return (int) conns.stream().filter(c -> c == conn).count();
    }

    @Test
    void aReconnectGoesToTheNextServerOfTheList() throws Exception {
        FakeNatsServer dead = new FakeNatsServer("dead-nats", (s, n) -> { });
        String deadUri = dead.uri();
        dead.close(); // nothing listens there any more
        try (MiniNats a = new MiniNats("nats-a"); MiniNats b = new MiniNats("nats-b")) {
            String list = deadUri + "," + a.uri() + "," + b.uri();
            List<Long> seqs = new CopyOnWriteArrayList<>();
            MessageHandler h = (buf, off) -> seqs.add(WireHeader.sequence(buf, off));
            // the first server of the list does not answer: both connect to the second, a
            try (NettyNatsSubscriber sub = subscriber(list, true); NettyNatsPublisher pub = publisher(list, true)) {
                assertEquals(2, a.net.connections.get());
                sendAndReceive(pub, sub, h, seqs, 0, 3);
                a.close(); // gone for good: the next server of the list, b, takes both
                awaitLoss(sub, pub);
                sendAndReceive(pub, sub, h, seqs, 3, 6);
                assertEquals(range(0, 6), seqs);
                assertEquals(2, b.net.connections.get());
                assertEquals(List.of("1:SUB t 1"), b.subscribed);
                assertEquals(List.of("2:3", "2:4", "2:5"), b.published);
                assertEquals(b.uri().substring("nats://".length()), pub.connection().settings.address());
                assertEquals(1L, pub.counters().get(Reconnects.PUBLISHER_RECONNECTS));
            }
        }
    }

    @Test
    void withoutTheOptionALostConnectionEndsTheRun() throws Exception {
        try (MiniNats nats = new MiniNats("mini-nats")) {
            try (NettyNatsSubscriber sub = subscriber(nats.uri(), false);
                 NettyNatsPublisher pub = publisher(nats.uri(), false)) {
                send(pub, 0, 2);
                pub.drain(10_000);
                nats.net.dropAll();
                NettyEngineFakeServerTest.await(() -> pub.connection().lostWhy() != null, "the publisher's loss seen");
                Fault f = assertThrows(Fault.class, () -> send(pub, 2, 3));
                assertEquals(Fault.Kind.CONNECTION_LOST, f.kind());
                NettyEngineFakeServerTest.await(() -> sub.closeReason() != null, "the subscriber's loss");
                assertEquals(2, nats.net.connections.get()); // nobody dialled again
                assertEquals(Map.of("publish_errors", 0L), pub.counters()); // no reconnect counter without the option
                assertFalse(sub.counters().containsKey(Reconnects.SUBSCRIBER_RECONNECTS));
                assertTrue(sub.closeReason().startsWith("connection to NATS at "), sub.closeReason());
            }
        }
    }
}

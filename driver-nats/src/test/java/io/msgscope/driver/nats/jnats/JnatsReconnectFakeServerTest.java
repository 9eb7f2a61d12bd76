package io.msgscope.driver.nats.jnats;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.driver.nats.FakeNatsServer;
import io.msgscope.driver.nats.NatsSettings;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.msgscope.driver.nats.FakeNatsServer.readLine;
import static io.msgscope.driver.nats.FakeNatsServer.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JetStream publisher's reconnect accounting (issue 32 item 3) against a simulated server on a local socket that
 * acknowledges each publish ({@code {"stream":..,"seq":..}} to its reply subject) unless told to drop that ack or to
 * close the connection on a given sequence. Every count is worked out by hand in the comments; the waits are for
 * conditions, never for time.
 */
class JnatsReconnectFakeServerTest {
    private static final int SIZE = 64;

    /** The simulated server: every connection in turn, what it was sent, and what it must do to which sequence. */
    static final class FakeJetStream implements AutoCloseable {
        final FakeNatsServer server = new FakeNatsServer("fake-jetstream", this::serve);
        /** Sequences whose ack is dropped the first time they come (a lost ack). */
        final Set<Long> dropAckOnce = ConcurrentHashMap.newKeySet();
        /** Sequences whose ack is always dropped (never confirmed). */
        final Set<Long> neverAck = ConcurrentHashMap.newKeySet();
        /** A sequence on whose first arrival the server closes the connection without an ack (a killed server). */
        volatile long closeOn = -1;
        final AtomicInteger connections = server.connections;
        /** Each measured publish as it arrived: "connection:sequence". */
        final List<String> received = new CopyOnWriteArrayList<>();
        /** Each publish's Nats-Msg-Id as it arrived, "sequence=id" ("sequence=" without the header). */
        final List<String> ids = new CopyOnWriteArrayList<>();
        /** The ids stored, as a stream with a duplicate window: a copy of one of them is acked as a duplicate. */
        final Set<String> stored = ConcurrentHashMap.newKeySet();

        FakeJetStream() throws IOException {
        }

        String uri() {
            return server.uri();
        }

        private void serve(Socket s, int conn) throws IOException {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            out.write(("INFO {\"server_id\":\"FAKE\",\"server_name\":\"fake\",\"version\":\"2.10.0\",\"proto\":1,"
                    + "\"max_payload\":1048576,\"headers\":true,\"jetstream\":true}\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String inboxSid = null;
            while (true) {
                String line = readLine(in);
                String[] w = line.split(" ");
                switch (w[0].toUpperCase()) {
                    case "PING" -> write(out, "PONG\r\n");
                    case "SUB" -> inboxSid = w[w.length - 1];
                    case "PUB", "HPUB" -> {
                        // HPUB <subject> <reply> <header bytes> <total bytes>: the headers, then the payload
                        int len = Integer.parseInt(w[w.length - 1]);
                        int hdr = w[0].equalsIgnoreCase("HPUB") ? Integer.parseInt(w[w.length - 2]) : 0;
                        byte[] all = new byte[len + 2];
                        in.readFully(all);
                        String id = msgId(new String(all, 0, hdr, StandardCharsets.US_ASCII));
                        long seq = WireHeader.sequence(ByteBuffer.wrap(all, hdr, len - hdr).slice()
                                .order(java.nio.ByteOrder.LITTLE_ENDIAN), 0); // the header is little-endian (Q1)
                        ids.add(seq + "=" + (id == null ? "" : id));
                        if (seq >= 0) {
                            received.add(conn + ":" + seq);
                            if (seq == closeOn) {
                                closeOn = -1;
                                return; // gone without an ack, as a killed server
                            }
                        }
                        boolean duplicate = id != null && !stored.add(id);
                        if (seq >= 0 && (neverAck.contains(seq) || dropAckOnce.remove(seq))) {
                            continue; // stored, its ack lost
                        }
                        String ack = "{\"stream\":\"S\",\"seq\":" + (seq + 1000)
                                + (duplicate ? ",\"duplicate\":true}" : "}");
                        write(out, "MSG " + w[2] + " " + inboxSid + " " + ack.length() + "\r\n" + ack + "\r\n");
                    }
                    default -> { } // CONNECT, PONG, UNSUB
                }
            }
        }

        /** The Nats-Msg-Id of a header block ("NATS/1.0\r\nNats-Msg-Id: x\r\n\r\n"), null without one. */
        private static String msgId(String headers) {
            for (String line : headers.split("\r\n")) {
                if (line.startsWith(JnatsPublisher.MSG_ID + ":")) {
                    return line.substring(JnatsPublisher.MSG_ID.length() + 1).trim();
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    private static JnatsPublisher publisher(FakeJetStream fake, boolean reconnect) throws IOException {
        DriverSpec spec = new DriverSpec("", 0, fake.uri(), SIZE, 0, Map.of("jetstream", "true", "subject", "t",
                "reconnect", "" + reconnect), "");
        return new JnatsPublisher(NatsSettings.of(spec, true), SIZE);
    }

    private static void send(JnatsPublisher p, ByteBuffer buf, long from, long to) throws IOException {
        for (long s = from; s < to; s++) {
            WireHeader.writeSequence(buf, 0, s);
            p.send(buf, 0, SIZE);
        }
    }

    private static void await(BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L; // generous: a loaded box
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited 60 s for " + what);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
        }
    }

    @Test
    void aServerThatDiesMidRunCostsARepublishAndNothingIsHidden() throws Exception {
        try (FakeJetStream fake = new FakeJetStream()) {
            ByteBuffer buf = WireHeader.allocate(SIZE);
            try (JnatsPublisher p = publisher(fake, true)) {
                // a warm-up message (negative sequence, never republished), then 0-4 acknowledged on connection 1
                send(p, buf, -1, 0);
                send(p, buf, 0, 5);
                p.drain(60_000);
                // 5's ack is lost; the server dies when 6 arrives: neither is acknowledged on connection 1
                fake.dropAckOnce.add(5L);
                fake.closeOn = 6;
                send(p, buf, 5, 7);
                await(() -> fake.connections.get() == 2, "the reconnect");
                // 5 and 6 time out unacknowledged and go again on connection 2, then 7-9 are sent there
                send(p, buf, 7, 10);
                p.drain(120_000);
                Map<String, Long> c = p.counters();
                assertEquals(10L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(2L, c.get(Reconnects.REPUBLISHED), c::toString); // 5 and 6, once each
                assertEquals(1L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertEquals(10L, c.get("messages_acked"), c::toString);
                assertEquals(0L, c.get("publish_errors"), c::toString);
                assertArrayEquals(new long[0], p.unconfirmed());
                assertTrue(p.confirms());
                // the server saw 0-6 on connection 1, then 5, 6 (republished) and 7-9 on connection 2
                List<String> seen = fake.received;
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "1:6"), seen.subList(0, 7));
                assertEquals(Set.of("2:5", "2:6", "2:7", "2:8", "2:9"), Set.copyOf(seen.subList(7, seen.size())));
                assertEquals(12, seen.size());
                // every copy carries its message's id: one per sequence, different for each sequence, the same on
                // the republished copy; 5 was stored (only its ack was lost), so its copy is dropped as a duplicate
                // and counted; 6 died with the server, so its copy is the first stored
                Map<Long, Set<String>> bySeq = new java.util.TreeMap<>();
                assertEquals("-1=", fake.ids.get(0)); // the warm-up message goes without an id
                for (String e : fake.ids.subList(1, fake.ids.size())) {
                    String[] kv = e.split("=", 2);
                    bySeq.computeIfAbsent(Long.parseLong(kv[0]), k -> new java.util.HashSet<>()).add(kv[1]);
                }
                assertEquals(13, fake.ids.size(), fake.ids::toString);
                assertEquals(10, bySeq.size(), bySeq::toString);
                Set<String> distinct = new java.util.HashSet<>();
                bySeq.forEach((seq, id) -> {
                    assertEquals(1, id.size(), () -> seq + ": " + id);
                    String one = id.iterator().next();
                    assertEquals(p.messageId(seq), one);
                    assertTrue(one.endsWith("-" + seq), one);
                    distinct.add(one);
                });
                assertEquals(10, distinct.size(), distinct::toString);
                assertEquals(1L, c.get(Reconnects.DEDUPLICATED), c::toString);
            }
        }
    }

    @Test
    void whatIsNeverAcknowledgedIsCountedUnconfirmedByRange() throws Exception {
        try (FakeJetStream fake = new FakeJetStream()) {
            ByteBuffer buf = WireHeader.allocate(SIZE);
            fake.neverAck.addAll(List.of(3L, 4L, 8L));
            try (JnatsPublisher p = publisher(fake, false)) {
                send(p, buf, 0, 10);
                // 7 acknowledged and 3 not; without reconnect the drain gives up on them (jnats times them out)
                await(() -> p.counters().get(Reconnects.CONFIRMED) == 7, "the seven acks");
                assertEquals(3L, p.counters().get(Reconnects.UNCONFIRMED));
                assertEquals(0L, p.counters().get(Reconnects.REPUBLISHED));
                assertArrayEquals(new long[] {3, 5, 8, 9}, p.unconfirmed());
                assertEquals(null, p.counters().get(Reconnects.PUBLISHER_RECONNECTS)); // no reconnect, no counter
                // nothing is republished without reconnect: no message id, no de-duplication counter
                assertEquals(10, fake.ids.size(), fake.ids::toString);
                assertTrue(fake.ids.stream().allMatch(e -> e.endsWith("=")), fake.ids::toString);
                assertEquals(null, p.counters().get(Reconnects.DEDUPLICATED));
            }
        }
    }
}

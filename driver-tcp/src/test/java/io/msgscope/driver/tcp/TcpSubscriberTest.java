package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The subscriber cuts a byte stream into whole fixed-size messages whatever the reads return: every
 * split of the stream, byte by byte, gives the same messages in the same order with the same bytes;
 * and direct mode listens, reports its host:port and takes the sender's connection on its first polls.
 */
class TcpSubscriberTest {
    private static final int SIZE = 40; // header and 8 bytes of padding

    /** Message {@code seq}: sequence in the header, every other byte a function of (seq, position). */
    static byte[] message(long seq) {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < SIZE; i++) {
            b.put(i, (byte) (seq * 31 + i * 7));
        }
        b.putLong(WireHeader.SEQUENCE_OFFSET, seq);
        return b.array();
    }

    static byte[] stream(int messages) {
        byte[] all = new byte[messages * SIZE];
        for (int m = 0; m < messages; m++) {
            System.arraycopy(message(m), 0, all, m * SIZE, SIZE);
        }
        return all;
    }

    /** Keeps a copy of every delivered message (a test may allocate). */
    static final class Collect implements MessageHandler {
        final List<byte[]> got = new ArrayList<>();

        @Override
        public void onMessage(ByteBuffer buffer, int offset) {
            byte[] m = new byte[SIZE];
            buffer.get(offset, m);
            got.add(m);
        }

        void assertStream(int messages) {
            assertEquals(messages, got.size());
            for (int m = 0; m < messages; m++) {
                assertArrayEquals(message(m), got.get(m), "message " + m);
            }
        }
    }

    @Test
    void readsSplitAtEveryByteDeliverTheSameWholeMessages() {
        final int messages = 7;
        byte[] all = stream(messages);
        for (int chunk = 1; chunk <= 2 * SIZE + 1; chunk++) {
            ByteBuffer buf = WireHeader.allocate(TcpSockets.bufferFor(SIZE));
            Collect c = new Collect();
            int delivered = 0;
            for (int at = 0; at < all.length; at += chunk) {
                int n = Math.min(chunk, all.length - at);
                buf.put(all, at, n); // what one read returned
                int before = c.got.size();
                int k = TcpSubscriber.deliver(buf, SIZE, c);
                assertEquals(c.got.size() - before, k);
                delivered += k;
                assertEquals((at + n) / SIZE, delivered, "chunk " + chunk + ": whole messages so far");
                assertEquals((at + n) % SIZE, buf.position(), "chunk " + chunk + ": the partial message kept");
            }
            c.assertStream(messages);
        }
    }

    @Test
    void aMessageSplitAtEachByteOverARealSocketArrivesWhole() throws Exception {
        final int messages = SIZE + 1; // message m is split after its first m bytes (m = 0 .. SIZE)
        byte[] all = stream(messages);
        try (ServerSocketChannel server = TcpSockets.listen("127.0.0.1", 0, "test")) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (SocketChannel out = TcpSockets.connect("127.0.0.1", port, 0);
                 SocketChannel in = server.accept();
                 Subscriber sub = new TcpSubscriber(in, SIZE)) {
                Collect c = new Collect();
                for (int m = 0; m < messages; m++) {
                    int split = m; // 0: all in the second write; SIZE: all in the first
                    if (split > 0) {
                        write(out, all, m * SIZE, split);
                        pollUntilConsumed(sub, c, split == SIZE ? m + 1 : m, split == SIZE ? 0 : -1);
                    }
                    if (split < SIZE) {
                        write(out, all, m * SIZE + split, SIZE - split);
                        pollUntilConsumed(sub, c, m + 1, 0);
                    }
                }
                c.assertStream(messages);
                out.close();
                assertEquals(-1, pollUntilEnd(sub, c), "end of stream");
            }
        }
    }

    private static void write(SocketChannel ch, byte[] bytes, int from, int n) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes, from, n);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /**
     * Polls until {@code total} messages were delivered; with {@code partial} -1, until a poll has read the
     * written part of the next message (it returns 0 delivered but is not a timeout: one poll is enough once
     * the bytes are readable, which the selector waits for).
     */
    private static void pollUntilConsumed(Subscriber sub, Collect c, int total, int partial) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        if (partial < 0) {
            sub.poll(c, 5_000);
            assertEquals(total, c.got.size(), "a partial message delivers nothing");
            return;
        }
        while (c.got.size() < total) {
            assertTrue(System.nanoTime() < deadline, "message " + total + " did not arrive");
            assertTrue(sub.poll(c, 1_000) >= 0);
        }
        assertEquals(total, c.got.size());
    }

    private static int pollUntilEnd(Subscriber sub, Collect c) throws IOException {
        for (int i = 0; i < 100; i++) {
            int n = sub.poll(c, 100);
            if (n < 0) {
                return n;
            }
        }
        return 0;
    }

    @Test
    void directModeListensReportsItsAddressAndTakesTheSendersConnection() throws Exception {
        TcpDriver driver = new TcpDriver();
        DriverSpec recv = new DriverSpec("", 0, "", SIZE, 0, Map.of("via", "direct"), "");
        try (Subscriber sub = driver.openSubscriber(recv)) {
            String dest = sub.destination();
            assertTrue(dest.startsWith("127.0.0.1:"), dest);
            assertEquals("127.0.0.1", sub.localAddress().getHostAddress());
            Collect c = new Collect();
            assertEquals(0, sub.poll(c, 1), "nobody connected yet: a poll times out");
            try (Publisher pub = driver.openPublisher(recv.withDestination(dest))) {
                assertTrue(((TcpPublisher) pub).noDelay(), "TCP_NODELAY by default");
                ByteBuffer payload = WireHeader.allocate(SIZE);
                for (int m = 0; m < 1_000; m++) {
                    payload.put(0, message(m));
                    pub.send(payload, 0, SIZE);
                }
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (c.got.size() < 1_000 && System.nanoTime() < deadline) {
                    assertTrue(sub.poll(c, 100) >= 0);
                }
                c.assertStream(1_000);
                // the listening socket is gone once the sender is in: nobody else connects
                TcpSockets.HostPort hp = TcpSockets.HostPort.parse(dest);
                assertThrows(IOException.class, () -> TcpSockets.connect(hp.host(), hp.port(), 0).close());
            }
            assertEquals(-1, pollUntilEnd(sub, c), "the sender closed: end of stream");
        }
    }

    @Test
    void nodelayFalseLeavesNagleOnForTheSender() throws Exception {
        TcpDriver driver = new TcpDriver();
        DriverSpec recv = new DriverSpec("", 0, "", SIZE, 0, Map.of("via", "direct", "nodelay", "false"), "");
        try (Subscriber sub = driver.openSubscriber(recv);
             Publisher pub = driver.openPublisher(recv.withDestination(sub.destination()))) {
            org.junit.jupiter.api.Assertions.assertFalse(((TcpPublisher) pub).noDelay());
        }
    }

    @Test
    void directModeBindsTheWildcardAndAdvertisesLoopbackOrTheGivenHost() throws Exception {
        TcpDriver driver = new TcpDriver();
        try (Subscriber any = driver.openSubscriber(new DriverSpec("", 0, "", SIZE, 0,
                Map.of("via", "direct", "bind", "0.0.0.0"), ""))) {
            assertTrue(any.destination().startsWith("127.0.0.1:"), any.destination());
        }
        try (Subscriber named = driver.openSubscriber(new DriverSpec("", 0, "", SIZE, 0,
                Map.of("via", "direct", "bind", "0.0.0.0", "advertise", "localhost"), ""))) {
            assertTrue(named.destination().startsWith("localhost:"), named.destination());
        }
    }

    @Test
    void aPortInUseOrAnAddressNotOfThisMachineIsBadUsageNamingTheOption() throws Exception {
        TcpDriver driver = new TcpDriver();
        try (ServerSocketChannel taken = TcpSockets.listen("127.0.0.1", 0, "test")) {
            int port = ((InetSocketAddress) taken.getLocalAddress()).getPort();
            taken.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, false);
            SpecException e = assertThrows(SpecException.class, () -> driver.openSubscriber(new DriverSpec("", 0, "",
                    SIZE, 0, Map.of("via", "direct", "port", Integer.toString(port)), "")));
            assertTrue(e.getMessage().startsWith("--opt port: cannot listen on 127.0.0.1:" + port), e.getMessage());
        }
        SpecException e = assertThrows(SpecException.class, () -> driver.openSubscriber(new DriverSpec("", 0, "",
                SIZE, 0, Map.of("via", "direct", "bind", "192.0.2.1"), ""))); // TEST-NET-1: nobody's
        assertTrue(e.getMessage().startsWith("--opt bind: cannot listen on 192.0.2.1:0"), e.getMessage());
        SpecException none = assertThrows(SpecException.class, () -> driver.openPublisher(new DriverSpec("", 0, "",
                SIZE, 0, Map.of("via", "direct"), "")));
        assertTrue(none.getMessage().startsWith("--opt via: direct: the publisher has no destination"),
                none.getMessage());
    }
}

package io.msgscope.driver.tcp;

import io.msgscope.core.WireHeader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publisher writes on a non-blocking socket: a full send buffer makes it wait for the peer (nothing
 * dropped, nothing reordered, the caller's buffer left open), and a close while it waits ends the wait.
 */
class TcpPublisherTest {
    private static final int SIZE = 64;
    private static final int MESSAGES = 40_000; // 2.5 MB: far beyond the small socket buffers below

    /** A listening socket whose accepted connections have a small receive buffer (it is inherited). */
    private static ServerSocketChannel smallServer() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 8_192);
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        return server;
    }

    @Test
    void aFullSendBufferWaitsForThePeerAndLosesNothing() throws Exception {
        try (ServerSocketChannel server = smallServer()) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (TcpPublisher pub = new TcpPublisher(TcpSockets.connect("127.0.0.1", port, 8_192));
                 SocketChannel in = server.accept()) {
                CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                    ByteBuffer payload = WireHeader.allocate(4 * SIZE);
                    try {
                        for (int m = 0; m < MESSAGES; m++) {
                            WireHeader.writeSequence(payload, 0, m);
                            pub.send(payload, 0, SIZE);
                            assertEquals(0, payload.position());
                            assertEquals(payload.capacity(), payload.limit(), "the buffer is left open");
                        }
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                // nobody reads yet: the sender fills the socket buffers and must wait
                assertFalse(awaitDone(sent, 200), "the sender finished although nobody read");
                ByteBuffer buf = WireHeader.allocate(1 << 16);
                long expected = 0;
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (expected < MESSAGES && System.nanoTime() < deadline) {
                    if (in.read(buf) < 0) {
                        break;
                    }
                    int whole = buf.position() - buf.position() % SIZE;
                    for (int off = 0; off < whole; off += SIZE) {
                        assertEquals(expected++, WireHeader.sequence(buf, off));
                    }
                    buf.limit(buf.position()).position(whole);
                    buf.compact();
                }
                assertEquals(MESSAGES, expected);
                sent.get(10, TimeUnit.SECONDS);
                assertTrue(pub.waits() > 0, "the sender never found its buffer full");
                assertEquals(pub.waits(), pub.counters().get("send_buffer_waits"));
            }
        }
    }

    private static boolean awaitDone(CompletableFuture<Void> f, long ms) throws Exception {
        try {
            f.get(ms, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    @Test
    void closingWhileItWaitsEndsTheWaitWithAnError() throws Exception {
        try (ServerSocketChannel server = smallServer()) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            TcpPublisher pub = new TcpPublisher(TcpSockets.connect("127.0.0.1", port, 8_192));
            try (SocketChannel in = server.accept()) {
                CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                    ByteBuffer payload = WireHeader.allocate(SIZE);
                    try {
                        for (int m = 0; m < MESSAGES; m++) {
                            pub.send(payload, 0, SIZE);
                        }
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                assertFalse(awaitDone(sent, 200), "the sender finished although nobody read");
                pub.close();
                ExecutionException e = assertThrows(ExecutionException.class, () -> sent.get(10, TimeUnit.SECONDS));
                assertInstanceOf(java.io.UncheckedIOException.class, e.getCause());
            }
        }
    }
}

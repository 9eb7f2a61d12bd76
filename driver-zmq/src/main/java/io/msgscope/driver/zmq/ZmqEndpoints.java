package io.msgscope.driver.zmq;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Shared small facts of the ZeroMQ driver: connect checks and the proxy's welcome message. */
final class ZmqEndpoints {
    static final long CONNECT_TIMEOUT_MS = 5_000;
    /** How long a subscriber waits for the proxy's welcome and a publisher for a subscription. */
    static final long HANDSHAKE_TIMEOUT_MS = 10_000;
    /**
     * The proxy's answer to every subscription it receives, published on that subscription's topic:
     * a subscriber that got it knows its subscription is in the proxy's XPUB (no slow joiner). Shorter
     * than the measurement header, so it can never be mistaken for a measured message; subscribers drop
     * it and count it as {@code welcomes}, never as an error.
     */
    static final byte[] WELCOME = "msgscope-welcome".getBytes(StandardCharsets.US_ASCII);

    private static final java.util.concurrent.atomic.AtomicLong MONITORS = new java.util.concurrent.atomic.AtomicLong();

    private ZmqEndpoints() {
    }

    static String tcp(String host, int port) {
        return "tcp://" + host + ":" + port;
    }

    /**
     * Connects and waits (through a socket monitor) until the TCP connection is up, failing after 5 s
     * with one line naming the address: ZeroMQ would otherwise retry in the background and queue for
     * ever. No plain-TCP probe: a bound PUSH or XPUB socket may give such a probe a pipe of its own, and
     * messages routed into it are gone.
     */
    static void connect(ZContext ctx, ZMQ.Socket socket, String endpoint) throws IOException {
        String monitor = "inproc://msgscope-connect-" + MONITORS.incrementAndGet();
        socket.monitor(monitor, ZMQ.EVENT_CONNECTED);
        ZMQ.Socket events = ctx.createSocket(SocketType.PAIR);
        try {
            events.setReceiveTimeOut(100);
            events.connect(monitor);
            socket.connect(endpoint);
            long deadline = System.nanoTime() + CONNECT_TIMEOUT_MS * 1_000_000L;
            while (System.nanoTime() < deadline) {
                ZMQ.Event e = ZMQ.Event.recv(events);
                if (e != null && e.getEvent() == ZMQ.EVENT_CONNECTED) {
                    return;
                }
            }
            throw new IOException("cannot connect to " + endpoint.replaceFirst("^tcp://", "") + " within "
                    + CONNECT_TIMEOUT_MS + " ms: nothing accepts ZeroMQ connections there");
        } finally {
            socket.monitor(null, 0);
            ctx.destroySocket(events);
        }
    }

    static boolean isWelcome(byte[] b, int len) {
        return len == WELCOME.length && Arrays.equals(b, 0, len, WELCOME, 0, len);
    }
}

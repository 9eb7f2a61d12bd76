package io.msgscope.driver.zmq;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/** Shared small facts of the ZeroMQ driver: connect checks, handshake waits and the proxy's welcome message. */
final class ZmqEndpoints {
    static final long CONNECT_TIMEOUT_MS = 5_000;
    /**
     * How long a subscriber waits for the proxy's welcome (PUB/SUB) or its connection's ZMTP handshake
     * (PUSH/PULL, {@link #connectVerified}) and a publisher for a subscription, per attempt; a fresh
     * socket then tries again, up to {@link #HANDSHAKE_ATTEMPTS} times. The retries are for JeroMQ 0.6.0,
     * whose connections now and then never carry a message (about 1 in 60 here, with plain PUSH/PULL and
     * no msgscope code involved): the handshake sees it, a new connection cures it.
     */
    static final long HANDSHAKE_TIMEOUT_MS = 3_000;
    static final int HANDSHAKE_ATTEMPTS = 3;

    /**
     * The ZMTP handshake deadline of every socket: a connection whose handshake has not completed by
     * then is dropped and made again. JeroMQ's default (30 s) let the odd stuck connection (about 1 in
     * 60 on loopback here, in plain JeroMQ 0.6.0 too) swallow a whole run; with 1 s it heals itself.
     */
    static final int HANDSHAKE_IVL_MS = 1_000;

    /** A PUB/SUB handshake that did not complete in time. */
    static final class HandshakeTimeout extends IOException {
        HandshakeTimeout(String message) {
            super(message);
        }
    }

    /** Something that opens a socket and may time out in its handshake. */
    interface Opener<T> {
        T open() throws IOException;
    }

    /** Opens, and on a handshake timeout opens afresh, up to {@link #HANDSHAKE_ATTEMPTS} times. */
    static <T> T withRetries(Opener<T> opener) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return opener.open();
            } catch (HandshakeTimeout e) {
                if (attempt >= HANDSHAKE_ATTEMPTS) {
                    throw new IOException(e.getMessage() + " (" + attempt + " attempts)");
                }
            }
        }
    }
    /**
     * The proxy's answer to every subscription it receives, published on that subscription's topic:
     * a subscriber that got it knows its subscription is in the proxy's XPUB (no slow joiner). Shorter
     * than the measurement header, so it can never be mistaken for a measured message; subscribers drop
     * it and count it as {@code welcomes}, never as an error.
     */
    static final byte[] WELCOME = "msgscope-welcome".getBytes(StandardCharsets.US_ASCII);

    private ZmqEndpoints() {
    }

    static String tcp(String host, int port) {
        return "tcp://" + host + ":" + port;
    }

    /**
     * A plain TCP connect first: ZeroMQ would otherwise retry in the background and queue for ever.
     * Only towards the receiving side of a pattern (a bound PULL or XSUB, which gain nothing from the
     * probe's short-lived pipe): a bound PUSH or XPUB may route messages into such a pipe, and they are
     * gone. (A socket monitor instead lost the odd connection in stress runs of JeroMQ 0.6.0.)
     */
    static void probe(String endpoint) throws IOException {
        URI u = URI.create(endpoint);
        if (!"tcp".equals(u.getScheme()) || u.getHost() == null || u.getPort() < 0) {
            return; // ipc://, inproc:// and the like: nothing to probe
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()), (int) CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            throw new IOException("cannot connect to " + u.getHost() + ":" + u.getPort() + ": " + e.getMessage());
        }
    }

    private static final AtomicLong MONITORS = new AtomicLong();

    /**
     * Connects {@code s} to {@code endpoint} and returns once a connection has completed its ZMTP handshake
     * (a socket monitor's HANDSHAKE_PROTOCOL event), or throws {@link HandshakeTimeout} after
     * {@link #HANDSHAKE_TIMEOUT_MS}. For a PULL connected to the proxy's bound PUSH: in JeroMQ 0.6.0 about 1
     * connection in 40 stalls in its handshake while the proxy's side already routes messages into it; the
     * 1 s deadline drops it and a second connection carries on, but whatever was routed into the first is
     * gone (measured 2026-11-28: 6 to 12 of 300 fresh proxy pairs lost their first 100 messages; 0 of 300
     * when the subscriber first waited for its handshake, 7 of which had needed the second connection).
     * Waiting here means no publisher starts before this subscriber's connection is one that works.
     */
    static void connectVerified(ZContext ctx, ZMQ.Socket s, String endpoint) throws IOException {
        String events = "inproc://msgscope-zmq-handshake-" + MONITORS.incrementAndGet();
        if (!s.monitor(events, ZMQ.EVENT_HANDSHAKE_PROTOCOL)) {
            throw new IOException("cannot watch the ZeroMQ connection to " + endpoint + " (socket monitor refused)");
        }
        ZMQ.Socket watch = ctx.createSocket(SocketType.PAIR);
        try {
            watch.setReceiveTimeOut((int) HANDSHAKE_TIMEOUT_MS);
            watch.connect(events);
            s.connect(endpoint);
            if (ZMQ.Event.recv(watch) == null) {
                throw new HandshakeTimeout("no ZeroMQ (ZMTP) handshake with " + endpoint + " within "
                        + HANDSHAKE_TIMEOUT_MS + " ms");
            }
        } finally {
            s.monitor(null, 0);
            ctx.destroySocket(watch);
        }
    }

    static boolean isWelcome(byte[] b, int len) {
        return len == WELCOME.length && Arrays.equals(b, 0, len, WELCOME, 0, len);
    }
}

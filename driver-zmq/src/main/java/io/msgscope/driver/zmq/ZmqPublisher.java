package io.msgscope.driver.zmq;

import io.msgscope.core.driver.Publisher;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The sending side: a PUSH socket (brokerless to the subscriber's PULL, or to the proxy's PULL
 * frontend), or for PUB/SUB an XPUB socket connected to the proxy's XSUB frontend. ZeroMQ connects
 * in the background and would queue messages for an absent peer forever; so the constructor first
 * makes a plain TCP connect and fails after 5 s with one line naming the address.
 *
 * <p>PUB/SUB and the slow joiner: a PUB socket drops every message for which it has not yet
 * received a subscription, and subscriptions reach it asynchronously after the connect. This
 * publisher is an XPUB, which hands the subscriptions it receives to the application: the constructor
 * waits until the subscription to its own topic has arrived (the proxy's XSUB sends every subscription
 * it holds to a newly connected publisher), so not one measured message can fall into that gap.
 *
 * <p>{@code send} hands each message to JeroMQ from the heap payload buffer (JeroMQ copies it into its
 * own message: its allocation), preceded by the topic frame in PUB/SUB. ZeroMQ has no acknowledgements,
 * so {@link #drain} has nothing to wait for; {@link #close} closes the socket, which lingers up to 5 s in
 * the background (JeroMQ's reaper) so that queued messages still go out. The socket is made in the agent's
 * one ZeroMQ context ({@link ZmqShared}).
 *
 * <p>{@link #offer} (the scenario runtime's pacers, issue 13) sends with DONTWAIT: false when the socket
 * would block, i.e. at the high-water mark ({@code hwm > 0}; PUSH, and XPUB with XPUB_NODROP) or, for PUSH,
 * while no peer is connected. Only the first frame can be refused: once it is taken, ZeroMQ takes the rest of
 * the message.
 * With {@code hwm > 0} the XPUB is set to XPUB_NODROP: at the high-water mark the send blocks
 * (backpressure) instead of dropping silently, as PUSH does anyway.
 */
final class ZmqPublisher implements Publisher {
    private final ZMQ.Socket socket;
    private final String endpoint;
    private final int size;
    private final byte[] topic;
    private long errors;

    /**
     * @param topic the PUB/SUB topic, or null for PUSH
     */
    ZmqPublisher(ZmqShared shared, String endpoint, String topic, int hwm, int size) throws IOException {
        this.endpoint = endpoint;
        this.size = size;
        this.topic = topic == null ? null : ZmqOptions.topicFrame(topic);
        socket = shared.zmq().createSocket(topic == null ? SocketType.PUSH : SocketType.XPUB);
        socket.setSndHWM(hwm);
        socket.setRcvHWM(0);
        socket.setLinger(5_000);
        socket.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
        if (topic != null && hwm > 0) {
            socket.setXpubNoDrop(true);
        }
        try {
            ZmqEndpoints.probe(endpoint);
            socket.connect(endpoint);
            if (topic != null) {
                awaitSubscription(topic);
            }
        } catch (IOException | RuntimeException e) {
            socket.setLinger(0);
            socket.close();
            throw e instanceof IOException io ? io : new IOException("cannot connect to " + endpoint + ": " + e.getMessage());
        }
    }

    /** Reads subscription messages (1, topic…) until the one for this publisher's topic has come. */
    private void awaitSubscription(String name) throws IOException {
        byte[] b = new byte[this.topic.length + 2];
        long deadline = System.nanoTime() + ZmqEndpoints.HANDSHAKE_TIMEOUT_MS * 1_000_000L;
        socket.setReceiveTimeOut(100);
        while (System.nanoTime() < deadline) {
            int len = socket.recv(b, 0, b.length, 0);
            if (len == this.topic.length + 1 && b[0] == 1 && Arrays.equals(b, 1, len, this.topic, 0, this.topic.length)) {
                return;
            }
        }
        throw new ZmqEndpoints.HandshakeTimeout("no subscription to topic '" + name + "' reached this publisher through the ZeroMQ "
                + "proxy at " + endpoint + " within " + ZmqEndpoints.HANDSHAKE_TIMEOUT_MS + " ms");
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final byte[] a = buffer.array();
        final int size = this.size;
        final byte[] t = topic;
        final ZMQ.Socket s = socket;
        final int end = buffer.arrayOffset() + offset + length;
        for (int off = buffer.arrayOffset() + offset; off < end; off += size) {
            if ((t != null && !s.send(t, 0, t.length, ZMQ.SNDMORE)) || !s.send(a, off, size, 0)) {
                errors++;
                throw new IOException("ZeroMQ send to " + endpoint + " failed: " + ZMQ.Error.findByCode(s.errno()));
            }
        }
    }

    /** One message if the socket takes it without waiting (DONTWAIT): false at the high-water mark. */
    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        final ZMQ.Socket s = socket;
        final byte[] t = topic;
        final int off = buffer.arrayOffset() + offset;
        if (t != null) {
            if (!s.send(t, 0, t.length, ZMQ.SNDMORE | ZMQ.DONTWAIT)) {
                return wouldBlock(s);
            }
            if (!s.send(buffer.array(), off, size, 0)) { // the rest of a started message is always taken
                return fail(s);
            }
            return true;
        }
        return s.send(buffer.array(), off, size, ZMQ.DONTWAIT) || wouldBlock(s);
    }

    private boolean wouldBlock(ZMQ.Socket s) throws IOException {
        if (s.errno() == ZMQ.Error.EAGAIN.getCode()) {
            return false;
        }
        return fail(s);
    }

    private boolean fail(ZMQ.Socket s) throws IOException {
        errors++;
        throw new IOException("ZeroMQ send to " + endpoint + " failed: " + ZMQ.Error.findByCode(s.errno()));
    }

    @Override
    public java.util.Map<String, Long> counters() {
        return java.util.Map.of("publish_errors", errors);
    }

    @Override
    public void close() {
        socket.close(); // lingers in the background up to 5 s: queued messages still go out
    }
}

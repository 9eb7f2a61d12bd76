package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * A pull driver: {@link #poll} receives on the caller's thread into one preallocated byte[] wrapped
 * once in a little-endian ByteBuffer (JeroMQ allocates its own message object per message). The
 * buffer holds one byte more than the message size, so a longer message shows as filling it and is
 * counted as an error rather than silently cut; a payload shorter than the header is an error too. A
 * non-blocking receive loop empties what is queued; when nothing is, one blocking receive waits up to
 * the socket's receive timeout (set once, and again only when the caller's timeout changes). ZeroMQ
 * sockets cannot see their peer go away, so poll never returns -1: the receiver's drain timeout (or the
 * coordinator, when the proxy's agent dies) ends the run instead.
 *
 * <p>Three shapes: a PULL socket that binds (brokerless), a PULL socket connected to the proxy's PUSH
 * backend, or a SUB socket connected to the proxy's XPUB backend. The SUB socket subscribes to its
 * topic frame and the constructor waits for the proxy's welcome on it: then the subscription is known
 * to be in the proxy before any publisher starts (the slow-joiner problem solved by a handshake, not a
 * sleep). Each PUB/SUB message is two frames, the topic and the payload; further welcomes (one per
 * later subscriber of the same topic) are dropped and counted.
 */
final class ZmqSubscriber implements Subscriber {
    private static final int MAX_BATCH = 4096;

    private final ZContext ctx;
    private final ZMQ.Socket socket;
    private final byte[] bytes;
    private final byte[] topicBytes;
    private final ByteBuffer view;
    private final String destination;
    private final InetAddress local;
    private final boolean multipart;
    private long timeoutMs = -2;
    private long shortPayloads;
    private long oversize;
    private long welcomes;

    private ZmqSubscriber(ZContext ctx, ZMQ.Socket socket, boolean multipart, String destination, InetAddress local,
                          int size) {
        this.ctx = ctx;
        this.socket = socket;
        this.multipart = multipart;
        this.destination = destination;
        this.local = local;
        this.bytes = new byte[Math.max(size, WireHeader.SIZE) + 1];
        this.topicBytes = new byte[257];
        this.view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Brokerless: a PULL socket bound on {@code bind} (any free port when 0), advertised as its destination. */
    static ZmqSubscriber bindPull(ZmqOptions o, int size) throws IOException {
        boolean any = o.bind().equals("*") || o.bind().equals("0.0.0.0");
        String host = o.advertise() != null ? o.advertise() : any ? InetAddress.getLocalHost().getHostAddress() : o.bind();
        ZContext ctx = new ZContext(1);
        ZMQ.Socket pull = ctx.createSocket(SocketType.PULL);
        pull.setRcvHWM(o.hwm());
        pull.setLinger(0);
        pull.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
        int bound;
        try {
            String endpoint = "tcp://" + (any ? "*" : o.bind());
            if (o.port() == 0) {
                bound = pull.bindToRandomPort(endpoint);
            } else {
                pull.bind(endpoint + ":" + o.port());
                bound = o.port();
            }
        } catch (ZMQException | IllegalArgumentException e) {
            ctx.close();
            throw new SpecException(o.port() == 0 ? "--opt bind" : "--opt port", "cannot bind a PULL socket on "
                    + o.bind() + ":" + (o.port() == 0 ? "*" : o.port()) + " (" + e.getMessage() + ")");
        }
        return new ZmqSubscriber(ctx, pull, false, ZmqEndpoints.tcp(host, bound), any ? null
                : InetAddress.getByName(o.bind()), size);
    }

    /**
     * Through the proxy: a PULL socket (PUSH/PULL) or a SUB socket subscribed to {@code topic}
     * (PUB/SUB, destination = the topic) connected to the proxy's backend at {@code host:port}.
     */
    static ZmqSubscriber connect(ZmqOptions o, String host, int port, String topic, int size) throws IOException {
        if (host.isEmpty() || port <= 0) {
            throw new SpecException("--opt via", "proxy needs the broker-probe agent's ZeroMQ proxy, and no proxy "
                    + "address was given");
        }
        String endpoint = ZmqEndpoints.tcp(host, port);
        ZContext ctx = new ZContext(1);
        ZMQ.Socket s = ctx.createSocket(o.pubsub() ? SocketType.SUB : SocketType.PULL);
        s.setRcvHWM(o.hwm());
        s.setLinger(0);
        s.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
        ZmqSubscriber sub = new ZmqSubscriber(ctx, s, o.pubsub(), o.pubsub() ? topic : "",
                InetAddress.getByName(host), size);
        try {
            // no plain-TCP probe towards the proxy's PUSH/XPUB (see ZmqEndpoints.probe): its ports come from
            // the proxy itself, and PUB/SUB waits for the welcome anyway
            s.connect(endpoint);
            if (o.pubsub()) {
                s.subscribe(ZmqOptions.topicFrame(topic));
                sub.awaitWelcome(endpoint, topic);
            }
        } catch (IOException | RuntimeException e) {
            ctx.close();
            throw e instanceof IOException io ? io : new IOException("cannot connect to " + endpoint + ": " + e.getMessage());
        }
        return sub;
    }

    private void awaitWelcome(String endpoint, String topic) throws IOException {
        long deadline = System.nanoTime() + ZmqEndpoints.HANDSHAKE_TIMEOUT_MS * 1_000_000L;
        socket.setReceiveTimeOut(100);
        while (System.nanoTime() < deadline) {
            int len = receive(0);
            if (len >= 0 && ZmqEndpoints.isWelcome(bytes, len)) {
                welcomes++;
                return;
            }
        }
        throw new ZmqEndpoints.HandshakeTimeout("the ZeroMQ proxy at " + endpoint + " did not confirm the subscription to '" + topic
                + "' within " + ZmqEndpoints.HANDSHAKE_TIMEOUT_MS + " ms");
    }

    /** One whole message's payload into {@code bytes}: its length, or -1 when none came. */
    private int receive(int flags) {
        final ZMQ.Socket s = socket;
        if (!multipart) {
            return s.recv(bytes, 0, bytes.length, flags);
        }
        int len = s.recv(topicBytes, 0, topicBytes.length, flags);
        if (len < 0) {
            return -1;
        }
        // a message is delivered whole: the payload frame is there already
        return s.hasReceiveMore() ? s.recv(bytes, 0, bytes.length, 0) : 0;
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        int len = receive(ZMQ.DONTWAIT);
        if (len < 0) {
            if (timeoutMs != this.timeoutMs) {
                socket.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, timeoutMs));
                this.timeoutMs = timeoutMs;
            }
            len = receive(0);
            if (len < 0) {
                return checkError(socket);
            }
        }
        final ByteBuffer v = view;
        final byte[] b = bytes;
        final int max = b.length - 1;
        int delivered = 0;
        while (true) {
            if (len < WireHeader.SIZE) {
                if (multipart && ZmqEndpoints.isWelcome(b, len)) {
                    welcomes++;
                } else {
                    shortPayloads++;
                }
            } else if (len > max) {
                oversize++;
            } else {
                handler.onMessage(v, 0);
                delivered++;
            }
            if (delivered >= MAX_BATCH) {
                break;
            }
            len = receive(ZMQ.DONTWAIT);
            if (len < 0) {
                break;
            }
        }
        return delivered;
    }

    private static int checkError(ZMQ.Socket s) throws IOException {
        int errno = s.errno();
        if (errno == ZMQ.Error.EAGAIN.getCode() || errno == 0) {
            return 0;
        }
        if (errno == ZMQ.Error.ETERM.getCode()) {
            return -1;
        }
        throw new IOException("ZeroMQ receive failed: " + ZMQ.Error.findByCode(errno));
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public InetAddress localAddress() {
        return local;
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("errors", shortPayloads + oversize, "short_payloads", shortPayloads, "oversize_payloads", oversize,
                "welcomes", welcomes);
    }

    @Override
    public void close() {
        ctx.close();
    }
}

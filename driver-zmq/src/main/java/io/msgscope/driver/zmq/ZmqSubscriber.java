package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import org.zeromq.SocketType;
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
 * <p>Push mode ({@link #start}, the scenario runtime's way, issue 13): the socket is handed over to one of the
 * agent's shared {@link ZmqPoller} threads, which from then on is the only one to use it: it receives whatever
 * is queued when the poll says so and calls the handler first thing for each whole message, on its thread. No
 * thread per subscriber, and nothing wakes while nothing arrives. {@code ended} is called only if the poller
 * fails (ZeroMQ sockets do not see their peer go away). {@link #close} has the poller close the socket.
 *
 * <p>Every socket is made in the agent's one ZeroMQ context ({@link ZmqShared}).
 *
 * <p>Three shapes: a PULL socket that binds (brokerless), a PULL socket connected to the proxy's PUSH
 * backend, or a SUB socket connected to the proxy's XPUB backend. The SUB socket subscribes to its
 * topic frame and the constructor waits for the proxy's welcome on it: then the subscription is known
 * to be in the proxy before any publisher starts (the slow-joiner problem solved by a handshake, not a
 * sleep); the PULL socket waits for its connection's ZMTP handshake instead ({@link ZmqEndpoints#connectVerified}).
 * Each PUB/SUB message is two frames, the topic and the payload; further welcomes (one per
 * later subscriber of the same topic) are dropped and counted.
 */
final class ZmqSubscriber implements Subscriber, ZmqPoller.Member {
    private static final int MAX_BATCH = 4096;
    /** Messages one push-mode socket receives per turn of its poller, so that one busy socket does not starve the rest. */
    static final int PUSH_BATCH = 256;

    private final ZmqShared shared;
    private final ZMQ.Socket socket;
    private final byte[] bytes;
    private final byte[] topicBytes;
    private final ByteBuffer view;
    private final String destination;
    private final InetAddress local;
    private final boolean multipart;
    private long timeoutMs = -2;
    // written by the receiving thread (the caller of poll, or the poller), read after the run
    private volatile long shortPayloads;
    private volatile long oversize;
    private volatile long welcomes;
    // push mode
    private MessageHandler handler;
    private java.util.function.Consumer<String> ended;
    private volatile ZmqPoller poller;
    private volatile boolean polled;
    private boolean closed;

    private ZmqSubscriber(ZmqShared shared, ZMQ.Socket socket, boolean multipart, String destination, InetAddress local,
                          int size) {
        this.shared = shared;
        this.socket = socket;
        this.multipart = multipart;
        this.destination = destination;
        this.local = local;
        this.bytes = new byte[Math.max(size, WireHeader.SIZE) + 1];
        this.topicBytes = new byte[257];
        this.view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Brokerless: a PULL socket bound on {@code bind} (any free port when 0), advertised as its destination. */
    static ZmqSubscriber bindPull(ZmqShared shared, ZmqOptions o, int size) throws IOException {
        boolean any = o.bind().equals("*") || o.bind().equals("0.0.0.0");
        String host = o.advertise() != null ? o.advertise() : any ? InetAddress.getLocalHost().getHostAddress() : o.bind();
        ZMQ.Socket pull = shared.zmq().createSocket(SocketType.PULL);
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
            pull.close();
            throw new SpecException(o.port() == 0 ? "--opt bind" : "--opt port", "cannot bind a PULL socket on "
                    + o.bind() + ":" + (o.port() == 0 ? "*" : o.port()) + " (" + e.getMessage() + ")");
        }
        return new ZmqSubscriber(shared, pull, false, ZmqEndpoints.tcp(host, bound), any ? null
                : InetAddress.getByName(o.bind()), size);
    }

    /**
     * Through the proxy: a PULL socket (PUSH/PULL) or a SUB socket subscribed to {@code topic}
     * (PUB/SUB, destination = the topic) connected to the proxy's backend at {@code host:port}.
     */
    static ZmqSubscriber connect(ZmqShared shared, ZmqOptions o, String host, int port, String topic, int size)
            throws IOException {
        if (host.isEmpty() || port <= 0) {
            throw new SpecException("--opt via", "proxy needs the broker-probe agent's ZeroMQ proxy, and no proxy "
                    + "address was given");
        }
        String endpoint = ZmqEndpoints.tcp(host, port);
        ZMQ.Socket s = shared.zmq().createSocket(o.pubsub() ? SocketType.SUB : SocketType.PULL);
        s.setRcvHWM(o.hwm());
        s.setLinger(0);
        s.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
        ZmqSubscriber sub = new ZmqSubscriber(shared, s, o.pubsub(), o.pubsub() ? topic : "",
                InetAddress.getByName(host), size);
        try {
            // no plain-TCP probe towards the proxy's PUSH/XPUB (see ZmqEndpoints.probe): PUB/SUB waits for the
            // proxy's welcome, PUSH/PULL for its connection's ZMTP handshake (see ZmqEndpoints.connectVerified)
            if (o.pubsub()) {
                s.connect(endpoint);
                s.subscribe(ZmqOptions.topicFrame(topic));
                sub.awaitWelcome(endpoint, topic);
            } else {
                ZmqEndpoints.connectVerified(shared.zmq(), s, endpoint);
            }
        } catch (IOException | RuntimeException e) {
            s.close();
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
        if (poller != null) {
            throw new IllegalStateException("this subscriber was started in push mode: its poller receives for it");
        }
        polled = true;
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
        int delivered = 0;
        while (true) {
            if (deliver(len, handler)) {
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

    /** One received payload of {@code len} bytes: to the handler when whole, else counted; true when delivered. */
    private boolean deliver(int len, MessageHandler h) {
        if (len >= WireHeader.SIZE && len < bytes.length) {
            h.onMessage(view, 0);
            return true;
        }
        if (len >= WireHeader.SIZE) {
            oversize++;
        } else if (multipart && ZmqEndpoints.isWelcome(bytes, len)) {
            welcomes++;
        } else {
            shortPayloads++;
        }
        return false;
    }

    /**
     * Push delivery (issue 13): hands the socket over to one of the agent's shared pollers. Messages queued since
     * the subscriber was opened are delivered first, in order. {@code ended} is called only if the poller fails.
     */
    @Override
    public synchronized void start(MessageHandler h, java.util.function.Consumer<String> ended) {
        if (poller != null || polled) {
            throw new IllegalStateException("this subscriber was already started or polled");
        }
        if (closed) {
            throw new IllegalStateException("this subscriber is closed");
        }
        this.handler = h;
        this.ended = ended;
        ZmqPoller p = shared.poller();
        poller = p;
        p.register(this); // from here on only the poller's thread touches the socket
    }

    @Override
    public ZMQ.Socket socket() {
        return socket;
    }

    /** The poller's thread: up to {@link #PUSH_BATCH} queued messages, each to the handler first thing (Q2). */
    @Override
    public void readable() {
        final MessageHandler h = handler;
        for (int i = 0; i < PUSH_BATCH; i++) {
            int len = receive(ZMQ.DONTWAIT);
            if (len < 0) {
                return;
            }
            deliver(len, h);
        }
    }

    @Override
    public void ended(String reason) {
        java.util.function.Consumer<String> e = ended;
        if (e != null) {
            e.accept(reason);
        }
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

    /** Closes the socket: on the poller's thread in push mode (returning once it is done), else here. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ZmqPoller p = poller;
        if (p != null) {
            p.unregister(this);
        } else {
            socket.close();
        }
    }
}

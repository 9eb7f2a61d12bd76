package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MiddleBox;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * The ZeroMQ middle box the broker-probe agent runs (M1, M10): a forwarding loop written here rather
 * than {@code zmq.proxy}, so that it is measured like the raw-TCP relay — one thread, every whole
 * message handed to the probe's {@link Tap} in place before it goes on (the CPU stamps of D4/M3), a
 * count of what it forwarded.
 *
 * <ul>
 *   <li>PUSH/PULL: frontend PULL (publishers' PUSH connect), backend PUSH (subscribers' PULL connect,
 *       served round-robin).</li>
 *   <li>PUB/SUB: frontend XSUB (publishers' XPUB connect), backend XPUB (subscribers' SUB connect).
 *       Subscriptions go the other way: each one read from the backend (XPUB_VERBOSE, so every
 *       subscriber's arrives, not only the first per topic) is passed to the frontend, which hands it to
 *       every publisher connected now or later, and answered with a welcome message on that topic, so
 *       the subscriber learns its subscription is in place (see {@link ZmqSubscriber}).</li>
 * </ul>
 *
 * <p>High-water marks (FACTS.md: JeroMQ's default 1000 drops or blocks silently): every socket gets
 * {@code hwm}; 0 (the default) = unlimited, so nothing is ever dropped and nothing blocks, the queues
 * grow instead. With a limit PUSH blocks, and the XPUB is XPUB_NODROP so it blocks too rather than drop:
 * backpressure, never silent loss. Any loss there still is shows in the receivers' counts.
 *
 * <p>A frame longer than the buffer (the message size + 1) is forwarded cut to that length, so the
 * subscriber still counts it as oversize; frames shorter than the header pass untouched (no stamp) and
 * the subscriber counts them as errors. Sends wait in 100 ms steps (a PUSH without a connected
 * subscriber blocks), so {@link #close} stops the loop within about 100 ms.
 */
final class ZmqProxy implements MiddleBox {
    private static final int STEP_MS = 100;
    private static final int MAX_BATCH = 4096;
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private final ZContext ctx;
    private final ZMQ.Socket frontend;
    private final ZMQ.Socket backend;
    private final boolean pubsub;
    private final int ingressPort;
    private final int egressPort;
    private final byte[] payload;
    private final ByteBuffer view;
    private final byte[] envelope = new byte[4096];
    private final byte[] subscription = new byte[4096];
    private final Object lifecycle = new Object();
    private boolean started;
    private volatile boolean stopped;
    private volatile long forwarded;
    private volatile long subscriptions;
    private volatile long shortFrames;
    private volatile long cutFrames;
    private final long[] ioThreads;

    ZmqProxy(boolean pubsub, String bindHost, int ingressPort, int egressPort, int hwm, int size) throws IOException {
        this.pubsub = pubsub;
        this.payload = new byte[Math.max(size, WireHeader.SIZE) + 1];
        this.view = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        java.util.Set<Long> before = ioThreadIds();
        ctx = new ZContext(1);
        frontend = ctx.createSocket(pubsub ? SocketType.XSUB : SocketType.PULL);
        backend = ctx.createSocket(pubsub ? SocketType.XPUB : SocketType.PUSH);
        for (ZMQ.Socket s : new ZMQ.Socket[] {frontend, backend}) {
            s.setSndHWM(hwm);
            s.setRcvHWM(hwm);
            s.setLinger(0);
            s.setHandshakeIvl(ZmqEndpoints.HANDSHAKE_IVL_MS);
            s.setSendTimeOut(STEP_MS);
            s.setReceiveTimeOut(STEP_MS);
        }
        java.util.Set<Long> after = ioThreadIds();
        after.removeAll(before);
        ioThreads = after.stream().mapToLong(Long::longValue).toArray();
        if (pubsub) {
            backend.setXpubVerbose(true);
            backend.setXpubNoDrop(hwm > 0);
        }
        try {
            this.ingressPort = bind(frontend, bindHost, ingressPort, "--relay-ingress-port");
            this.egressPort = bind(backend, bindHost, egressPort, "--relay-egress-port");
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    /** JeroMQ's I/O threads now alive ("iothread-N"): the ones this proxy's context started are its own. */
    private static java.util.Set<Long> ioThreadIds() {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("iothread-")) {
                ids.add(t.getId());
            }
        }
        return ids;
    }

    /** The CPU time of this proxy's JeroMQ I/O thread, which reads and writes the sockets (ns). */
    @Override
    public long helperCpuNs() {
        long sum = 0;
        for (long id : ioThreads) {
            long v = THREADS.getThreadCpuTime(id);
            if (v > 0) {
                sum += v;
            }
        }
        return sum;
    }

    private static int bind(ZMQ.Socket s, String host, int port, String option) {
        String endpoint = "tcp://" + host;
        try {
            if (port == 0) {
                return s.bindToRandomPort(endpoint);
            }
            s.bind(endpoint + ":" + port);
            return port;
        } catch (ZMQException | IllegalArgumentException e) {
            throw new SpecException(option, "the ZeroMQ proxy cannot bind " + host + ":" + (port == 0 ? "*" : port)
                    + " (" + e.getMessage() + ")");
        }
    }

    @Override
    public String name() {
        return "zmq-proxy";
    }

    @Override
    public int ingressPort() {
        return ingressPort;
    }

    @Override
    public int egressPort() {
        return egressPort;
    }

    @Override
    public long forwarded() {
        return forwarded;
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("proxy_forwarded", forwarded, "proxy_subscriptions", subscriptions,
                "proxy_short_frames", shortFrames, "proxy_cut_frames", cutFrames);
    }

    @Override
    public void forward(Tap tap) throws IOException {
        synchronized (lifecycle) {
            if (stopped || started) {
                return;
            }
            started = true;
        }
        try (ZMQ.Poller poller = ctx.createPoller(2)) {
            poller.register(frontend, ZMQ.Poller.POLLIN);
            if (pubsub) {
                poller.register(backend, ZMQ.Poller.POLLIN);
            }
            long index = 0;
            while (!stopped) {
                int moved = 0;
                while (moved < MAX_BATCH && !stopped && forwardOne(tap, index, ZMQ.DONTWAIT)) {
                    index++;
                    moved++;
                }
                forwarded = index;
                boolean subscribed = pubsub && passSubscriptions();
                if (moved == 0 && !subscribed && !stopped) {
                    poller.poll(STEP_MS);
                }
            }
        } catch (ZMQException e) {
            if (!stopped) {
                throw new IOException("the ZeroMQ proxy stopped after " + forwarded + " messages: " + e.getMessage());
            }
        } finally {
            ctx.close();
        }
    }

    /** Receives one whole message from the frontend and sends it on; false when none was waiting. */
    private boolean forwardOne(Tap tap, long index, int flags) throws IOException {
        final ZMQ.Socket in = frontend;
        final byte[] p = payload;
        int envLen = -1;
        int len;
        if (pubsub) { // [topic][payload]: the topic frame into its own buffer, whatever the payload size
            envLen = in.recv(envelope, 0, envelope.length, flags);
            if (envLen < 0) {
                return false;
            }
            if (in.hasReceiveMore()) {
                // frames beyond the second are not the driver's format: only the last one is kept
                do {
                    len = in.recv(p, 0, p.length, 0);
                } while (len >= 0 && in.hasReceiveMore());
            } else { // one frame only: no topic, forwarded as it is
                len = Math.min(envLen, p.length);
                System.arraycopy(envelope, 0, p, 0, len);
                envLen = -1;
            }
        } else {
            len = in.recv(p, 0, p.length, flags);
            if (len < 0) {
                return false;
            }
        }
        len = Math.max(len, 0);
        if (len >= p.length) {
            cutFrames++;
        } else if (len >= WireHeader.SIZE) {
            tap.onMessage(view, 0, index);
        } else {
            shortFrames++;
        }
        if (envLen >= 0) {
            send(envelope, 0, Math.min(envLen, envelope.length), ZMQ.SNDMORE);
        }
        send(p, 0, len, 0);
        return true;
    }

    private void send(byte[] b, int off, int len, int flags) throws IOException {
        final ZMQ.Socket out = backend;
        while (!out.send(b, off, len, flags)) {
            int errno = out.errno();
            if (stopped) {
                return;
            }
            if (errno != ZMQ.Error.EAGAIN.getCode()) {
                throw new IOException("the ZeroMQ proxy could not forward after " + forwarded + " messages: "
                        + ZMQ.Error.findByCode(errno));
            }
        }
    }

    /** PUB/SUB: passes what subscribers sent (subscribe/unsubscribe) to the publishers; welcomes each. */
    private boolean passSubscriptions() throws IOException {
        boolean any = false;
        final byte[] e = subscription;
        int len;
        while ((len = backend.recv(e, 0, e.length, ZMQ.DONTWAIT)) >= 0) {
            any = true;
            len = Math.min(len, e.length);
            frontend.send(e, 0, len, 0);
            if (len > 1 && e[0] == 1) {
                subscriptions++;
                send(e, 1, len - 1, ZMQ.SNDMORE);
                send(ZmqEndpoints.WELCOME, 0, ZmqEndpoints.WELCOME.length, 0);
            }
        }
        return any;
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            stopped = true;
            if (started) {
                return; // the forwarding thread closes its own sockets within one step
            }
        }
        ctx.close();
    }
}

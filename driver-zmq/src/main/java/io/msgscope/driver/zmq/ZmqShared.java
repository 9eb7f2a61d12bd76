package io.msgscope.driver.zmq;

import io.msgscope.core.driver.ClientContext;
import org.zeromq.ZContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the ZeroMQ sockets of one agent share (issue 13), kept once per {@link ClientContext} and closed with it:
 * one {@link ZContext} with {@link ClientContext#ioThreads()} I/O threads (JeroMQ's "iothread-N", which do every
 * socket's network I/O), and, made on first use, up to {@code ioThreads} {@link ZmqPoller}s that own the receives
 * of the push-mode subscribers (a subscriber is given to the pollers in turn). An agent's thread count therefore
 * does not grow with its sockets.
 */
final class ZmqShared implements AutoCloseable {
    private final ZContext zmq;
    private final int pollerCount;
    private final List<ZmqPoller> pollers = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private boolean closed;

    private ZmqShared(int ioThreads) {
        this.zmq = new ZContext(ioThreads);
        this.pollerCount = ioThreads;
    }

    /** The context's shared ZeroMQ pieces, made on first use. */
    static ZmqShared of(ClientContext context) {
        return context.resource(ZmqShared.class, () -> new ZmqShared(context.ioThreads()));
    }

    /** The agent's one ZeroMQ context: every socket of this agent is made in it. */
    ZContext zmq() {
        return zmq;
    }

    /** The next poller in turn, started on first use. */
    synchronized ZmqPoller poller() {
        if (closed) {
            throw new IllegalStateException("the client context is closed");
        }
        int i = Math.floorMod(next.getAndIncrement(), pollerCount);
        while (pollers.size() <= i) {
            pollers.add(null);
        }
        ZmqPoller p = pollers.get(i);
        if (p == null) {
            p = new ZmqPoller(zmq, "msgscope-zmq-poller-" + (i + 1));
            pollers.set(i, p);
        }
        return p;
    }

    /** Stops the pollers (they close the sockets they still own), then the ZeroMQ context. */
    @Override
    public void close() {
        List<ZmqPoller> ps;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ps = new ArrayList<>(pollers);
        }
        for (ZmqPoller p : ps) {
            if (p != null) {
                p.close();
            }
        }
        zmq.close();
    }
}

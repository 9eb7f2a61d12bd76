package io.msgscope.driver.zmq;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One thread that owns the receives of many push-mode subscriber sockets (issue 13): it waits in a
 * {@link ZMQ.Poller} with no timeout and, for every socket with messages, lets its {@link Member} receive and
 * deliver them, a batch at a time, on this thread.
 *
 * <p>ZeroMQ sockets are not thread-safe. A subscriber socket is made, connected and handshaken on the opening
 * thread; {@link #register} then hands it over: the opener stops touching it, and from then on only this thread
 * uses it (a command queue gives the hand-over its memory barrier), until {@link #unregister} has this thread
 * close it. Registrations and removals wake the poller through an inproc PUSH/PULL pair: the PULL end is this
 * thread's, the PUSH end is shared by the callers under a lock. While nothing arrives and nothing is registered,
 * the thread sleeps in the poll: no timed wake-ups.
 */
final class ZmqPoller implements AutoCloseable {
    /** A socket this poller receives for. */
    interface Member {
        ZMQ.Socket socket();

        /** On the poller's thread: receives what is queued (up to a batch) and delivers it. */
        void readable();

        /** The poller stopped on an error, or {@link #readable} threw: the subscription ended. Poller thread. */
        void ended(String reason);
    }

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final long CLOSE_WAIT_MS = 5_000;

    private final ZContext zmq;
    private final String endpoint;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Object wakeLock = new Object();
    private final ZMQ.Socket wakeSender;
    private volatile boolean stopped;
    private volatile RuntimeException startFailure;
    private volatile long passes;

    // the poller thread's own
    private ZMQ.Poller poller;
    private final List<Member> members = new ArrayList<>();
    private final byte[] wakeBuffer = new byte[1];

    ZmqPoller(ZContext zmq, String name) {
        this.zmq = zmq;
        this.endpoint = "inproc://" + name + "-" + IDS.incrementAndGet();
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
        try {
            if (!ready.await(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the ZeroMQ poller " + name + " did not start");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the ZeroMQ poller started", e);
        }
        if (startFailure != null) {
            throw startFailure;
        }
        wakeSender = zmq.createSocket(SocketType.PUSH);
        wakeSender.setLinger(0);
        wakeSender.connect(endpoint); // bound by the poller thread before ready
    }

    /** Hands {@code m}'s socket over to this poller: the caller must not touch it any more. */
    void register(Member m) {
        commands.add(() -> {
            poller.register(m.socket(), ZMQ.Poller.POLLIN);
            members.add(m);
        });
        wake();
    }

    /**
     * Stops receiving for {@code m} and closes its socket on this poller's thread; returns once that is done (or the
     * poller has stopped, which closes every socket it owned).
     */
    void unregister(Member m) {
        if (Thread.currentThread() == thread) {
            remove(m);
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        commands.add(() -> {
            remove(m);
            done.countDown();
        });
        wake();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        try {
            while (!done.await(100, TimeUnit.MILLISECONDS) && thread.isAlive() && System.nanoTime() < deadline) {
                wake(); // a wake message lost to a full pipe would leave the command waiting
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void remove(Member m) {
        int i = members.indexOf(m);
        if (i >= 0) {
            poller.unregister(m.socket());
            members.remove(i);
            closeQuietly(m.socket());
        }
    }

    private void wake() {
        synchronized (wakeLock) {
            if (!stopped || thread.isAlive()) {
                try {
                    wakeSender.send(wakeBuffer, 0, 1, ZMQ.DONTWAIT); // a full pipe: the poller is awake anyway
                } catch (ZMQException e) {
                    // the context is terminating: the poller stops on its own
                }
            }
        }
    }

    /** Loop passes so far (each poll that returned): a test's way to see that an idle poller sleeps. */
    long passes() {
        return passes;
    }

    /** The poller's thread, for tests. */
    Thread thread() {
        return thread;
    }

    private void run() {
        ZMQ.Socket wake;
        try {
            wake = zmq.createSocket(SocketType.PULL);
            wake.setLinger(0);
            wake.bind(endpoint);
            poller = zmq.createPoller(16);
            poller.register(wake, ZMQ.Poller.POLLIN); // index 0; the members follow in order
        } catch (RuntimeException e) {
            startFailure = e;
            ready.countDown();
            return;
        }
        ready.countDown();
        String failure = null;
        try {
            while (!stopped) {
                if (poller.poll(-1) < 0) {
                    break; // the context was closed
                }
                passes = passes + 1;
                List<Member> failed = null;
                final int n = members.size();
                for (int i = 0; i < n; i++) {
                    if (poller.pollin(i + 1)) {
                        Member m = members.get(i);
                        try {
                            m.readable();
                        } catch (RuntimeException e) {
                            if (failed == null) {
                                failed = new ArrayList<>();
                            }
                            failed.add(m);
                            m.ended("a subscriber stopped: " + e);
                        }
                    }
                }
                if (failed != null) {
                    for (Member m : failed) {
                        remove(m);
                    }
                }
                if (poller.pollin(0)) {
                    while (wake.recv(wakeBuffer, 0, 1, ZMQ.DONTWAIT) >= 0) {
                        // drained: the commands say what to do
                    }
                }
                Runnable c;
                while ((c = commands.poll()) != null) {
                    c.run();
                }
            }
        } catch (RuntimeException e) { // ZMQException, or JeroMQ's own on a terminating context
            if (!stopped) {
                failure = "the ZeroMQ poller " + thread.getName() + " stopped: " + e;
            }
        } finally {
            Runnable c;
            while ((c = commands.poll()) != null) { // registrations and removals still waiting
                try {
                    c.run();
                } catch (RuntimeException e) {
                    // the context is terminating: its sockets go with it
                }
            }
            for (Member m : members) {
                if (failure != null) {
                    m.ended(failure);
                }
                closeQuietly(m.socket());
            }
            members.clear();
            poller.close();
            closeQuietly(wake);
        }
    }

    private static void closeQuietly(ZMQ.Socket s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            // the context is terminating: the socket goes with it
        }
    }

    /** Stops the thread, which closes every socket it still owns. */
    @Override
    public void close() {
        stopped = true;
        wake();
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (wakeLock) {
            wakeSender.close();
        }
    }
}

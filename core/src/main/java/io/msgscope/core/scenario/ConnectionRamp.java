package io.msgscope.core.scenario;

import io.msgscope.core.driver.ConnectStats;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Opens an agent's scenario connections (issue 13): {@code count} connections through a few opener
 * threads (never one per connection; they end with the ramp), at most {@code rate} per second when a
 * rate is given (connection {@code i} is not begun before {@code start + i / rate}), each one's connect
 * time recorded in {@link ConnectStats}. A connection that fails is counted by kind there and the ramp
 * goes on; once {@link #giveUpAfter} connections failed it stops beginning new ones (the broker is
 * refusing: a limit such as max_connections or its file descriptors), and those never tried are
 * {@link #notAttempted()}. {@link #start} returns at once; {@link #done()} tells when the ramp ended.
 *
 * @param <T> the connection (a publisher or a subscriber)
 */
public final class ConnectionRamp<T extends AutoCloseable> {
    /** Opens connection {@code index}; throws to say why it could not. */
    @FunctionalInterface
    public interface Opener<T> {
        T open(int index) throws Exception;
    }

    /** Opener threads: enough to hide a connect round trip, few enough not to matter. */
    static final int MAX_THREADS = 8;

    private final int count;
    private final double rate;
    private final ConnectStats stats;
    private final Opener<T> opener;
    private final AtomicReferenceArray<T> opened;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final int giveUpAfter;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean cancelled;
    private volatile long startNs;

    public ConnectionRamp(int count, double rate, ConnectStats stats, Opener<T> opener) {
        this.count = count;
        this.rate = rate;
        this.stats = stats;
        this.opener = opener;
        this.opened = new AtomicReferenceArray<>(count);
        // a broker that refuses keeps refusing: stop after 1 % of the connections (at least 10) failed
        this.giveUpAfter = Math.max(10, count / 100);
    }

    /** Starts the opener threads (named {@code connect-N}) and returns. */
    public synchronized void start() {
        startNs = System.nanoTime();
        int n = Math.min(MAX_THREADS, Math.max(1, count));
        for (int t = 0; t < n; t++) {
            Thread th = new Thread(this::openLoop, "connect-" + t);
            th.setDaemon(true);
            threads.add(th);
            th.start();
        }
        if (count == 0) {
            finished.set(0);
        }
    }

    private void openLoop() {
        final double gapNs = rate > 0 ? 1e9 / rate : 0;
        int i;
        while (!cancelled && failures.get() < giveUpAfter && (i = next.getAndIncrement()) < count) {
            if (gapNs > 0) {
                long due = startNs + (long) (i * gapNs);
                long wait;
                while ((wait = due - System.nanoTime()) > 0 && !cancelled) {
                    LockSupport.parkNanos(wait);
                }
                if (cancelled) {
                    break;
                }
            }
            long t0 = System.nanoTime();
            try {
                T c = opener.open(i);
                stats.opened(System.nanoTime() - t0);
                opened.set(i, c);
                if (cancelled) { // closed meanwhile: the role is closing, do not leak this one
                    closeQuietly(c);
                }
            } catch (Exception | LinkageError e) {
                stats.failed(e);
                failures.incrementAndGet();
            }
            finished.incrementAndGet();
        }
    }

    /** True once every connection was tried, or the ramp gave up or was cancelled and its threads ended. */
    public boolean done() {
        if (finished.get() >= count) {
            return true;
        }
        for (Thread t : threads) {
            if (t.isAlive()) {
                return false;
            }
        }
        return !threads.isEmpty();
    }

    /** Waits for {@link #done()} up to {@code timeoutMs}; true when done. */
    public boolean await(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        for (Thread t : threads) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return done();
            }
            t.join(left);
        }
        return done();
    }

    public int target() {
        return count;
    }

    /** Connections open so far. */
    public int openCount() {
        return (int) stats.opened();
    }

    public int failedCount() {
        return failures.get();
    }

    /** Connections never begun because the ramp gave up or was cancelled (valid once done). */
    public int notAttempted() {
        return Math.max(0, count - finished.get());
    }

    /** Connection {@code i}, or null when it failed, was not tried or is not open yet. */
    public T get(int i) {
        return opened.get(i);
    }

    /** Stops beginning connections (those being opened still finish, and are closed by {@link #closeAll}). */
    public void cancel() {
        cancelled = true;
    }

    /** Cancels the ramp, waits up to 10 s for its threads, and closes every connection it opened. */
    public void closeAll() {
        cancel();
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (int i = 0; i < count; i++) {
            T c = opened.getAndSet(i, null);
            if (c != null) {
                closeQuietly(c);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}

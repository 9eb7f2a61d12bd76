package io.msgscope.agent.receiver;

import io.msgscope.core.driver.BacklogProbe;

import java.util.Arrays;

/**
 * Reads the broker's backlog through the driver's {@link BacklogProbe} every {@link #PERIOD_NS} on a thread of its
 * own (issue 31 item 3), from the measurement's go until the receiver stops it: each read is stamped at the midpoint
 * of its request and answer, on the receiver's monotonic clock (the trace's). A read that fails ends the sampling;
 * what was read is kept.
 */
final class BacklogSampler {
    /** 10 reads a second (issue 31 asks at least 5). */
    static final long PERIOD_NS = 100_000_000L;

    private final BacklogProbe probe;
    private long[] timeNs;
    private long[] depth;
    private int n;
    private volatile boolean stopped;
    private Thread thread;
    private volatile String failure;
    /** The last read's count and stamp, for the receiving thread (a phase that ends on the broker's count). */
    private volatile long latestDepth = -1;
    private volatile long latestNs = Long.MIN_VALUE;

    BacklogSampler(BacklogProbe probe, long expectedNs) {
        this.probe = probe;
        int cap = (int) Math.min(1 << 20, expectedNs / PERIOD_NS * 2 + 64);
        timeNs = new long[cap];
        depth = new long[cap];
    }

    void start() {
        Thread t = new Thread(this::run, "msgscope-backlog-probe");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void run() {
        long next = System.nanoTime();
        while (!stopped) {
            if (!read()) {
                return;
            }
            next += PERIOD_NS;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
        }
    }

    /** One read, stamped at its midpoint; false (and the reason kept) when it failed. */
    private boolean read() {
        try {
            long t0 = System.nanoTime();
            long d = probe.depth();
            long t1 = System.nanoTime();
            if (n == timeNs.length) {
                timeNs = Arrays.copyOf(timeNs, n * 2);
                depth = Arrays.copyOf(depth, n * 2);
            }
            timeNs[n] = t0 + (t1 - t0) / 2;
            depth[n] = d;
            latestDepth = d; // the count before its stamp: a reader that sees the stamp sees this count or a later one
            latestNs = timeNs[n];
            n++;
            return true;
        } catch (Exception e) {
            failure = e.getMessage();
            return false;
        }
    }

    /**
     * Stops the reads, waits for the thread and takes one last read (after the receiver's last arrival, so a drained
     * backlog reads 0 on both sides); the samples are then final. Once only.
     */
    void stop() {
        stop(0);
    }

    /**
     * As {@link #stop()}, then while the last read is above 0, up to {@code settleReads} more reads {@link #PERIOD_NS}
     * apart: the broker may still count acknowledgements on their way (scenario mode, issue 31 item 3).
     */
    void stop(int settleReads) {
        if (stopped) {
            return;
        }
        stopped = true;
        Thread t = thread;
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!t.isAlive() && failure == null) {
                read();
                for (int k = 0; k < settleReads && failure == null && n > 0 && depth[n - 1] > 0; k++) {
                    java.util.concurrent.locks.LockSupport.parkNanos(PERIOD_NS);
                    read();
                }
            }
        }
        try {
            probe.close();
        } catch (Exception e) {
            // closing anyway
        }
    }

    /** The last read's stamp on the receiver's monotonic clock; MIN_VALUE before the first. */
    long latestNs() {
        return latestNs;
    }

    /** The last read's count (read after {@link #latestNs}: at least as recent); -1 before the first. */
    long latestDepth() {
        return latestDepth;
    }

    long[] timeNs() {
        return timeNs;
    }

    /** {@link BacklogProbe#heldUncountedMax}, as one value for the upload. */
    long[] heldUncountedMax() {
        return new long[] {probe.heldUncountedMax()};
    }

    long[] depth() {
        return depth;
    }

    int samples() {
        return n;
    }

    /** Why the reads stopped early, or null. */
    String failure() {
        return failure;
    }
}

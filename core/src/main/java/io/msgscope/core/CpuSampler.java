package io.msgscope.core;

import java.util.Arrays;

/**
 * The every-Nth-message CPU samples of one role's hot thread (M3, D5): sample k is taken at message
 * k·N and a final one after the last message, into arrays preallocated for all of them. A sample
 * reads the monotonic clock, the thread's CPU time (ns) and, at most every 10 ms, the process's CPU
 * time (10 ms ticks);
 * the time spent sampling is itself measured, so its overhead can be reported.
 *
 * <p>Thread CPU time is per thread, so every sample of the series reads one thread's counter: the thread that
 * took the first sample (the owner). A push driver delivers on its client library's thread while the final
 * sample is taken on msgscope's receiver thread after the drain; that sample, and any other taken off the
 * owner, reads the owner's counter by its id (issue 27: subtracting two threads' counters gave nonsense).
 */
public final class CpuSampler {
    public static final long ABSENT = SendRecorder.ABSENT;

    private final int every;
    private final long[] sampleNs;
    private final long[] threadCpuNs;
    private final long[] processCpuNs;
    private final long[] waitingCpuNs;
    /** Thread CPU spent waiting so far (a paced sender's parking and spinning), added by the hot loop. */
    private long waitingNs;
    /** The series' length: the final sample's slot + 1 ({@link #endAt}); volatile, set on a thread that may not sample. */
    private volatile int slots;
    private long samples;
    private long samplingNs;
    private long lastProcessNs = Long.MIN_VALUE / 2;
    /** The thread whose CPU the series counts (the first sample's); volatile: the final sample may be another's. */
    private volatile Thread owner;

    /** Process CPU advances in 10 ms ticks, so it is read at most this often (skipped slots are bridged). */
    static final long PROCESS_MIN_INTERVAL_NS = 10_000_000L;

    /**
     * @param count messages in the run
     * @param every N; must be positive
     */
    public CpuSampler(long count, int every) {
        if (every < 1) {
            throw new IllegalArgumentException("every must be positive");
        }
        this.every = every;
        int slots = slots(count, every);
        this.slots = slots;
        sampleNs = new long[slots];
        threadCpuNs = new long[slots];
        processCpuNs = new long[slots];
        waitingCpuNs = new long[slots];
        Arrays.fill(sampleNs, ABSENT);
        Arrays.fill(threadCpuNs, ABSENT);
        Arrays.fill(processCpuNs, ABSENT);
        Arrays.fill(waitingCpuNs, ABSENT);
    }

    /** K + 1 slots: one per window start, ceil(count / every), and the final sample. */
    public static int slots(long count, int every) {
        return (int) ((count + every - 1) / every) + 1;
    }

    /**
     * The run turned out to hold {@code count} messages, fewer than it was sized for (a drain that published ended
     * before its cap, issue 31): the final sample goes to that count's slot, and only that many slots are the series.
     */
    public void endAt(long count) {
        slots = Math.min(sampleNs.length, slots(count, every));
    }

    public int every() {
        return every;
    }

    /** Takes sample {@code k}; the hot path calls it when {@code seq % every == 0} (k = seq / every) and once at the end. */
    public void sample(int k) {
        final long t0 = System.nanoTime();
        final Thread me = Thread.currentThread();
        Thread o = owner;
        if (o == null) {
            owner = me;
            o = me;
        }
        threadCpuNs[k] = o == me ? CpuClock.threadCpuNs() : CpuClock.threadCpuNs(o);
        if (t0 - lastProcessNs >= PROCESS_MIN_INTERVAL_NS || k == slots - 1) {
            processCpuNs[k] = CpuClock.processCpuNs(); // 10 ms ticks: more often tells nothing
            lastProcessNs = t0;
        }
        waitingCpuNs[k] = threadCpuNs[k] == ABSENT ? ABSENT : waitingNs; // missing where the thread's CPU is
        final long t1 = System.nanoTime();
        sampleNs[k] = t0;
        samples++;
        samplingNs += t1 - t0;
    }

    /**
     * Reads both CPU clocks a few thousand times before the run, so class loading and compilation of
     * the management beans stay out of the first measured samples.
     */
    public void warmUp() {
        long sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += CpuClock.threadCpuNs() + CpuClock.processCpuNs();
        }
        if (sink == 42) {
            System.out.print("");
        }
    }

    /**
     * Adds CPU time the owning thread spent waiting rather than working (a paced sender's wait for its next send
     * time): each sample keeps the sum so far, so the waiting part of every window is known (issue 27).
     */
    public void addWaiting(long cpuNs) {
        waitingNs += cpuNs;
    }

    /** The CPU spent waiting up to each sample (see {@link #addWaiting}); 0 for a thread that never waits. */
    public long[] waitingCpuNs() {
        return waitingCpuNs;
    }

    /** Index of the final sample, taken after the last message. */
    public int finalSlot() {
        return slots - 1;
    }

    public long[] sampleNs() {
        return sampleNs;
    }

    public long[] threadCpuNs() {
        return threadCpuNs;
    }

    public long[] processCpuNs() {
        return processCpuNs;
    }

    public int slots() {
        return slots;
    }

    public long samples() {
        return samples;
    }

    /** Total time spent inside {@link #sample}: the sampling overhead. */
    public long samplingNs() {
        return samplingNs;
    }
}

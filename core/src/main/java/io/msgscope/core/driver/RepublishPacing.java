package io.msgscope.core.driver;

/**
 * When a reconnecting publisher sends its failed publishes again (issue 32 item 3): in rounds, the first at once,
 * then, while the system acknowledges nothing, each round waits twice as long as the one before, from
 * {@code firstWaitNs} up to {@code maxWaitNs}; an acknowledgement brings the wait back to the first. A cluster that
 * is still electing a leader refuses every publish at once (no responders, a nack), and a publisher that sent its
 * whole backlog of failures again every 100 ms would hit it with 30-50 times the run's rate while it recovers
 * (BENCHMARKS.md "Kills and pauses on the project's clusters"): a storm that would slow the recovery being measured.
 *
 * <p>{@link #due} on the sending thread; {@link #acked} from any thread (a client library's callback).
 */
public final class RepublishPacing {
    private final long firstWaitNs;
    private final long maxWaitNs;
    private volatile boolean ackedSinceRound;
    private long waitNs; // sending thread only
    private long lastRoundNs;
    private boolean started;

    public RepublishPacing(long firstWaitNs, long maxWaitNs) {
        if (firstWaitNs <= 0 || maxWaitNs < firstWaitNs) {
            throw new IllegalArgumentException("waits " + firstWaitNs + ", " + maxWaitNs);
        }
        this.firstWaitNs = firstWaitNs;
        this.maxWaitNs = maxWaitNs;
        this.waitNs = firstWaitNs;
    }

    /** Any thread: the system acknowledged a publish; the next round waits the first wait again. */
    public void acked() {
        ackedSinceRound = true;
    }

    /**
     * Sending thread, {@code nowNs} from {@link System#nanoTime}: whether a round of sending again may start now; when
     * it may, the round is taken as started (the next one waits the wait this one sets).
     */
    public boolean due(long nowNs) {
        if (started && nowNs - lastRoundNs < waitNs) {
            return false;
        }
        if (started) {
            waitNs = ackedSinceRound ? firstWaitNs : Math.min(maxWaitNs, waitNs * 2);
        }
        ackedSinceRound = false;
        started = true;
        lastRoundNs = nowNs;
        return true;
    }

    /** The wait before the round after the last one started. */
    public long waitNs() {
        return waitNs;
    }
}

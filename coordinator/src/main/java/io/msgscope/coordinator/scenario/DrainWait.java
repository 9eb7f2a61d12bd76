package io.msgscope.coordinator.scenario;

/**
 * When a scenario's wait for in-flight messages ends (requirement Q9: the final aggregation waits for them; issue 31
 * item 1: "until drained", as trace mode's {@code --drain-timeout}). After the publishers stopped, the coordinator polls
 * the subscribers every 100 ms and feeds each poll's delivery count here: the wait ends as soon as the deliveries reach
 * those expected, or every subscription is lost, or no delivery arrived for {@code --drain-timeout} ms — the count did
 * not grow over that long, so what is still missing counts as lost. A backlog that keeps draining is waited out
 * however long it takes (it used to be cut after 5 s in all and its rest counted lost).
 *
 * <p>The clock is the caller's: each poll passes its time, so the decision is tested without waiting.
 */
final class DrainWait {
    /** How a poll leaves the wait. */
    enum End {
        /** Still waiting: poll again. */
        WAITING,
        /** The deliveries reached those expected. */
        DRAINED,
        /** Every subscription is lost: nothing more can arrive. */
        ALL_LOST,
        /** No delivery for the timeout: the rest counts as lost. */
        STALLED
    }

    private final long expected;
    private final long timeoutMs;
    private long lastReceived = -1;
    private long lastProgressMs;

    /**
     * @param expected  the deliveries the scenario expects of what the publishers sent
     * @param timeoutMs how long the wait may go without a delivery ({@code --drain-timeout}, ≥ 0; 0 = one poll)
     */
    DrainWait(long expected, long timeoutMs) {
        this.expected = expected;
        this.timeoutMs = timeoutMs;
    }

    /**
     * One poll's answer.
     *
     * @param nowMs    the poll's time, ms on any clock that only moves forward (the caller's)
     * @param received the deliveries counted so far, over every subscriber
     * @param allLost  true when every subscription is lost
     */
    End at(long nowMs, long received, boolean allLost) {
        return at(nowMs, received, received, allLost);
    }

    /**
     * One poll's answer, where {@code arrivals} also counts the warm-up's deliveries: a backlog the warm-up left in a
     * queue is delivered before the measured messages behind it, and each of its deliveries is progress too (a
     * measured count standing still while the subscribers work through it is no stall).
     *
     * @param arrivals every delivery counted so far, the warm-up's included
     */
    End at(long nowMs, long received, long arrivals, boolean allLost) {
        if (received >= expected) {
            return End.DRAINED;
        }
        if (allLost) {
            return End.ALL_LOST;
        }
        if (arrivals > lastReceived) { // the first poll starts the clock; each delivery restarts it
            lastReceived = arrivals;
            lastProgressMs = nowMs;
        }
        return nowMs - lastProgressMs >= timeoutMs ? End.STALLED : End.WAITING;
    }

    /** The ms since the last delivery (or the first poll) at {@code nowMs}: how close the wait is to its timeout. */
    long quietMs(long nowMs) {
        return lastReceived < 0 ? 0 : nowMs - lastProgressMs;
    }

    /** The deliveries the wait ends at. */
    long expected() {
        return expected;
    }

    /** The timeout without a delivery, ms ({@code --drain-timeout}). */
    long timeoutMs() {
        return timeoutMs;
    }
}

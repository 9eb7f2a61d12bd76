package io.msgscope.core;

import java.time.Instant;

/**
 * The two clocks of R1. The trace uses {@link System#nanoTime()} (CLOCK_MONOTONIC, system-wide on
 * Linux, so O_n and I_n taken by two processes of one box are comparable, M1). The payload's
 * bytes 0-7 carry epoch nanoseconds derived from the same monotonic reading through an offset
 * fixed once per process, so both views of a message agree exactly.
 */
public final class Clock {
    private final long epochMinusMono;
    /** The test hook's shift of the epoch clock (issue 33), null in every normal run. */
    private final io.msgscope.core.clock.ClockShift shift;

    private Clock(long epochMinusMono) {
        this(epochMinusMono, null);
    }

    private Clock(long epochMinusMono, io.msgscope.core.clock.ClockShift shift) {
        this.epochMinusMono = epochMinusMono;
        this.shift = shift;
    }

    private static Clock process;

    /**
     * This process's clock, calibrated on first use: every part of one agent process (its roles, its
     * answers to clock probes) then stamps the same epoch for the same monotonic reading.
     */
    public static synchronized Clock process() {
        if (process == null) {
            io.msgscope.core.clock.ClockShift hook = io.msgscope.core.clock.ClockShift.fromEnvironment();
            process = new Clock(calibrate().epochMinusMono, hook);
            if (hook != null) {
                System.err.println("msgscope: TEST HOOK " + io.msgscope.core.clock.ClockShift.ENV + ": this agent's "
                        + "epoch clock is shifted (" + hook + ")");
            }
        }
        return process;
    }

    /** Calibrates the epoch offset once, from the tightest of a few paired readings. */
    public static Clock calibrate() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 16; i++) {
            long before = System.nanoTime();
            Instant now = Instant.now();
            long after = System.nanoTime();
            long width = after - before;
            if (width < best) {
                best = width;
                long epoch = now.getEpochSecond() * 1_000_000_000L + now.getNano();
                offset = epoch - (before + width / 2);
            }
        }
        return new Clock(offset);
    }

    /** A clock with a given offset, for tests. */
    public static Clock withOffset(long epochMinusMono) {
        return new Clock(epochMinusMono);
    }

    public long monoNow() {
        return System.nanoTime();
    }

    /** The epoch time of {@code monoNs}: with the test hook (issue 33), shifted. */
    public long toEpoch(long monoNs) {
        return monoNs + epochMinusMono + (shift == null ? 0 : shift.at(monoNs));
    }

    /** The test hook's shift (issue 33), null in every normal run: stamps taken from {@link #epochMinusMono} add it. */
    public io.msgscope.core.clock.ClockShift shift() {
        return shift;
    }

    public long toMono(long epochNs) {
        return epochNs - epochMinusMono;
    }

    public long epochMinusMono() {
        return epochMinusMono;
    }
}

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

    private Clock(long epochMinusMono) {
        this.epochMinusMono = epochMinusMono;
    }

    private static Clock process;

    /**
     * This process's clock, calibrated on first use: every part of one agent process (its roles, its
     * answers to clock probes) then stamps the same epoch for the same monotonic reading.
     */
    public static synchronized Clock process() {
        if (process == null) {
            process = calibrate();
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

    public long toEpoch(long monoNs) {
        return monoNs + epochMinusMono;
    }

    public long toMono(long epochNs) {
        return epochNs - epochMinusMono;
    }

    public long epochMinusMono() {
        return epochMinusMono;
    }
}

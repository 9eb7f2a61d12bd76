package io.msgscope.core.clock;

import java.util.Locale;

/**
 * A TEST HOOK (issue 33): shifts one agent's epoch clock — its payload stamps and its answers to clock probes — by a
 * known offset, drift and step (and in trace mode the monotonic clock as others see it: a trace sender's uploaded
 * times and every agent's monotonic answers to clock probes), so that clock tracking can be tested on one box. It is on only when the environment
 * variable {@value #ENV} is set in the agent's own environment (never by an option, a spec or a file), the agent says
 * so on its standard error, and its boot id gains {@value #BOOT_ID_SUFFIX}: the coordinator then treats it as another
 * box (cross-host, R1) and the summary names it.
 *
 * <p>The value: {@code offset=-3.7ms,drift=-20ppm,step=-2ms@4s} — every part optional; durations in ns, us, ms or s;
 * the drift and the step's time counted from the agent's first payload stamp (the warm-up's first message).
 */
public final class ClockShift {
    public static final String ENV = "MSGSCOPE_TEST_CLOCK_SHIFT";
    public static final String BOOT_ID_SUFFIX = "+clock-shift-test-hook";

    private final long offsetNs;
    private final double drift;
    private final long stepNs;
    private final long stepAfterNs;
    private volatile long origin = Long.MIN_VALUE;

    ClockShift(long offsetNs, double drift, long stepNs, long stepAfterNs) {
        this.offsetNs = offsetNs;
        this.drift = drift;
        this.stepNs = stepNs;
        this.stepAfterNs = stepAfterNs;
    }

    /** The hook asked for by this process's environment, or null (the normal case). */
    public static ClockShift fromEnvironment() {
        String v = System.getenv(ENV);
        return v == null || v.isBlank() ? null : parse(v);
    }

    /** Parses the hook's value; a bad one is refused, naming {@value #ENV}. */
    public static ClockShift parse(String v) {
        long offset = 0;
        double drift = 0;
        long step = 0;
        long after = Long.MAX_VALUE;
        for (String part : v.split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException(ENV + ": expected key=value, got '" + part + "'");
            }
            String val = kv[1].trim();
            switch (kv[0].trim()) {
                case "offset" -> offset = nanos(val);
                case "drift" -> {
                    if (!val.endsWith("ppm")) {
                        throw new IllegalArgumentException(ENV + ": drift in ppm, e.g. drift=20ppm");
                    }
                    drift = Double.parseDouble(val.substring(0, val.length() - 3)) * 1e-6;
                }
                case "step" -> {
                    String[] at = val.split("@", 2);
                    if (at.length != 2) {
                        throw new IllegalArgumentException(ENV + ": step=SIZE@AFTER, e.g. step=2ms@4s");
                    }
                    step = nanos(at[0]);
                    after = nanos(at[1]);
                }
                default -> throw new IllegalArgumentException(ENV + ": unknown key '" + kv[0].trim() + "'");
            }
        }
        return new ClockShift(offset, drift, step, after);
    }

    /** "3.7ms", "-20us", "4s", "500ns" as ns. */
    static long nanos(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        String[][] units = {{"ns", "1"}, {"us", "1e3"}, {"ms", "1e6"}, {"s", "1e9"}};
        for (String[] u : units) {
            if (s.endsWith(u[0]) && !(u[0].equals("s") && (s.endsWith("ns") || s.endsWith("us") || s.endsWith("ms")))) {
                return Math.round(Double.parseDouble(s.substring(0, s.length() - u[0].length())) * Double.parseDouble(u[1]));
            }
        }
        throw new IllegalArgumentException(ENV + ": '" + v + "' is not a duration (ns, us, ms, s)");
    }

    /**
     * The shift at monotonic time {@code monoNs}: the offset alone before the first payload stamp, then drifting and
     * stepping from it.
     */
    public long at(long monoNs) {
        long o = origin;
        long since = o == Long.MIN_VALUE ? 0 : monoNs - o;
        return offsetNs + Math.round(drift * since) + (since >= stepAfterNs ? stepNs : 0);
    }

    /** The shift of a payload stamp taken at {@code monoNs}; the first one sets the origin of the drift and the step. */
    public long atStamp(long monoNs) {
        if (origin == Long.MIN_VALUE) {
            origin = monoNs;
        }
        return at(monoNs);
    }

    /**
     * The first {@code n} monotonic times of {@code times} shifted (a copy; {@code Long.MIN_VALUE}, an absent time,
     * stays): trace mode's sender uploads its O_n so, as another box's clock would read them (issue 33 item 3).
     */
    public long[] shifted(long[] times, int n) {
        long[] out = java.util.Arrays.copyOf(times, Math.min(n, times.length));
        for (int i = 0; i < out.length; i++) {
            if (out[i] != Long.MIN_VALUE) {
                out[i] += at(out[i]);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "offset %d ns, drift %.3f ppm, step %d ns after %s", offsetNs, drift * 1e6,
                stepNs, stepAfterNs == Long.MAX_VALUE ? "never" : stepAfterNs + " ns");
    }
}

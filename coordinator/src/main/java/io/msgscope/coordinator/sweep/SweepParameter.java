package io.msgscope.coordinator.sweep;

import io.msgscope.core.SpecException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The parameter a sweep varies and the list of its values, parsed from the command line.
 * Sizes take binary suffixes ({@code 1k} = 1024, {@code 1m} = 1048576); rates take decimal ones
 * ({@code 20k} = 20000); windows and send batches are plain integers.
 */
public final class SweepParameter {
    /** Which {@code run} option a sweep varies. */
    public enum Kind {
        SIZE("--sizes", "--size", "size", "message size [B]", true),
        RATE("--rates", "--rate", "rate", "send rate [msg/s]", false),
        WINDOW("--windows", "--window", "window", "window M", false),
        BATCH("--batches", "--send-batch", "batch", "messages per write (send batch)", true);

        public final String sweepOption;
        public final String runOption;
        public final String column;
        public final String axisLabel;
        public final boolean logAxis;

        Kind(String sweepOption, String runOption, String column, String axisLabel, boolean logAxis) {
            this.sweepOption = sweepOption;
            this.runOption = runOption;
            this.column = column;
            this.axisLabel = axisLabel;
            this.logAxis = logAxis;
        }

        /** The kind whose {@code run} option is this column name ({@code size}, {@code rate}, {@code window}). */
        public static Kind ofColumn(String column) {
            for (Kind k : values()) {
                if (k.column.equals(column)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown sweep parameter " + column);
        }
    }

    private final Kind kind;
    private final List<Double> values;

    private SweepParameter(Kind kind, List<Double> values) {
        this.kind = kind;
        this.values = List.copyOf(values);
    }

    public Kind kind() {
        return kind;
    }

    public List<Double> values() {
        return values;
    }

    /** Parses a comma-separated list for the given kind; errors name {@code kind.sweepOption}. */
    public static SweepParameter parse(Kind kind, String text) {
        String opt = kind.sweepOption;
        if (text == null || text.isBlank()) {
            throw new SpecException(opt, "needs a comma-separated list of values, got nothing");
        }
        List<Double> out = new ArrayList<>();
        for (String raw : text.split(",", -1)) {
            String t = raw.trim();
            if (t.isEmpty()) {
                throw new SpecException(opt, "empty value in '" + text + "'");
            }
            double v = switch (kind) {
                case SIZE -> parseSize(opt, t);
                case RATE -> parseRate(opt, t);
                case WINDOW, BATCH -> parseWindow(opt, t);
            };
            if (out.contains(v)) {
                throw new SpecException(opt, "value '" + t + "' is listed twice");
            }
            out.add(v);
        }
        return new SweepParameter(kind, out);
    }

    static double parseSize(String opt, String t) {
        long mult = 1;
        String digits = t;
        char last = Character.toLowerCase(t.charAt(t.length() - 1));
        if (last == 'k') {
            mult = 1024;
            digits = t.substring(0, t.length() - 1);
        } else if (last == 'm') {
            mult = 1024 * 1024;
            digits = t.substring(0, t.length() - 1);
        }
        long n;
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new SpecException(opt, "'" + t + "' is not a size (an integer with optional k or m, e.g. 64, 1k, 1m)");
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(n, mult);
        } catch (ArithmeticException e) {
            bytes = Long.MAX_VALUE;
        }
        if (n < 1 || bytes > Integer.MAX_VALUE) {
            throw new SpecException(opt, "size '" + t + "' must be between 1 B and " + Integer.MAX_VALUE + " B");
        }
        return bytes;
    }

    static double parseRate(String opt, String t) {
        double mult = 1;
        String digits = t;
        char last = Character.toLowerCase(t.charAt(t.length() - 1));
        if (last == 'k') {
            mult = 1e3;
            digits = t.substring(0, t.length() - 1);
        } else if (last == 'm') {
            mult = 1e6;
            digits = t.substring(0, t.length() - 1);
        }
        double r;
        try {
            r = Double.parseDouble(digits) * mult;
        } catch (NumberFormatException e) {
            throw new SpecException(opt, "'" + t + "' is not a rate in msg/s (e.g. 20000, 20k, 0 = full speed)");
        }
        if (!(r >= 0) || Double.isInfinite(r) || digits.matches(".*[a-zA-Z].*")) {
            throw new SpecException(opt, "rate '" + t + "' must be a finite number >= 0 msg/s");
        }
        return r;
    }

    static double parseWindow(String opt, String t) {
        int w;
        try {
            w = Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new SpecException(opt, "'" + t + "' is not a window (a positive integer)");
        }
        if (w < 1) {
            throw new SpecException(opt, "window '" + t + "' must be at least 1");
        }
        return w;
    }

    /** The value as the {@code run} option wants it ({@code 1024}, {@code 20000}, {@code 2500.5}). */
    public static String argument(double v) {
        return format(v);
    }

    /** A short, locale-independent label: integers without a fraction. */
    public static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%s", v);
    }
}

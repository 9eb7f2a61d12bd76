package io.msgscope.coordinator.sweep;

import io.msgscope.core.SpecException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The parameter a sweep varies (M7) and the list of its values, parsed from the command line.
 * Sizes take binary suffixes ({@code 1k} = 1024, {@code 1m} = 1048576); rates take decimal ones
 * ({@code 20k} = 20000); windows, send batches and in-flight counts are plain integers (in-flight
 * also with decimal suffixes); a driver option ({@code --opt-values KEY=v1,v2}) takes any values the
 * driver accepts, numeric or not (checked by the driver, {@code Driver#checkOptions}).
 *
 * <p>Each value has a position on the x axis ({@link #values()}) and a label ({@link #labels()}):
 * the number itself, or for a non-numeric option (e.g. {@code persistent=false,true}) its index
 * 0, 1, 2 with the text as the label.
 */
public final class SweepParameter {
    /** Which option of {@code run} (or {@code throughput}) a sweep varies. */
    public enum Kind {
        SIZE("--sizes", "--size", "size", "message size [B]", true, true, true),
        RATE("--rates", "--rate", "rate", "send rate [msg/s]", false, true, false),
        WINDOW("--windows", "--window", "window", "window M", false, true, false),
        BATCH("--batches", "--send-batch", "batch", "messages per write (send batch)", true, true, false),
        IN_FLIGHT("--in-flights", "--in-flight", "in_flight", "messages in flight F", true, false, true),
        OPT("--opt-values", "--opt", "opt", "driver option", false, true, true);

        public final String sweepOption;
        public final String runOption;
        public final String column;
        public final String axisLabel;
        public final boolean logAxis;
        /** Whether {@code msgscope run} (trace mode) has this option. */
        public final boolean inRunMode;
        /** Whether {@code msgscope throughput} has this option. */
        public final boolean inThroughputMode;

        Kind(String sweepOption, String runOption, String column, String axisLabel, boolean logAxis,
             boolean inRunMode, boolean inThroughputMode) {
            this.sweepOption = sweepOption;
            this.runOption = runOption;
            this.column = column;
            this.axisLabel = axisLabel;
            this.logAxis = logAxis;
            this.inRunMode = inRunMode;
            this.inThroughputMode = inThroughputMode;
        }
    }

    /** Option keys and values that can name a folder and a gnuplot label unquoted. */
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._:+-]+");

    private final Kind kind;
    private final String key;
    private final List<Double> values;
    private final List<String> labels;
    private final boolean numeric;

    private SweepParameter(Kind kind, String key, List<Double> values, List<String> labels, boolean numeric) {
        this.kind = kind;
        this.key = key;
        this.values = List.copyOf(values);
        this.labels = List.copyOf(labels);
        this.numeric = numeric;
    }

    /** A parameter given by its values (tests, reading back a sweep). */
    public static SweepParameter of(Kind kind, List<Double> values) {
        return new SweepParameter(kind, null, values, values.stream().map(SweepParameter::format).toList(), true);
    }

    public Kind kind() {
        return kind;
    }

    /** The driver option's key of an {@link Kind#OPT} sweep, else null. */
    public String key() {
        return key;
    }

    /** The x position of each value: the value itself, or its index for non-numeric option values. */
    public List<Double> values() {
        return values;
    }

    /** Each value as given (sizes and rates expanded: {@code 1k} is {@code 1024}). */
    public List<String> labels() {
        return labels;
    }

    /** False for an option with non-numeric values: the x axis is then categorical. */
    public boolean numeric() {
        return numeric;
    }

    /** Column name in the tables: {@code size}, {@code in_flight}, or the option's key ({@code tx_size}). */
    public String column() {
        return kind == Kind.OPT ? key : kind.column;
    }

    /** Axis label of the plots. */
    public String axisLabel() {
        return kind == Kind.OPT ? "driver option " + key : kind.axisLabel;
    }

    /** Log x axis when it makes sense: all values positive and either a size-like kind or spanning 100x. */
    public boolean logAxis() {
        if (!numeric || values.isEmpty()) {
            return false;
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return min > 0 && (kind.logAxis && max / min >= 4 || max / min >= 100) && kind != Kind.WINDOW;
    }

    /** The arguments that set value {@code i} on {@code run}/{@code throughput}, e.g. {@code --opt tx_size=10}. */
    public List<String> arguments(int i) {
        return List.of(kind.runOption, kind == Kind.OPT ? key + "=" + labels.get(i) : labels.get(i));
    }

    /** A folder-safe name of value {@code i}. */
    public String dirName(int i) {
        return labels.get(i).replaceAll("[^A-Za-z0-9._+-]", "_");
    }

    /** Parses a comma-separated list for the given kind; errors name {@code kind.sweepOption}. */
    public static SweepParameter parse(Kind kind, String text) {
        String opt = kind.sweepOption;
        if (text == null || text.isBlank()) {
            throw new SpecException(opt, "needs a comma-separated list of values, got nothing");
        }
        String key = null;
        String list = text;
        if (kind == Kind.OPT) {
            int eq = text.indexOf('=');
            if (eq <= 0) {
                throw new SpecException(opt, "must be KEY=v1,v2,... (a driver option and its values), got '" + text + "'");
            }
            key = text.substring(0, eq).trim();
            list = text.substring(eq + 1);
            if (!SAFE.matcher(key).matches()) {
                throw new SpecException(opt, "'" + key + "' is not an option key");
            }
        }
        List<String> raws = new ArrayList<>();
        for (String raw : list.split(",", -1)) {
            String t = raw.trim();
            if (t.isEmpty()) {
                throw new SpecException(opt, "empty value in '" + text + "'");
            }
            if (raws.contains(t)) {
                throw new SpecException(opt, "value '" + t + "' is listed twice");
            }
            raws.add(t);
        }
        if (kind == Kind.OPT) {
            return optionValues(key, raws);
        }
        List<Double> out = new ArrayList<>();
        for (String t : raws) {
            double v = switch (kind) {
                case SIZE -> parseSize(opt, t);
                case RATE -> parseRate(opt, t);
                case WINDOW, BATCH -> parseWindow(opt, t);
                case IN_FLIGHT -> parseInFlight(opt, t);
                case OPT -> throw new IllegalStateException();
            };
            if (out.contains(v)) {
                throw new SpecException(opt, "value '" + t + "' is listed twice");
            }
            out.add(v);
        }
        return of(kind, out);
    }

    private static SweepParameter optionValues(String key, List<String> raws) {
        List<Double> xs = new ArrayList<>();
        boolean numeric = true;
        for (String t : raws) {
            if (!SAFE.matcher(t).matches()) {
                throw new SpecException(Kind.OPT.sweepOption, "value '" + t + "' of " + key
                        + " must be letters, digits or . _ : + - (no spaces, commas or quotes)");
            }
            try {
                double d = Double.parseDouble(t);
                numeric &= Double.isFinite(d) && !xs.contains(d);
                xs.add(d);
            } catch (NumberFormatException e) {
                numeric = false;
            }
        }
        if (!numeric) {
            xs.clear();
            for (int i = 0; i < raws.size(); i++) {
                xs.add((double) i);
            }
        }
        return new SweepParameter(Kind.OPT, key, xs, raws, numeric);
    }

    public static double parseSize(String opt, String t) {
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

    /** In-flight counts: whole numbers 1 ... 100000000, {@code k} = 1000 and {@code m} = 1000000 allowed. */
    static double parseInFlight(String opt, String t) {
        double f;
        try {
            f = parseRate(opt, t);
        } catch (SpecException e) {
            f = Double.NaN;
        }
        if (!(f >= 1 && f <= 100_000_000) || f != Math.rint(f)) {
            throw new SpecException(opt, "in-flight count '" + t + "' must be a whole number between 1 and 100000000"
                    + " (k = 1000 allowed; 'auto' is not a sweep value)");
        }
        return f;
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

package io.msgscope.coordinator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The automatic search for the in-flight count F that maximises throughput (A6). Step the exponent
 * 0, 1, 2, … (F = 10^e) until the median throughput falls; the bounds are then
 * [10^(last−2), 10^last]; narrow the interval until it is smaller than 1 % of its mean and take that
 * mean. A plain bisection cannot tell from one midpoint on which side a maximum lies, so the
 * interval is narrowed by golden-section search on log F — the one-new-probe-per-step bisection
 * for a maximum: two interior points, keep the side of the better one, shrink by 0.618 each step.
 * Probes are cached, so no F is measured twice.
 */
public final class FSearch {
    /** One measurement at a given F. */
    public record Probe(long inFlight, double median, double mean, double stddev, int samples, String phase) {
    }

    /** Measures the throughput at F. */
    @FunctionalInterface
    public interface Measure {
        Probe at(long inFlight, String phase) throws Exception;
    }

    /** The search's result: the chosen F, the final bounds and every probe in order. */
    public record Result(long optimal, long lo, long hi, int lastExponent, boolean fell, List<Probe> probes) {
    }

    private final Measure measure;
    private final Consumer<Probe> progress;
    private final Map<Long, Probe> cache = new LinkedHashMap<>();
    private final List<Probe> order = new ArrayList<>();

    public FSearch(Measure measure, Consumer<Probe> progress) {
        this.measure = measure;
        this.progress = progress;
    }

    private Probe probe(long f, String phase) throws Exception {
        Probe p = cache.get(f);
        if (p == null) {
            p = measure.at(f, phase);
            cache.put(f, p);
            order.add(p);
            progress.accept(p);
        }
        return p;
    }

    /**
     * @param maxExponent the largest exponent stepped to (F = 10^maxExponent); if throughput never
     *                    falls the bounds are taken below it and the result says so
     */
    public Result run(int maxExponent) throws Exception {
        double prev = Double.NEGATIVE_INFINITY;
        int last = -1;
        for (int e = 0; e <= maxExponent; e++) {
            Probe p = probe(pow10(e), "step");
            if (e > 0 && p.median() < prev) {
                last = e;
                break;
            }
            prev = p.median();
        }
        boolean fell = last >= 0;
        if (!fell) {
            last = maxExponent;
        }
        double a = Math.max(0, last - 2);
        double b = last;
        double c1 = b - GOLDEN * (b - a);
        double c2 = a + GOLDEN * (b - a);
        while (!narrowEnough(a, b)) {
            double f1 = probe(f(c1), "golden").median();
            double f2 = probe(f(c2), "golden").median();
            if (f1 >= f2) { // the maximum lies in [a, c2]
                b = c2;
                c2 = c1;
                c1 = b - GOLDEN * (b - a);
            } else { // in [c1, b]
                a = c1;
                c1 = c2;
                c2 = a + GOLDEN * (b - a);
            }
        }
        long lo = f(a);
        long hi = f(b);
        return new Result((lo + hi) / 2, lo, hi, last, fell, List.copyOf(order));
    }

    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;

    /** A6's stop: the interval is under 1 % of its mean (or down to neighbouring integers). */
    private static boolean narrowEnough(double a, double b) {
        long lo = f(a);
        long hi = f(b);
        return hi - lo <= 1 || (hi - lo) < 0.01 * (lo + hi) / 2.0;
    }

    private static long f(double log10) {
        return Math.max(1, Math.round(Math.pow(10, log10)));
    }

    static long pow10(int e) {
        long v = 1;
        for (int i = 0; i < e; i++) {
            v *= 10;
        }
        return v;
    }
}

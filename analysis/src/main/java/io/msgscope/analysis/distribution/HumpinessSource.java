package io.msgscope.analysis.distribution;

import io.msgscope.analysis.Trace;

/** The values {@link Humpiness} reads, by index; NaN means "skip". */
abstract class HumpinessSource {

    /** Present values sampled to detect the granularity of long values. */
    static final int QUANTUM_SAMPLE = 1 << 16;

    final int n;

    HumpinessSource(int n) {
        this.n = n;
    }

    abstract double get(int i);

    /** Granularity of the values if they are known to be quantised, else 0. */
    double quantum() {
        return 0;
    }

    /** Per-message latencies in ns, {@link Trace#ABSENT} skipped. */
    static final class Longs extends HumpinessSource {
        private final long[] values;

        Longs(long[] values, int n) {
            super(n);
            this.values = values;
        }

        @Override
        double get(int i) {
            long v = values[i];
            return v == Trace.ABSENT ? Double.NaN : (double) v;
        }

        /** GCD of the differences between the first {@value #QUANTUM_SAMPLE} present values. */
        @Override
        double quantum() {
            long first = 0;
            boolean seen = false;
            long g = 0;
            int sampled = 0;
            for (int i = 0; i < n && sampled < QUANTUM_SAMPLE; i++) {
                long v = values[i];
                if (v == Trace.ABSENT) {
                    continue;
                }
                sampled++;
                if (!seen) {
                    first = v;
                    seen = true;
                    continue;
                }
                long d = Math.abs(v - first);
                if (d < 0) {
                    return 0; // overflow: no meaningful quantum
                }
                g = gcd(g, d);
                if (g == 1) {
                    return 0;
                }
            }
            return g > 1 ? g : 0;
        }

        private static long gcd(long a, long b) {
            while (b != 0) {
                long t = a % b;
                a = b;
                b = t;
            }
            return a;
        }
    }

    /** Any values, infinities skipped like NaN. */
    static final class Doubles extends HumpinessSource {
        private final double[] values;

        Doubles(double[] values, int n) {
            super(n);
            this.values = values;
        }

        @Override
        double get(int i) {
            double v = values[i];
            return Double.isInfinite(v) ? Double.NaN : v;
        }
    }
}

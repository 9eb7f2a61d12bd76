package io.msgscope.analysis.stats;

/** The Binomial(n, 1/2) distribution in log space (no underflow for n up to millions). */
final class Binomial {
    private Binomial() {
    }

    /** log P(B ≤ k) for B ~ Binomial(n, 1/2); −∞ for k &lt; 0, 0 for k ≥ n. O(min(k, n)). */
    static double logCdfHalf(int n, int k) {
        if (k < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (k >= n) {
            return 0;
        }
        double logPmf = -n * Math.log(2);
        double logCdf = Double.NEGATIVE_INFINITY;
        for (int i = 0; i <= k; i++) {
            logCdf = logSumExp(logCdf, logPmf);
            logPmf += Math.log((double) (n - i) / (i + 1));
        }
        return Math.min(0, logCdf);
    }

    /** log(e^a + e^b) without overflow. */
    static double logSumExp(double a, double b) {
        if (a == Double.NEGATIVE_INFINITY) {
            return b;
        }
        if (b == Double.NEGATIVE_INFINITY) {
            return a;
        }
        double max = Math.max(a, b);
        return max + Math.log(Math.exp(a - max) + Math.exp(b - max));
    }
}

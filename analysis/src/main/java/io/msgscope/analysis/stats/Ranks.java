package io.msgscope.analysis.stats;

import java.util.Arrays;
import java.util.Comparator;

/** Ranks 1..n of a sample in its original order, ties given their average rank. */
final class Ranks {
    private Ranks() {
    }

    static double[] of(double[] values) {
        int n = values.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> values[i]));
        double[] ranks = new double[n];
        int i = 0;
        while (i < n) {
            int j = i;
            while (j + 1 < n && values[order[j + 1]] == values[order[i]]) {
                j++;
            }
            double average = (i + j) / 2.0 + 1; // ranks i+1 .. j+1 share their mean
            for (int k = i; k <= j; k++) {
                ranks[order[k]] = average;
            }
            i = j + 1;
        }
        return ranks;
    }

    /**
     * The lag-1 autocorrelation of the values' ranks (robust to outliers): Σ(r_i − r̄)(r_{i+1} − r̄) /
     * Σ(r_i − r̄)²; 0 for fewer than 3 values or a constant sample.
     */
    static double lag1(double[] values) {
        int n = values.length;
        if (n < 3) {
            return 0;
        }
        double[] r = of(values);
        double mean = (n + 1) / 2.0;
        double num = 0;
        double den = 0;
        for (int i = 0; i < n; i++) {
            double d = r[i] - mean;
            den += d * d;
            if (i + 1 < n) {
                num += d * (r[i + 1] - mean);
            }
        }
        return den == 0 ? 0 : num / den;
    }
}

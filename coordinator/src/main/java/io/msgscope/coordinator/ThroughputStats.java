package io.msgscope.coordinator;

import java.util.Arrays;

/** Median, mean and (sample) standard deviation of throughput samples (A7). */
public record ThroughputStats(double median, double mean, double stddev, int n) {

    public static ThroughputStats of(double[] samples) {
        int n = samples.length;
        if (n == 0) {
            return new ThroughputStats(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        double median = sorted[(n - 1) / 2]; // the lower median, as everywhere in msgscope (M6)
        double sum = 0;
        for (double v : samples) {
            sum += v;
        }
        double mean = sum / n;
        double sq = 0;
        for (double v : samples) {
            sq += (v - mean) * (v - mean);
        }
        double sd = n > 1 ? Math.sqrt(sq / (n - 1)) : 0;
        return new ThroughputStats(median, mean, sd, n);
    }
}

package io.msgscope.analysis.distribution;

import java.util.Arrays;

/**
 * The bumps of a density on a grid: which local maxima are real by their topographic prominence
 * (0-dimensional persistence), where the basins between them are cut, and where a peak lies
 * between grid points.
 */
final class DensityPeaks {

    /** Marks a grid point that is not a peak in the array returned by {@link #persistence}. */
    static final int NOT_A_PEAK = -2;

    private DensityPeaks() {
    }

    /**
     * The real bumps of {@code f}, ascending: the highest peak always, any other whose prominence is at
     * least {@code minZ} standard errors of the estimate (variance {@code noise} per unit of density,
     * summed over the peak and its saddle) and at least {@code minDepth} of its own height.
     */
    static int[] real(double[] f, double noise, double minZ, double minDepth) {
        int[] saddle = persistence(f);
        int globalPeak = argMax(f);
        int[] real = new int[f.length];
        int count = 0;
        for (int p = 0; p < f.length; p++) {
            if (saddle[p] == NOT_A_PEAK) {
                continue;
            }
            if (p == globalPeak) {
                real[count++] = p;
                continue;
            }
            double top = f[p];
            double low = f[saddle[p]];
            double prominence = top - low;
            if (!(prominence > 0)) {
                continue;
            }
            double z = prominence / Math.sqrt((top + low) * noise);
            if (z >= minZ && prominence >= minDepth * top) {
                real[count++] = p;
            }
        }
        return Arrays.copyOf(real, count);
    }

    /**
     * The basins of the bumps at ascending {@code peaks}: basin k is [cut[k], cut[k + 1]), cut at the
     * lowest point between neighbours, the first from 0 and the last to the end of {@code f}.
     */
    static int[] basins(double[] f, int[] peaks) {
        int bumps = peaks.length;
        int[] cut = new int[bumps + 1];
        cut[0] = 0;
        cut[bumps] = f.length;
        for (int k = 1; k < bumps; k++) {
            int a = peaks[k - 1];
            int b = peaks[k];
            int lowest = a + 1;
            for (int i = a + 1; i < b; i++) {
                if (f[i] < f[lowest]) {
                    lowest = i;
                }
            }
            cut[k] = lowest;
        }
        return cut;
    }

    /** Sub-grid offset of a peak (−0.5..0.5 grid steps) from the parabola through it and its neighbours. */
    static double refine(double[] f, int p) {
        if (p <= 0 || p >= f.length - 1) {
            return 0;
        }
        double a = f[p - 1];
        double b = f[p];
        double d = f[p + 1];
        double denominator = a - 2 * b + d;
        if (!(denominator < 0)) {
            return 0;
        }
        double offset = 0.5 * (a - d) / denominator;
        return Math.max(-0.5, Math.min(0.5, offset));
    }

    private static int argMax(double[] f) {
        int best = 0;
        for (int i = 1; i < f.length; i++) {
            if (f[i] > f[best]) {
                best = i;
            }
        }
        return best;
    }

    /**
     * Topographic prominence by a top-down union-find sweep: for every local maximum (the first
     * point of a plateau) the index of its key saddle — where its component merges into one with
     * a higher peak — and for the global maximum the index of the global minimum. Every other
     * point maps to {@link #NOT_A_PEAK}.
     */
    static int[] persistence(double[] f) {
        int len = f.length;
        Integer[] order = new Integer[len];
        for (int i = 0; i < len; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int cmp = Double.compare(f[b], f[a]);
            return cmp != 0 ? cmp : Integer.compare(a, b);
        });
        int[] parent = new int[len];
        int[] peak = new int[len];
        int[] saddle = new int[len];
        Arrays.fill(parent, -1);
        Arrays.fill(saddle, NOT_A_PEAK);
        for (int r = 0; r < len; r++) {
            int i = order[r];
            boolean left = i > 0 && parent[i - 1] >= 0;
            boolean right = i < len - 1 && parent[i + 1] >= 0;
            if (!left && !right) {
                parent[i] = i;
                peak[i] = i;
                saddle[i] = -1; // alive
            } else if (left && right) {
                merge(f, parent, peak, saddle, i);
            } else {
                parent[i] = find(parent, left ? i - 1 : i + 1);
            }
        }
        int lowest = 0;
        for (int i = 1; i < len; i++) {
            if (f[i] < f[lowest]) {
                lowest = i;
            }
        }
        for (int i = 0; i < len; i++) {
            if (saddle[i] == -1) {
                saddle[i] = lowest;
            }
        }
        return saddle;
    }

    /** Point {@code i} joins its two neighbours' components: the lower peak's saddle is {@code i}. */
    private static void merge(double[] f, int[] parent, int[] peak, int[] saddle, int i) {
        int rl = find(parent, i - 1);
        int rr = find(parent, i + 1);
        if (rl == rr) {
            parent[i] = rl;
            return;
        }
        int pl = peak[rl];
        int pr = peak[rr];
        boolean leftLower = f[pl] < f[pr] || (f[pl] == f[pr] && pl > pr);
        int lowerRoot = leftLower ? rl : rr;
        int higherRoot = leftLower ? rr : rl;
        saddle[peak[lowerRoot]] = i;
        parent[lowerRoot] = higherRoot;
        parent[i] = higherRoot;
    }

    private static int find(int[] parent, int i) {
        int root = i;
        while (parent[root] != root) {
            root = parent[root];
        }
        while (parent[i] != root) {
            int next = parent[i];
            parent[i] = root;
            i = next;
        }
        return root;
    }
}

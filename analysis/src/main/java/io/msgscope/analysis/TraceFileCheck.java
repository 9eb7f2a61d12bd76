package io.msgscope.analysis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The self-check on the values as written (M12, B4, issue 17): reads {@code trace.dat} back — text,
 * after formatting — and checks it by a path independent of the analysis that wrote it:
 * <ul>
 *   <li><b>latency</b>: every written L_n equals max(0, I_n − O_n) of the written times;</li>
 *   <li><b>rates</b>: every written ST_n and RT_n equals k·10⁹/(t_n − t_{n−k}) of the written times
 *       to the written precision (one decimal), k = M, or the row's st_window/rt_window; a window longer
 *       than M must be the shortest that spans the minimum time (one message fewer spans less);</li>
 *   <li><b>M12 identity</b> on the written rates: RO_n − SO_n = (L_n − L_{n−k})/k with RO = 10⁹/RT,
 *       SO = 10⁹/ST, wherever ST and RT span the same k and neither latency was clamped, to the
 *       rounding of the written rates (tolerance 10⁹·0.05·(1/(RT(RT−0.05)) + 1/(ST(ST−0.05))) per row);</li>
 *   <li><b>the summary's figures</b>: rows, messages sent, received and lost, and the latency
 *       minimum, lower median and maximum recomputed from the file equal the analysis'.</li>
 * </ul>
 * A corrupted digit, a shifted column, a dropped row or an analysis that disagrees with its own file
 * fails the check and names the first row that broke it.
 *
 * @param rows               data rows read
 * @param latencyChecked     rows with both times, their latency checked
 * @param rateChecked        ST and RT values checked against the times
 * @param identityChecked    rows where the M12 identity was checked
 * @param violations         values that broke any check
 * @param maxIdentityError   the largest |RO − SO − ΔL/k| in ns over the identity rows
 * @param summaryAgrees      whether the counts and latency aggregates equal the analysis'
 * @param firstProblem       the first problem found, "" when none
 */
public record TraceFileCheck(long rows, long latencyChecked, long rateChecked, long identityChecked, long violations,
                             double maxIdentityError, boolean summaryAgrees, String firstProblem) {

    /** True when nothing broke. */
    public boolean holds() {
        return violations == 0 && summaryAgrees && firstProblem.isEmpty();
    }

    /** The summary.json form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", "trace.dat");
        m.put("rows", rows);
        m.put("latency_checked", latencyChecked);
        m.put("rates_checked", rateChecked);
        m.put("identity_checked", identityChecked);
        m.put("violations", violations);
        m.put("max_identity_error_ns", Double.isFinite(maxIdentityError) ? maxIdentityError : null);
        m.put("summary_agrees", summaryAgrees);
        m.put("first_problem", firstProblem.isEmpty() ? null : firstProblem);
        m.put("holds", holds());
        m.put("method", "trace.dat read back as written: L = max(0, I - O); ST, RT = k*1e9/(t_n - t_{n-k}) to one "
                + "decimal; RO - SO = (L_n - L_{n-k})/k on the written rates; counts and latency min/median/max "
                + "equal the summary's");
        return m;
    }

    /**
     * Checks {@code file} (a trace.dat) against what the analysis reported for it.
     *
     * @param window     M of the run
     * @param minSpanNs  the minimum span of the ST/RT windows (0 = M exactly)
     */
    public static TraceFileCheck check(Path file, AnalysisResult a, int window, long minSpanNs) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return check(in, a.count(), a, window, minSpanNs);
        }
    }

    static TraceFileCheck check(InputStream in, long count, AnalysisResult a, int window, long minSpanNs)
            throws IOException {
        Reader r = new Reader(in);
        List<String> header = r.header();
        int cSeq = header.indexOf("seq");
        int cSend = header.indexOf("send_ns");
        int cRecv = header.indexOf("recv_ns");
        int cLat = header.indexOf("latency_ns");
        int cSt = header.indexOf("st_msg_s");
        int cRt = header.indexOf("rt_msg_s");
        int cSw = header.indexOf("st_window");
        int cRw = header.indexOf("rt_window");
        if (cSeq < 0 || cSend < 0 || cRecv < 0 || cLat < 0 || cSt < 0 || cRt < 0 || (minSpanNs > 0 && (cSw < 0 || cRw < 0))) {
            return new TraceFileCheck(0, 0, 0, 0, 1, Double.NaN, false, "trace.dat lacks a column: header " + header);
        }
        int n = (int) count;
        long[] send = new long[n];
        long[] recv = new long[n];
        long[] lat = new long[n];
        double[] st = new double[n];
        double[] rt = new double[n];
        int[] sw = new int[n];
        int[] rw = new int[n];
        Problems p = new Problems();
        double[] row = new double[header.size()];
        long[] rowLong = new long[header.size()];
        boolean[] nan = new boolean[header.size()];
        int rows = 0;
        while (r.row(row, rowLong, nan)) {
            if (rows >= n) {
                p.add("row " + rows + ": more rows than the " + n + " messages of the run");
                rows++;
                continue;
            }
            if (nan[cSeq] || rowLong[cSeq] != rows) {
                p.add("row " + rows + ": seq " + (nan[cSeq] ? "NaN" : rowLong[cSeq]) + " out of order");
            }
            send[rows] = nan[cSend] ? Trace.ABSENT : rowLong[cSend];
            recv[rows] = nan[cRecv] ? Trace.ABSENT : rowLong[cRecv];
            lat[rows] = nan[cLat] ? Trace.ABSENT : rowLong[cLat];
            st[rows] = row[cSt];
            rt[rows] = row[cRt];
            sw[rows] = minSpanNs > 0 && !nan[cSw] ? (int) rowLong[cSw] : window;
            rw[rows] = minSpanNs > 0 && !nan[cRw] ? (int) rowLong[cRw] : window;
            rows++;
        }
        if (rows != n) {
            p.add("trace.dat has " + rows + " rows, the run " + n + " messages");
        }
        int m = Math.min(rows, n);
        long latencyChecked = 0;
        long sent = 0;
        long received = 0;
        long lost = 0;
        long[] latencies = new long[m];
        int k = 0;
        for (int i = 0; i < m; i++) {
            boolean s = send[i] != Trace.ABSENT;
            boolean rc = recv[i] != Trace.ABSENT;
            sent += s ? 1 : 0;
            received += rc ? 1 : 0;
            lost += s && !rc ? 1 : 0;
            if (s && rc) {
                latencyChecked++;
                long expected = Math.max(0, recv[i] - send[i]);
                if (lat[i] != expected) {
                    p.add("row " + i + ": latency " + (lat[i] == Trace.ABSENT ? "NaN" : lat[i]) + " but recv - send = "
                            + (recv[i] - send[i]));
                } else {
                    latencies[k++] = lat[i];
                }
            } else if (lat[i] != Trace.ABSENT) {
                p.add("row " + i + ": a latency without both times");
            }
        }
        long rateChecked = 0;
        long identityChecked = 0;
        double maxError = 0;
        for (int i = 0; i < m; i++) {
            rateChecked += checkRate(p, "ST", send, st[i], sw[i], i, window, minSpanNs);
            rateChecked += checkRate(p, "RT", recv, rt[i], rw[i], i, window, minSpanNs);
            int w = sw[i];
            if (w < 1 || w != rw[i] || i < w || !(st[i] > 0) || !(rt[i] > 0)) {
                continue;
            }
            int j = i - w;
            if (send[i] == Trace.ABSENT || recv[i] == Trace.ABSENT || send[j] == Trace.ABSENT
                    || recv[j] == Trace.ABSENT || recv[i] < send[i] || recv[j] < send[j]) {
                continue; // a clamped latency is not I − O: the identity is about the raw one
            }
            double ro = 1e9 / rt[i];
            double so = 1e9 / st[i];
            double dl = (double) (lat[i] - lat[j]) / w;
            double err = Math.abs(ro - so - dl);
            // a rate written to 0.1 is off by up to 0.05, so its inverse by up to 0.05 / (r (r - 0.05)): the exact
            // bound, not the first-order 0.05 / r², which a slow window (a backlog's pause inside it, issue 31) exceeds
            double tol = 1e9 * 0.05 * (1 / (rt[i] * (rt[i] - 0.05)) + 1 / (st[i] * (st[i] - 0.05))) * 1.000001
                    + 1e-9 * (ro + so) + 1e-9;
            identityChecked++;
            maxError = Math.max(maxError, err);
            if (err > tol) {
                p.add(String.format(Locale.ROOT, "row %d: RO - SO = %.6f ns but (L_n - L_n-%d)/%d = %.6f ns (M12)", i,
                        ro - so, w, w, dl));
            }
        }
        boolean agrees = true;
        StringBuilder why = new StringBuilder();
        agrees &= same(why, "rows", m, a.count());
        agrees &= same(why, "sent", sent, a.sent());
        agrees &= same(why, "received", received, a.received());
        agrees &= same(why, "lost", lost, a.lost());
        if (k > 0 && !a.latencyNs().isEmpty()) {
            Arrays.sort(latencies, 0, k);
            agrees &= same(why, "latency min", latencies[0], (long) a.latencyNs().min());
            agrees &= same(why, "latency median", latencies[(k - 1) / 2], (long) a.latencyNs().median());
            agrees &= same(why, "latency max", latencies[k - 1], (long) a.latencyNs().max());
        }
        if (!agrees) {
            p.add("the summary disagrees with trace.dat: " + why);
        }
        return new TraceFileCheck(rows, latencyChecked, rateChecked, identityChecked, p.count, maxError, agrees,
                p.first);
    }

    /** Checks one written rate against the written times; returns 1 when checked. */
    private static int checkRate(Problems p, String name, long[] t, double written, int k, int i, int window,
                                 long minSpanNs) {
        if (Double.isNaN(written)) {
            // M2's fixed window: undefined only before M, for an absent time or a zero span
            if (minSpanNs == 0 && i >= window && t[i] != Trace.ABSENT && t[i - window] != Trace.ABSENT
                    && t[i] != t[i - window]) {
                p.add("row " + i + ": " + name + " NaN although both ends of its window were written");
                return 1;
            }
            return 0;
        }
        if (k < window || i < k || t[i] == Trace.ABSENT || t[i - k] == Trace.ABSENT) {
            p.add("row " + i + ": " + name + " " + written + " without a window of >= " + window + " messages");
            return 1;
        }
        long span = t[i] - t[i - k];
        double expected = k * 1e9 / span;
        if (Math.abs(written - expected) > 0.05 * 1.000001 + 1e-12 * Math.abs(expected)) {
            p.add(String.format(Locale.ROOT, "row %d: %s %.1f but %d messages over %d ns give %.1f", i, name, written,
                    k, span, expected));
        }
        if (minSpanNs > 0) {
            if (span < minSpanNs) {
                p.add("row " + i + ": the " + name + " window spans " + span + " ns, under the minimum " + minSpanNs);
            } else if (k > window && t[i - k + 1] != Trace.ABSENT && t[i] - t[i - k + 1] >= minSpanNs) {
                p.add("row " + i + ": the " + name + " window of " + k + " messages is not the shortest that spans "
                        + minSpanNs + " ns");
            }
        }
        return 1;
    }

    private static boolean same(StringBuilder why, String what, long file, long summary) {
        if (file == summary) {
            return true;
        }
        why.append(why.length() == 0 ? "" : ", ").append(what).append(' ').append(summary)
                .append(" in the summary, ").append(file).append(" in the file");
        return false;
    }

    private static final class Problems {
        long count;
        String first = "";

        void add(String s) {
            if (count++ == 0) {
                first = s;
            }
        }
    }

    /** Bytes from a stream through one unsynchronised buffer (a million rows are ~60 MB). */
    private static final class Bytes {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int len;

        Bytes(InputStream in) {
            this.in = in;
        }

        int read() throws IOException {
            if (pos == len) {
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return -1;
                }
            }
            return buf[pos++] & 0xff;
        }
    }

    /** A minimal reader of trace.dat's whitespace-separated ASCII: longs, one-decimal numbers and NaN. */
    private static final class Reader {
        private final Bytes in;
        private int c;

        Reader(InputStream in) throws IOException {
            this.in = new Bytes(in);
            c = this.in.read();
        }

        /** The column names of the first line ("# seq send_ns ..."); skips the other comment lines. */
        List<String> header() throws IOException {
            StringBuilder sb = new StringBuilder();
            while (c >= 0 && c != '\n') {
                sb.append((char) c);
                c = in.read();
            }
            String line = sb.toString();
            if (!line.startsWith("#")) {
                return List.of();
            }
            return Arrays.asList(line.substring(1).trim().split("\\s+"));
        }

        /** Reads the next data row into the arrays; false at the end. */
        boolean row(double[] d, long[] l, boolean[] nan) throws IOException {
            while (true) {
                if (c == '\n') {
                    c = in.read();
                }
                if (c < 0) {
                    return false;
                }
                if (c == '#') {
                    while (c >= 0 && c != '\n') {
                        c = in.read();
                    }
                    continue;
                }
                break;
            }
            Arrays.fill(nan, false);
            int col = 0;
            while (c >= 0 && c != '\n') {
                if (c == ' ' || c == '\t' || c == '\r') {
                    c = in.read();
                    continue;
                }
                if (col >= d.length) { // an extra field: read it and say so through a NaN seq
                    while (c >= 0 && c != '\n' && c != ' ') {
                        c = in.read();
                    }
                    nan[0] = true;
                    continue;
                }
                number(d, l, nan, col++);
            }
            for (int i = col; i < d.length; i++) { // a short row: the missing fields read as NaN
                nan[i] = true;
                d[i] = Double.NaN;
                l[i] = Long.MIN_VALUE;
            }
            if (col < d.length) {
                nan[0] = true;
            }
            return true;
        }

        private void number(double[] d, long[] l, boolean[] nan, int col) throws IOException {
            boolean neg = false;
            if (c == '-') {
                neg = true;
                c = in.read();
            }
            if (c == 'N') {
                while (c >= 0 && c != ' ' && c != '\n') {
                    c = in.read();
                }
                nan[col] = true;
                d[col] = Double.NaN;
                l[col] = Long.MIN_VALUE;
                return;
            }
            long whole = 0;
            boolean digits = false;
            while (c >= '0' && c <= '9') {
                whole = whole * 10 + (c - '0');
                digits = true;
                c = in.read();
            }
            long frac = 0;
            long scale = 1;
            if (c == '.') {
                c = in.read();
                while (c >= '0' && c <= '9') {
                    frac = frac * 10 + (c - '0');
                    scale *= 10;
                    c = in.read();
                }
            }
            boolean bad = !digits || (c >= 0 && c != ' ' && c != '\n' && c != '\t' && c != '\r');
            while (c >= 0 && c != ' ' && c != '\n') { // skip the rest of a malformed field
                c = in.read();
            }
            if (bad) {
                nan[col] = true;
                nan[0] = true; // a malformed field marks the row
                d[col] = Double.NaN;
                l[col] = Long.MIN_VALUE;
                return;
            }
            long v = neg ? -whole : whole;
            l[col] = v;
            d[col] = (neg ? -1 : 1) * (whole + (double) frac / scale);
        }
    }
}

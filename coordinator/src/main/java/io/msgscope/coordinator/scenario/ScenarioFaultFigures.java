package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.faults.FaultLog;
import io.msgscope.core.fault.FaultStep;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What each fault cost in scenario mode (issue 32 item 5), where no per-message trace is kept: from the messages the
 * agents counted per bucket of epoch time ({@link io.msgscope.core.scenario.BucketCounts}, 100 ms by default) and the
 * coordinator's poll windows (about a second each, their latency histograms from the intended send time). The figures
 * follow trace mode's ({@link io.msgscope.analysis.FaultAnalysis}) at the buckets' resolution:
 * <ul>
 *   <li><b>Unavailability</b> (kill, pause, partition, degrade and a restart of a running target; null for resume,
 *   heal and a restart after a kill, which end an outage, {@link FaultLog#steps}): the longest run of
 *   buckets without a delivery that ends after the fault's bucket and starts before the next fault's (any time for the
 *   last one). {@code unavailable_ms} is the run's length, the least the outage lasted; {@code unavailable_ms_at_most}
 *   adds the two buckets it lies between (the last delivery before it was somewhere in the one, the first after it
 *   somewhere in the other). No empty bucket: 0, at most two buckets.</li>
 *   <li><b>The fault's window</b>: from its bucket to the next fault's (the measurement's end for the last), by the
 *   messages' intended send times: sent, expected (the scenario's deliveries per message sent: S on fan-out), received
 *   (duplicates included), and {@code messages_missing_net}, expected less received. Each subscription tells its
 *   deliveries apart by publisher and sequence (the header carries both), so of those received the duplicates and the
 *   reordered ones (new, filling a gap) are counted too, and {@code messages_lost} is expected less the distinct
 *   deliveries; all three null (unknown) on round-robin, whose members share a publisher's sequence, or when a stream
 *   had too many gaps to follow. Guarantee violations per fault stay null: no confirms are followed here.</li>
 *   <li><b>Recovery</b>: the baseline is the second before the fault (before its opener, for a resume, a heal or a
 *   restart after a kill):
 *   deliveries in it per second, and the p99 from the intended time of the last poll window that ended by then. Whole
 *   seconds from the end of the outage (or the fault, with none), stepped by one bucket, are compared with it: the time
 *   from the fault to the end of the first whose deliveries are within ±10 % of the baseline's; the p99 is back at the
 *   end of the first poll window starting then whose p99 is at most 1.1 × the baseline's. Null when none is, or
 *   without a whole baseline second.</li>
 * </ul>
 */
public final class ScenarioFaultFigures {
    static final double TOLERANCE = io.msgscope.analysis.FaultAnalysis.TOLERANCE;
    private static final long SECOND_NS = 1_000_000_000L;

    /**
     * The counts of a run, bucket by bucket: element k is bucket {@code first + k} of {@code widthNs}.
     *
     * @param arrived   deliveries by arrival time
     * @param sentDue   sends by intended time
     * @param gotDue    deliveries by intended time
     * @param dupDue    of those, the ones their subscription had seen before
     * @param lateDue   of those, new ones that filled a gap in their publisher's sequence (reordered)
     * @param sequences every delivery was told apart by publisher and sequence, so dupDue and lateDue are exact
     * @param outside   counts stamped outside the agents' span of buckets, in none of them
     */
    record Buckets(long first, long widthNs, long[] arrived, long[] sentDue, long[] gotDue, long[] dupDue,
                   long[] lateDue, boolean sequences, long outside) {
        /** Counts without sequences (round-robin, or a test's), none outside. */
        Buckets(long first, long widthNs, long[] arrived, long[] sentDue, long[] gotDue) {
            this(first, widthNs, arrived, sentDue, gotDue, new long[0], new long[0], false, 0);
        }

        long at(long[] a, long bucket) {
            long k = bucket - first;
            return k < 0 || k >= a.length ? 0 : a[(int) k];
        }

        long sum(long[] a, long fromBucket, long toBucket) {
            long n = 0;
            for (long b = fromBucket; b < toBucket; b++) {
                n += at(a, b);
            }
            return n;
        }

        /** One past the last bucket any count reaches. */
        long end() {
            return first + Math.max(arrived.length, Math.max(sentDue.length, gotDue.length));
        }
    }

    private ScenarioFaultFigures() {
    }

    /**
     * summary.json's {@code faults}, one map per planned fault in plan order.
     *
     * @param log           the plan and what the probe applied, its times ns from the measurement's start
     * @param originEpochNs the measurement's start, epoch ns
     * @param measureNs     the measurement's length, ns
     * @param b             the counts, absolute buckets
     * @param perSent       deliveries the scenario expects per message sent (S on fan-out, else 1)
     * @param windows       the poll windows, in order
     */
    static Section of(FaultLog log, long originEpochNs, long measureNs, Buckets b, long perSent,
                                        List<ScenarioPhases.Window> windows) {
        List<Map<String, Object>> out = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        StringBuilder plot = new StringBuilder();
        List<FaultLog.Step> steps = log.steps(0L); // the probe's times are already from the measurement's start
        Long[] outageEnds = new Long[steps.size()]; // each opener's first delivery after its outage, epoch ns
        for (int k = 0; k < steps.size(); k++) {
            FaultLog.Step st = steps.get(k);
            FaultStep s = st.step();
            FaultLog.Applied a = st.applied();
            Long at = st.atNs();
            boolean opens = st.opens();
            Long baseline = st.baselineNs();
            Long next = null;
            for (int j = k + 1; j < steps.size() && next == null; j++) {
                next = steps.get(j).atNs();
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", k);
            m.put("action", s.action().label());
            m.put("target", s.target());
            if (!s.arg().isEmpty()) {
                m.put("setting", s.arg());
            }
            m.put("planned_s", s.atNs() / 1e9);
            m.put("applied_s", at == null ? null : at / 1e9);
            m.put("lag_ms", at == null ? null : (at - s.atNs()) / 1e6);
            m.put("pid", a == null || a.pid() == 0 ? null : a.pid());
            m.put("error", a == null ? "not applied: the run ended first" : a.error().isEmpty() ? null : a.error());
            m.put("bucket_ms", b.widthNs() / 1e6);
            outageEnds[k] = figures(m, at == null ? null : originEpochNs + at,
                    next == null ? null : originEpochNs + next, originEpochNs + measureNs,
                    baseline == null ? null : originEpochNs + baseline, opens ? null : st.opener() == null ? null
                            : outageEnds[st.opener()], opens, originEpochNs, b, perSent, windows);
            out.add(m);
            lines.add(consoleLine(s.label(), m));
            if (at != null) { // timeseries.gp: a dashed line at the fault, x in s from the measurement's start
                plot.append(String.format(Locale.ROOT, "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 "
                        + "lc rgb 'red'%nset label '%s' at %.3f, graph 0.97 rotate by 90 right tc rgb 'red'%n",
                        at / 1e9, at / 1e9, s.action().label() + ":" + s.target(), at / 1e9));
            }
        }
        return new Section(out, lines, dat(b, originEpochNs), plot.toString(), b.outside() == 0 ? null
                : b.outside() + " counts were stamped outside the agents' buckets (from the set-up to 20 min after "
                + "the measurement: a delivery that came later) and lie in no bucket: an outage that lasted past "
                + "them shows no end, and fault-buckets.dat leaves them out");
    }

    /**
     * summary.json's {@code faults}, the console's line per fault, fault-buckets.dat (the counts they come from),
     * timeseries.gp's line at each applied fault, and a note when some counts lie in no bucket (else null).
     */
    public record Section(List<Map<String, Object>> toList, List<String> consoleLines, String bucketsDat,
                          String plotLines, String note) {
    }

    /**
     * fault-buckets.dat: one row per bucket from the one the measurement starts in, its start in s from the
     * measurement's start, and its counts.
     */
    static String dat(Buckets b, long originEpochNs) {
        StringBuilder s = new StringBuilder("# fault-buckets.dat (issue 32): the messages counted per bucket of epoch time "
                + "that each fault's figures in summary.json come from; from_s: the bucket's start in s from the "
                + "measurement's start; arrived: measured deliveries that arrived in it; sent_due / received_due: "
                + "messages sent / delivered whose intended send time lies in it; duplicated_due / late_due: of those "
                + "delivered, the ones their subscription had seen before, and new ones that filled a gap in their "
                + "publisher's sequence (" + (b.sequences() ? "every delivery told apart" : "NaN: not told apart") + ")\n"
                + "# from_s arrived sent_due received_due duplicated_due late_due\n");
        // from the bucket the measurement starts in: the set-up's and warm-up's buckets count no measured message
        for (long k = Math.max(b.first(), Math.floorDiv(originEpochNs, b.widthNs())); k < b.end(); k++) {
            s.append(String.format(Locale.ROOT, "%.3f %d %d %d %s %s%n", (k * b.widthNs() - originEpochNs) / 1e9,
                    b.at(b.arrived(), k), b.at(b.sentDue(), k), b.at(b.gotDue(), k),
                    b.sequences() ? String.valueOf(b.at(b.dupDue(), k)) : "NaN",
                    b.sequences() ? String.valueOf(b.at(b.lateDue(), k)) : "NaN"));
        }
        return s.toString();
    }

    /**
     * One fault's figures into {@code m}, its times epoch ns; {@code openerOutageEnd} is, for a fault that ends an
     * outage, where the outage it ends was over (its recovery is looked for from there). Returns where this fault's
     * own outage was over (the first bucket with a delivery after it), null when it opens none or it never ended.
     */
    private static Long figures(Map<String, Object> m, Long at, Long next, long end, Long baseline,
                                Long openerOutageEnd, boolean opens, long origin, Buckets b, long perSent,
                                List<ScenarioPhases.Window> windows) {
        Long lastBefore = null;
        Long firstAfter = null;
        if (at != null && opens) {
            long[] gap = longestGap(b, Math.floorDiv(at, b.widthNs()), next == null ? b.end()
                    : Math.floorDiv(next, b.widthNs()));
            if (gap != null) {
                lastBefore = gap[0] * b.widthNs();
                firstAfter = gap[1] < 0 ? null : gap[1] * b.widthNs();
            }
        }
        m.put("unavailable_from_s", lastBefore == null ? null : (lastBefore - origin) / 1e9);
        m.put("unavailable_to_s", firstAfter == null ? null : (firstAfter - origin) / 1e9);
        Double unavailable = !opens || at == null ? null : lastBefore == null ? Double.valueOf(0)
                : firstAfter == null ? null : (firstAfter - lastBefore) / 1e6;
        m.put("unavailable_ms", unavailable);
        m.put("unavailable_ms_at_most", unavailable == null ? null : unavailable + 2 * b.widthNs() / 1e6);
        Long sent = null;
        Long got = null;
        Long dup = null;
        Long late = null;
        if (at != null) {
            long from = Math.floorDiv(at, b.widthNs());
            long to = Math.floorDiv(next == null ? Math.max(end, at) : next, b.widthNs()) + (next == null ? 1 : 0);
            sent = b.sum(b.sentDue(), from, to);
            got = b.sum(b.gotDue(), from, to);
            dup = b.sequences() ? b.sum(b.dupDue(), from, to) : null;
            late = b.sequences() ? b.sum(b.lateDue(), from, to) : null;
            m.put("window_end_s", ((next == null ? end : next) - origin) / 1e9);
        } else {
            m.put("window_end_s", null);
        }
        m.put("messages_sent_in_window", sent);
        m.put("messages_expected_in_window", sent == null ? null : sent * perSent);
        m.put("messages_received_in_window", got);
        m.put("messages_missing_net", sent == null ? null : sent * perSent - got);
        // by sequence: expected less the distinct deliveries (each subscription's duplicates taken out); unknown when
        // the deliveries were not all told apart (round-robin, a stream with too many gaps)
        m.put("messages_lost", dup == null ? null : sent * perSent - (got - dup));
        m.put("messages_duplicated", dup);
        m.put("messages_reordered", late);
        m.put("guarantee_violations", null);
        Histogram inWindow = at == null ? null : merged(windows, at, next == null ? end : next);
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("count", inWindow == null ? null : inWindow.getTotalCount());
        lat.put("p50_us", quantile(inWindow, 50));
        lat.put("p99_us", quantile(inWindow, 99));
        lat.put("max_us", inWindow == null || inWindow.getTotalCount() == 0 ? null : inWindow.getMaxValue() / 1e3);
        m.put("arrivals_in_window_latency_from_intended", lat);
        Double baseRate = null;
        Double baseP99 = null;
        Long rateBack = null;
        Long p99Back = null;
        if (at != null && baseline != null && baseline - SECOND_NS >= origin) {
            long bb = Math.floorDiv(baseline, b.widthNs());
            long perSecond = SECOND_NS / b.widthNs();
            baseRate = b.sum(b.arrived(), bb - perSecond, bb) * 1e9 / (perSecond * b.widthNs());
            baseP99 = p99Before(windows, baseline);
            Long outageEnd = opens ? firstAfter : openerOutageEnd;
            long from = Math.floorDiv(outageEnd == null ? at : Math.max(at, outageEnd), b.widthNs());
            for (long w = from; w + perSecond <= b.end() && rateBack == null; w++) {
                double rate = b.sum(b.arrived(), w, w + perSecond) * 1e9 / (perSecond * b.widthNs());
                if (Math.abs(rate - baseRate) <= TOLERANCE * baseRate) {
                    rateBack = (w + perSecond) * b.widthNs() - at;
                }
            }
            long fromNs = from * b.widthNs();
            for (ScenarioPhases.Window w : windows) {
                if (baseP99 != null && p99Back == null && w.fromMs() * 1_000_000L >= fromNs) {
                    Double p = quantile(histogram(w.intended()), 99);
                    if (p != null && p <= (1 + TOLERANCE) * baseP99) {
                        p99Back = w.toMs() * 1_000_000L - at;
                    }
                }
            }
        }
        m.put("baseline_msg_s", baseRate);
        m.put("baseline_p99_from_intended_us", baseP99);
        m.put("throughput_recovered_s", rateBack == null ? null : rateBack / 1e9);
        m.put("p99_recovered_s", p99Back == null ? null : p99Back / 1e9);
        return firstAfter;
    }

    /**
     * The longest run of buckets without a delivery that ends at or after {@code fromBucket} and starts before
     * {@code toBucket}: {first empty bucket, first bucket with a delivery after it (-1 when none came)}; null when no
     * bucket from {@code fromBucket} to {@code toBucket} is empty (or none had a delivery before it).
     */
    static long[] longestGap(Buckets b, long fromBucket, long toBucket) {
        long[] best = null;
        long firstWithAny = b.first();
        while (firstWithAny < b.end() && b.at(b.arrived(), firstWithAny) == 0) {
            firstWithAny++;
        }
        long k = Math.max(firstWithAny, fromBucket);
        while (k > firstWithAny && b.at(b.arrived(), k - 1) == 0) {
            k--; // the run the fault's bucket lies in began before it
        }
        while (k < toBucket && k < b.end()) {
            if (b.at(b.arrived(), k) != 0) {
                k++;
                continue;
            }
            long start = k;
            while (k < b.end() && b.at(b.arrived(), k) == 0) {
                k++;
            }
            long after = k < b.end() ? k : -1;
            if (k > fromBucket || after < 0) {
                long length = (after < 0 ? b.end() : after) - start;
                if (best == null || length > (best[1] < 0 ? b.end() : best[1]) - best[0]) {
                    best = new long[] {start, after};
                }
            }
        }
        return best;
    }

    /** The intended-time histograms of the poll windows that overlap [fromEpochNs, toEpochNs), merged; null if none. */
    static Histogram merged(List<ScenarioPhases.Window> windows, long fromEpochNs, long toEpochNs) {
        Histogram h = null;
        for (ScenarioPhases.Window w : windows) {
            if (w.toMs() * 1_000_000L > fromEpochNs && w.fromMs() * 1_000_000L < toEpochNs) {
                h = ScenarioLinks.merge(h, histogram(w.intended()));
            }
        }
        return h;
    }

    /** The p99 from the intended time of the last poll window that ended by {@code epochNs}, µs; null if none. */
    private static Double p99Before(List<ScenarioPhases.Window> windows, long epochNs) {
        Double p = null;
        for (ScenarioPhases.Window w : windows) {
            if (w.toMs() * 1_000_000L <= epochNs) {
                p = quantile(histogram(w.intended()), 99);
            }
        }
        return p;
    }

    private static Double quantile(Histogram h, double q) {
        return h == null || h.getTotalCount() == 0 ? null : h.getValueAtPercentile(q) / 1e3;
    }

    private static Histogram histogram(byte[] compressed) {
        return ScenarioLinks.decoded(compressed, "a poll window's histogram");
    }

    /** One console line: when the fault was applied, the outage, what its window received, the recovery. */
    static String consoleLine(String label, Map<String, Object> f) {
        if (f.get("applied_s") == null) {
            return String.format(Locale.ROOT, "  fault %-24s not applied", label);
        }
        Object u = f.get("unavailable_ms");
        Object lost = f.get("messages_lost");
        return String.format(Locale.ROOT, "  fault %-24s applied %.3f s (%+.1f ms)  unavailable %s  received %d of %d due "
                        + "in its window%s  throughput back %s  p99 back %s", label, (Double) f.get("applied_s"),
                (Double) f.get("lag_ms"), u == null ? "-" : String.format(Locale.ROOT, "%.0f-%.0f ms", (Double) u,
                        (Double) f.get("unavailable_ms_at_most")), (Long) f.get("messages_received_in_window"),
                (Long) f.get("messages_expected_in_window"), lost == null ? "" : String.format(Locale.ROOT,
                        " (lost %d, duplicated %d, reordered %d)", (Long) lost, (Long) f.get("messages_duplicated"),
                        (Long) f.get("messages_reordered")), after(f.get("throughput_recovered_s"),
                        f.get("baseline_msg_s")), after(f.get("p99_recovered_s"), f.get("baseline_p99_from_intended_us")));
    }

    private static String after(Object s, Object baseline) {
        return s != null ? String.format(Locale.ROOT, "after %.1f s", (Double) s)
                : baseline == null ? io.msgscope.coordinator.faults.FaultSection.NO_BASELINE : "never";
    }
}

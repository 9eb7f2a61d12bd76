package io.msgscope.coordinator.faults;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.FaultAnalysis;
import io.msgscope.analysis.Trace;
import io.msgscope.coordinator.results.Json;
import io.msgscope.core.fault.FaultStep;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * summary.json's {@code faults} and the console's line per fault (issue 32): each planned fault, when the broker-probe
 * agent applied it, and what it cost ({@link FaultAnalysis}). Times are seconds on the run's clock (from the intended
 * send time of the first measured message).
 */
public final class FaultSection {
    private final FaultLog log;
    private final List<FaultAnalysis.Figures> figures;
    private final List<Long> seqs;

    private FaultSection(FaultLog log, List<FaultAnalysis.Figures> figures, List<Long> seqs) {
        this.log = log;
        this.figures = figures;
        this.seqs = seqs;
    }

    /** The faults of {@code log} analysed on {@code trace} (it must carry intended times); null when none was planned. */
    public static FaultSection of(FaultLog log, Trace trace) {
        return of(log, trace, io.msgscope.analysis.Guarantee.NONE);
    }

    /** The same, with each fault's lost confirmed messages counted against {@code guarantee} (issue 32 item 3). */
    public static FaultSection of(FaultLog log, Trace trace, io.msgscope.analysis.Guarantee guarantee) {
        if (log == null || log.isEmpty() || !trace.hasIntended()) {
            return null;
        }
        long origin = trace.size() == 0 || trace.intendedNs()[0] == Trace.ABSENT ? Trace.ABSENT : trace.intendedNs()[0];
        List<FaultAnalysis.Event> events = new ArrayList<>();
        for (FaultLog.Step st : log.steps(origin == Trace.ABSENT ? null : origin)) {
            events.add(new FaultAnalysis.Event(st.step().label(), st.step().atNs(), st.atNs(), st.opens(),
                    st.baselineNs(), st.opener()));
        }
        List<Long> seqs = new ArrayList<>();
        for (FaultAnalysis.Event e : events) {
            seqs.add(e.appliedNs() == null ? null : dueAt(trace.intendedNs(), trace.size(), origin + e.appliedNs()));
        }
        return new FaultSection(log, FaultAnalysis.analyse(trace, events, guarantee), seqs);
    }

    /** The first message due at or after {@code t} (the intended times of a paced run never decrease), or n. */
    static long dueAt(long[] intended, int n, long t) {
        return FaultAnalysis.firstAtOrAfter(intended, n, t);
    }

    /** The plots' fault lines: each applied fault at the message due then. */
    public List<io.msgscope.analysis.output.GnuplotScripts.FaultLine> lines() {
        List<io.msgscope.analysis.output.GnuplotScripts.FaultLine> out = new ArrayList<>();
        for (int k = 0; k < figures.size(); k++) {
            if (seqs.get(k) != null) {
                out.add(new io.msgscope.analysis.output.GnuplotScripts.FaultLine(figures.get(k).event().label(),
                        seqs.get(k)));
            }
        }
        return out;
    }

    /** faults.dat: one row per planned fault, beside trace.dat (its {@code seq} is the trace.dat row it falls at). */
    public String dat() {
        StringBuilder s = new StringBuilder("# faults (issue 32): one row per planned fault; times in s on the run's "
                + "clock (from message 0's intended send time); applied_s and lag_ms NaN and seq -1 when not applied; "
                + "seq: the first message due at or after the applied time (its row in trace.dat)\n"
                + "# index planned_s applied_s lag_ms seq action target\n");
        for (int k = 0; k < figures.size(); k++) {
            FaultAnalysis.Figures f = figures.get(k);
            FaultStep st = log.plan().steps().get(k);
            Long at = f.event().appliedNs();
            s.append(String.format(Locale.ROOT, "%d %.9f %s %s %d %s %s%n", k, st.atNs() / 1e9,
                    at == null ? "NaN" : String.format(Locale.ROOT, "%.9f", at / 1e9),
                    f.lagNs() == null ? "NaN" : String.format(Locale.ROOT, "%.3f", f.lagNs() / 1e6),
                    seqs.get(k) == null ? -1 : seqs.get(k), st.action().label(), st.target()));
        }
        return s.toString();
    }

    /** The faults as planned. */
    public io.msgscope.core.fault.FaultPlan plan() {
        return log.plan();
    }

    public List<FaultAnalysis.Figures> figures() {
        return figures;
    }

    /** summary.json's {@code faults}. */
    public List<Map<String, Object>> toList() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int k = 0; k < figures.size(); k++) {
            FaultAnalysis.Figures f = figures.get(k);
            FaultStep s = log.plan().steps().get(k);
            FaultLog.Applied a = log.applied(s);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", k);
            m.put("action", s.action().label());
            m.put("target", s.target());
            if (!s.arg().isEmpty()) {
                m.put("setting", s.arg()); // degrade's rate=...; absent for the other actions
            }
            m.put("planned_s", s.atNs() / 1e9);
            m.put("applied_s", seconds(f.event().appliedNs()));
            m.put("lag_ms", f.lagNs() == null ? null : f.lagNs() / 1e6);
            m.put("pid", a == null || a.pid() == 0 ? null : a.pid());
            m.put("error", a == null ? "not applied: the run ended first" : a.error().isEmpty() ? null : a.error());
            m.put("unavailable_from_s", seconds(f.lastBeforeNs()));
            m.put("unavailable_to_s", seconds(f.firstAfterNs()));
            m.put("unavailable_ms", f.unavailableNs() == null ? null : f.unavailableNs() / 1e6);
            m.put("window_end_s", seconds(f.windowEndNs()));
            m.put("messages_sent_in_window", f.sentInWindow());
            m.put("messages_lost", f.lost());
            m.put("guarantee_violations", f.violations());
            m.put("messages_duplicated", null);
            m.put("messages_reordered", f.reordered());
            m.put("messages_in_flight", f.event().appliedNs() == null ? null : f.inFlight());
            Map<String, Object> lat = new LinkedHashMap<>();
            AnalysisResult.q4Fields(f.inFlightLatencyNs()).forEach((key, v) -> lat.put(key, Json.finite(v)));
            m.put("in_flight_latency_from_intended", lat);
            m.put("baseline_msg_s", f.baselineMsgPerSec());
            m.put("baseline_p99_from_intended_us", f.baselineP99Ns() == null ? null : f.baselineP99Ns() / 1e3);
            m.put("throughput_recovered_s", seconds(f.throughputRecoveredNs()));
            m.put("p99_recovered_s", seconds(f.p99RecoveredNs()));
            out.add(m);
        }
        return out;
    }

    private static Double seconds(Long ns) {
        return ns == null ? null : ns / 1e9;
    }

    /** One console line per fault: planned and applied, the outage, what was lost, the recovery. */
    public List<String> consoleLines() {
        return consoleLines(false);
    }

    /** The same; {@code color}: a terminal, where violations above 0 show in red. */
    public List<String> consoleLines(boolean color) {
        List<String> out = new ArrayList<>();
        for (FaultAnalysis.Figures f : figures) {
            FaultAnalysis.Event e = f.event();
            if (e.appliedNs() == null) {
                out.add(String.format(Locale.ROOT, "  fault %-24s not applied", e.label()));
                continue;
            }
            out.add(String.format(Locale.ROOT, "  fault %-24s applied %.3f s (%+.1f ms)  unavailable %s  lost %d  "
                            + "reordered %d%s  in flight %d  throughput back %s  p99 back %s", e.label(),
                    e.appliedNs() / 1e9, f.lagNs() / 1e6, f.unavailableNs() == null ? "-"
                            : String.format(Locale.ROOT, "%.1f ms", f.unavailableNs() / 1e6), f.lost(), f.reordered(),
                    f.violations() == null ? "" : "  guarantee violations " + violations(f.violations(),
                            color), f.inFlight(), after(f.throughputRecoveredNs(), f.baselineMsgPerSec()),
                    after(f.p99RecoveredNs(), f.baselineP99Ns())));
        }
        return out;
    }

    /** "after N s", "never" (none within the run), or "unknown" without a baseline to compare with. */
    private static String after(Long ns, Double baseline) {
        return ns != null ? String.format(Locale.ROOT, "after %.1f s", ns / 1e9)
                : baseline == null ? NO_BASELINE : "never";
    }

    /** A recovery time that cannot be told: no whole second before the fault (or before its opener) to compare with. */
    public static final String NO_BASELINE = "unknown (no whole second before)";

    /** A count of guarantee violations; above 0 on a terminal in red (issue 32 item 3). */
    public static String violations(long n, boolean color) {
        String s = io.msgscope.analysis.output.HumanFormat.count(n);
        return color && n > 0 ? "\u001b[31m" + s + "\u001b[0m" : s;
    }
}

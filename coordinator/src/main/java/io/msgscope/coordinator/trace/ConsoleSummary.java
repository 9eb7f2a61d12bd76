package io.msgscope.coordinator.trace;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.RateWindow;
import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.output.HumanFormat;

/** The run in one plain sentence (D7), e.g. "1,000,000 messages of 64 B: receive median ...". */
public final class ConsoleSummary {
    private ConsoleSummary() {
    }

    /**
     * True when RT over M messages says more about parsing than receiving: its median is more than
     * twice the run's whole receive rate (messages stamped microseconds apart from one read).
     */
    static boolean parseRate(AnalysisResult a, double wholeReceiveRate) {
        return a.rateWindowMinNs() == 0 && !a.rtMsgPerSec().isEmpty() && Double.isFinite(wholeReceiveRate)
                && a.rtMsgPerSec().median() > 2 * wholeReceiveRate;
    }

    /**
     * How throughput.gp labels and scales its y axis: the windows, and — when RT over M messages is a
     * parse rate — a top at 3× the larger whole-run rate, saying why, so the spikes do not flatten the plot.
     */
    public static GnuplotScripts.ThroughputAxis throughputAxis(TraceResult out, AnalysisResult a) {
        String windows = RateWindow.describe(a.window(), a.rateWindowMinNs());
        if (a.stMsgPerSec().isEmpty() && a.rtMsgPerSec().isEmpty()) {
            return GnuplotScripts.ThroughputAxis.none(windows);
        }
        double recv = out.receiveRate();
        double send = out.sendRate();
        boolean stSpikes = a.rateWindowMinNs() == 0 && !a.stMsgPerSec().isEmpty() && Double.isFinite(send)
                && a.stMsgPerSec().median() > 2 * send;
        if (!parseRate(a, recv) && !stSpikes) {
            return new GnuplotScripts.ThroughputAxis(windows, Double.NaN, "");
        }
        double top = 3 * Math.max(Double.isFinite(recv) ? recv : 0, Double.isFinite(send) ? send : 0);
        return new GnuplotScripts.ThroughputAxis(windows, top, "y axis clipped at 3x the run's average rate: over M "
                + "messages the values include bursts stamped together (see --window-min-time)");
    }

    public static String sentence(TraceResult out, AnalysisResult a) {
        return sentence(out, a, false);
    }

    /** The same; {@code color}: the console is a terminal, where guarantee violations above 0 show in red. */
    public static String sentence(TraceResult out, AnalysisResult a, boolean color) {
        StringBuilder sb = new StringBuilder();
        if (out.interrupted() && out.sentKnown()) { // the part that ran (issue 29)
            sb.append(HumanFormat.count(out.counts().sent())).append(" of ");
        }
        sb.append(HumanFormat.count(out.spec().count())).append(" messages of ").append(out.spec().size()).append(" B");
        if (out.spec().timeline() != null) {
            int n = out.spec().timeline().phases().size();
            sb.append(" on ").append(n).append(n == 1 ? " phase" : " phases");
        } else if (out.spec().rate() > 0) {
            sb.append(" at ").append(HumanFormat.rate(out.spec().rate())).append(" msg/s");
        }
        sb.append(": ");
        double whole = out.receiveRate();
        sb.append("received at ").append(Double.isFinite(whole) ? HumanFormat.rate(whole) + " msg/s over the run"
                : "n/a msg/s");
        SeriesStats rt = a.rtMsgPerSec();
        if (!rt.isEmpty()) {
            sb.append(" (RT median ").append(HumanFormat.rate(rt.median())).append(" msg/s over ");
            if (a.rateWindowMinNs() > 0) {
                sb.append("windows of ").append(RateWindow.describe(a.window(), a.rateWindowMinNs()));
            } else {
                sb.append("M=").append(a.window());
                if (parseRate(a, whole)) {
                    sb.append(": the rate of parsing messages read together, not a receive rate; "
                            + "--window-min-time gives windows a minimum span");
                }
            }
            sb.append(")");
        }
        sb.append("; ");
        SeriesStats l = a.latencyNs();
        if (l.isEmpty()) {
            sb.append("no latency measured");
        } else {
            sb.append("latency p50 ").append(HumanFormat.duration(l.p50()))
                    .append(", p99 ").append(HumanFormat.duration(l.p99()))
                    .append(", max ").append(HumanFormat.duration(l.max()));
        }
        SeriesStats c = a.latencyCorrectedNs();
        if (c != null && !c.isEmpty()) {
            sb.append(" (from the intended send time: p50 ").append(HumanFormat.duration(c.p50()))
                    .append(", p99 ").append(HumanFormat.duration(c.p99())).append(")");
        }
        if (out.lossKnown()) {
            sb.append("; ").append(HumanFormat.count(a.lost())).append(" lost");
        } else {
            sb.append("; lost unknown (no whole ").append(String.join(" or ", out.traces().missing())).append(" trace)");
        }
        Long violations = out.guaranteeViolations();
        if (violations != null) {
            sb.append(" (").append(io.msgscope.coordinator.faults.FaultSection.violations(violations, color)).append(" guarantee violations)");
        }
        if (!out.arrivalCountsKnown()) {
            sb.append(", duplicates and reordering unknown (the receiver's report never came)");
        } else if (out.counts().duplicates() > 0) {
            sb.append(", ").append(HumanFormat.count(out.counts().duplicates())).append(" duplicated");
        }
        if (out.arrivalCountsKnown() && out.counts().reordered() > 0) {
            sb.append(", ").append(HumanFormat.count(out.counts().reordered())).append(" reordered");
        }
        return sb.toString();
    }
}

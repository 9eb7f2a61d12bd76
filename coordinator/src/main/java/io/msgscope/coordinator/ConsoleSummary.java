package io.msgscope.coordinator;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.output.HumanFormat;

/** The run in one plain sentence (D7), e.g. "1,000,000 messages of 64 B: receive median ...". */
public final class ConsoleSummary {
    private ConsoleSummary() {
    }

    public static String sentence(RunOutcome out, AnalysisResult a) {
        StringBuilder sb = new StringBuilder();
        sb.append(HumanFormat.count(out.spec.count())).append(" messages of ").append(out.spec.size()).append(" B");
        if (out.spec.rate() > 0) {
            sb.append(" at ").append(HumanFormat.rate(out.spec.rate())).append(" msg/s");
        }
        sb.append(": ");
        double whole = SummaryJson.rate(out.recvNs, out.received);
        sb.append("received at ").append(Double.isFinite(whole) ? HumanFormat.rate(whole) : "n/a").append(" msg/s");
        SeriesStats rt = a.rtMsgPerSec();
        if (!rt.isEmpty()) {
            sb.append(" (RT median ").append(HumanFormat.rate(rt.median())).append(" msg/s over M=")
                    .append(a.window()).append(")");
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
        sb.append("; ").append(HumanFormat.count(a.lost())).append(" lost");
        if (out.duplicates > 0) {
            sb.append(", ").append(HumanFormat.count(out.duplicates)).append(" duplicated");
        }
        if (out.reordered > 0) {
            sb.append(", ").append(HumanFormat.count(out.reordered)).append(" reordered");
        }
        return sb.toString();
    }
}

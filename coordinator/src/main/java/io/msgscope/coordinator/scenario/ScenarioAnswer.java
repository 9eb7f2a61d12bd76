package io.msgscope.coordinator.scenario;

import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.coordinator.results.LatencyFigures;

import java.util.Locale;

/**
 * Scenario mode's answer in one sentence (issue 29), what {@code run}'s console sentence is to a trace run: the
 * receive rate against the send rate, the delivery, latency p50/p99 from the actual and from the intended send
 * time, the connections opened, and how many warnings summary.json holds. The per-second table is summary.md's
 * (and the console's with {@code --verbose}).
 */
public final class ScenarioAnswer {
    private ScenarioAnswer() {
    }

    /** e.g. "fan-in: received 400 msg/s (sent 400), delivery 100.00 % (800 of 800), latency p50 1.2 ms, ...". */
    public static String sentence(ScenarioResult r) {
        ScenarioFigures f = r.results();
        ScenarioFigures.Delivery d = f.delivery();
        ScenarioFigures.Connections c = f.connections();
        int warnings = r.envelope().warnings().size();
        return String.format(Locale.ROOT, "%s: received %s msg/s (sent %s), delivery %s (%s of %s), latency %s "
                        + "(from the intended send time: %s), %s of %s connections, %d warning%s",
                r.setup().scenario(), rate(d.receiveRate()), rate(d.sendRate()),
                Double.isFinite(d.deliveryRate()) ? String.format(Locale.ROOT, "%.2f %%", 100 * d.deliveryRate()) : "–",
                HumanFormat.count(f.counts().messagesReceived()), HumanFormat.count(d.expectedMessages()),
                percentiles(f.latency()), percentiles(f.intended()),
                HumanFormat.count(c.opened()), HumanFormat.count(c.target()), warnings, warnings == 1 ? "" : "s");
    }

    private static String rate(double msgPerS) {
        return Double.isFinite(msgPerS) ? String.format(Locale.ROOT, "%,.0f", msgPerS) : "–";
    }

    /** "p50 1.21 ms, p99 3.4 ms", each "–" when not recorded. */
    private static String percentiles(LatencyFigures l) {
        return "p50 " + us(l == null ? null : l.p50Us()) + ", p99 " + us(l == null ? null : l.p99Us());
    }

    private static String us(Double v) {
        return v == null || !Double.isFinite(v) ? "–" : HumanFormat.duration(v * 1e3);
    }
}

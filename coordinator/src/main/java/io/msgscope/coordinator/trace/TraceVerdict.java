package io.msgscope.coordinator.trace;

import io.msgscope.analysis.TraceFileCheck;
import io.msgscope.core.driver.Driver;

import java.util.Locale;

/**
 * What fails a trace run besides the run itself (STYLE "Results": visibly): what the measurement recorded, judged
 * once it is analysed, and trace.dat's self-check once it is written. Each verdict is a {@link TraceResult.Kind}, so
 * what is added to it (the driver's hint on lost messages) follows from the kind, not from the wording.
 */
public final class TraceVerdict {
    private TraceVerdict() {
    }

    /**
     * A run that lost messages (naming how many of them the system had confirmed: guarantee violations, issue 32),
     * delivered one twice or missed its rate is failed (the duplicates rule is every
     * mode's, issue 16: {@code --allow-duplicates} accepts them where the system promises no more than
     * at-least-once); a run that already failed keeps its failure.
     */
    public static TraceResult judge(TraceResult out, long lost, long sent, boolean allowDuplicates) {
        if (out.failed()) {
            return out;
        }
        TraceResult.Counts n = out.counts();
        if (lost > 0) {
            Long violations = out.guaranteeViolations();
            return failed(out, TraceResult.Kind.MESSAGES_LOST, lost + " of " + sent + " messages lost"
                    + (violations == null || violations == 0 ? "" : ", " + violations + " of them guarantee violations "
                    + "(the system had confirmed them)"));
        }
        if (n.outOfRange() > 0) {
            return failed(out, TraceResult.Kind.OUT_OF_RANGE,
                    n.outOfRange() + " messages carried a sequence outside the run");
        }
        if (n.duplicates() > 0 && !allowDuplicates) {
            return failed(out, TraceResult.Kind.DUPLICATES, n.duplicates() + " messages delivered more than once (the "
                    + "first arrival is measured; --allow-duplicates accepts them, e.g. at MQTT QoS 1)");
        }
        double asked = askedRate(out.spec());
        if (asked > 0) {
            double achieved = out.sendRate();
            if (achieved < 0.95 * asked) {
                return failed(out, TraceResult.Kind.FELL_BEHIND, String.format(Locale.ROOT,
                        "sender fell behind its %s: %.0f of %.0f msg/s", out.spec().timeline() == null ? "rate"
                                : "phases (on average from the first message to the last)", achieved, asked));
            }
        }
        return out;
    }

    /**
     * The send rate a paced run asks, msg/s, 0 at full speed: {@code --rate}, or on a timeline the messages over the
     * time from the first one's due time to the last one's (pauses included, as in the achieved send rate).
     */
    static double askedRate(io.msgscope.core.RunSpec spec) {
        io.msgscope.core.timeline.Timeline t = spec.timeline();
        if (t == null) {
            return spec.rate();
        }
        long span = t.dueNs(t.messages() - 1) - t.dueNs(0);
        return span <= 0 ? 0 : (t.messages() - 1) * 1e9 / span;
    }

    /** {@link #judge}, with the driver's word on why a broker may drop messages when that failed the run (issue 18). */
    static TraceResult judge(TraceResult out, long lost, long sent, boolean allowDuplicates, Driver driver) {
        TraceResult judged = judge(out, lost, sent, allowDuplicates);
        if (judged.failed() && judged.failure().kind() == TraceResult.Kind.MESSAGES_LOST) {
            String hint = driver.lossHint(out.spec().driverOptions());
            if (hint != null) {
                return judged.withFailure(judged.failure().adding(hint));
            }
        }
        return judged;
    }

    /** The self-check on trace.dat as written (M12, issue 17) fails a run that had not failed otherwise. */
    static TraceResult selfChecked(TraceResult judged, TraceFileCheck fileCheck) {
        if (fileCheck.holds() || judged.failed()) {
            return judged;
        }
        return judged.withFailure(new TraceResult.Failure("the self-check on trace.dat failed: "
                + fileCheck.firstProblem(), "analysis", false, false, TraceResult.Kind.SELF_CHECK));
    }

    /** What the measurement recorded fails it, found when it is analysed. */
    private static TraceResult failed(TraceResult out, TraceResult.Kind kind, String reason) {
        return out.withFailure(new TraceResult.Failure(reason, "measurement", false, false, kind));
    }
}

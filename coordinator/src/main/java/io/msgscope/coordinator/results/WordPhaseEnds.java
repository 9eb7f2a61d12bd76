package io.msgscope.coordinator.results;

import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How a phase that ended on a word ended (issue 31: until drained, or until the broker's count of the backlog reached a
 * target), as trace mode and scenario mode both write it: summary.json's {@code until_drained} and
 * {@code until_backlog} objects, and the console's line.
 */
public final class WordPhaseEnds {
    private WordPhaseEnds() {
    }

    /**
     * A drain phase's end: its cap, why it ended and what was missing then; {@code ended_by} null when the run did not
     * come to its end (stopped or failed first: the phase is framed by its cap).
     */
    public static Map<String, Object> untilDrained(LoadPhase p, Timeline.WordEnd e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at_most_s", p.wordCapNs() / 1e9);
        m.put("ended_by", e == null ? null : e.endedBy());
        m.put("messages_missing", e == null ? null : e.missing());
        return m;
    }

    /**
     * A phase that lasted until the broker's count of the backlog reached its target: the target, its cap, why it ended
     * ({@code backlog} or {@code cap}; null when the run did not come to its end) and the broker's count that ended it
     * (null on the cap).
     */
    public static Map<String, Object> untilBacklog(LoadPhase p, Timeline.WordEnd e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("broker_messages_target", p.backlogTarget());
        m.put("at_most_s", p.wordCapNs() / 1e9);
        m.put("ended_by", e == null ? null : e.endedBy());
        m.put("broker_messages", e == null ? null : e.brokerMessages());
        return m;
    }

    /**
     * One line for a word phase's end, e.g. {@code phase 2 drain: drained after 3.250 s (at most 60 s)} or {@code phase
     * 1 fill: the broker held 20,412 (asked 20,000) after 2.093 s (at most 60 s)}.
     */
    public static String line(Timeline asked, Timeline.WordEnd e) {
        String why = switch (e.endedBy()) {
            case "drained" -> "drained";
            case "quiet" -> "nothing arrived for the drain timeout, " + e.missing() + " message(s) missing";
            case "backlog" -> String.format(Locale.ROOT, "the broker held %,d (asked %,d)", e.brokerMessages(),
                    asked.phases().get(e.phase()).backlogTarget());
            default -> asked.phases().get(e.phase()).untilBacklog() ? "the broker's backlog did not reach "
                    + asked.phases().get(e.phase()).backlogTarget() + " by its cap" : "not drained by its cap";
        };
        return String.format(Locale.ROOT, "phase %d %s: %s after %.3f s (at most %s)", e.phase(),
                asked.phases().get(e.phase()).name(), why, e.durationNs() / 1e9,
                HumanFormat.duration(asked.phases().get(e.phase()).wordCapNs()));
    }
}

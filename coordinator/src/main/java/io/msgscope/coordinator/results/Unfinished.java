package io.msgscope.coordinator.results;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far a sweep or a batch got when SIGINT or SIGTERM stopped it (issue 29): the runs that finished (the one cut
 * mid-way counts when its own summary says {@code interrupted}: its figures are over the part that ran), of how many,
 * and the runs not finished — the one cut without an interrupted summary and those never started. sweep.json's and
 * batch.json's {@code interrupted} section.
 *
 * @param signal      SIGINT or SIGTERM
 * @param finished    runs in the tables, the interrupted one included
 * @param total       runs planned
 * @param notFinished the folders of the runs not in the tables, in planned order
 */
public record Unfinished(String signal, int finished, int total, List<String> notFinished) {
    public Unfinished {
        notFinished = List.copyOf(notFinished);
    }

    /** One line for the console: how far it got. */
    public String line() {
        return "interrupted by " + signal + " after " + finished + " of " + total + " runs; the tables hold the "
                + finished + (notFinished.isEmpty() ? "" : ", not finished: " + String.join(", ", notFinished));
    }

    /**
     * sweep.json's and batch.json's {@code status} ({@code interrupted} when {@code stopped} is not null, else
     * {@code failed} or {@code ok}) and, when a signal stopped it, the {@code interrupted} section, into {@code m}.
     */
    public static void putStatus(Map<String, Object> m, Unfinished stopped, boolean failed) {
        m.put("status", stopped != null ? Envelope.INTERRUPTED : failed ? "failed" : "ok");
        if (stopped != null) {
            m.put("interrupted", stopped.toMap());
        }
    }

    /** The {@code interrupted} section. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("signal", signal);
        m.put("finished", finished);
        m.put("total", total);
        m.put("not_finished", notFinished);
        return m;
    }
}

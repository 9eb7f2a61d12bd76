package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's table of a run with {@code --faults} (issue 32 item 4), from summary.json's {@code faults[]}: one row per
 * planned fault — when it was applied, what it cost the messages and how long until the run was back — each figure
 * with its unit, a missing one "–". The fault lines in the latency and throughput plots are the gnuplot scripts' own.
 */
final class FaultTables {
    static final List<String> HEAD = List.of("fault", "planned", "applied (lag)", "unavailable", "sent in window",
            "lost", "guarantee violations", "reordered", "in flight", "p99 in flight from intended", "throughput back", "p99 back");

    private FaultTables() {
    }

    /**
     * Adds, in red, the run's guarantee violations when there were any (issue 32 item 3: messages the system confirmed
     * and never delivered), then the Faults table; nothing for a run without either.
     */
    static void add(Html h, JsonNode s) {
        JsonNode violations = s.path("counters").path("guarantee_violations");
        if (violations.isNumber() && violations.asLong() > 0) {
            h.raw("<p class=\"status-failed\">").text(PhaseTables.count(violations) + " guarantee violations: messages "
                    + "the system confirmed and never delivered (counters.guarantee_violations)").raw("</p>\n");
        }
        JsonNode faults = s.path("faults");
        if (!faults.isArray() || faults.isEmpty()) {
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode f : faults) {
            String what = f.path("index").asInt() + ": " + f.path("action").asText() + " " + f.path("target").asText();
            String applied = f.path("applied_s").isNumber()
                    ? PhaseTables.seconds(f.path("applied_s")) + " (" + ms(f.path("lag_ms")) + ")"
                    : "not applied: " + f.path("error").asText("–");
            rows.add(List.of(what, PhaseTables.seconds(f.path("planned_s")), applied, ms(f.path("unavailable_ms")),
                    PhaseTables.count(f.path("messages_sent_in_window")), PhaseTables.count(f.path("messages_lost")),
                    PhaseTables.count(f.path("guarantee_violations")),
                    PhaseTables.count(f.path("messages_reordered")), PhaseTables.count(f.path("messages_in_flight")),
                    PhaseTables.us(f.path("in_flight_latency_from_intended").path("latency_p99_us")),
                    after(f.path("throughput_recovered_s")),
                    after(f.path("p99_recovered_s"))));
        }
        h.el("h2", "Faults");
        h.el("p", "Each planned fault (summary.json faults[]): when the broker-probe agent applied it on the run's clock, "
                + "the longest gap between deliveries around it, what happened to the messages sent in its window (a "
                + "guarantee violation: a message the system confirmed and never delivered; – where the settings confirm "
                + "nothing), and "
                + "when throughput and p99 from the intended time were back within 10 % of the time before it "
                + "(– : never, or not known). The latency and throughput plots draw a line at each fault.");
        h.table(HEAD, rows);
    }

    private static String ms(JsonNode ms) {
        return ms.isNumber() ? String.format(Locale.ROOT, "%,.1f ms", ms.asDouble()) : "–";
    }

    /** How long after the fault throughput or p99 was back (a duration from the applied time). */
    private static String after(JsonNode s) {
        return s.isNumber() ? String.format(Locale.ROOT, "%.3f s after", s.asDouble()) : "–";
    }
}

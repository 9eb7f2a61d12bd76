package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.view.Units;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's tables of a run on {@code --phases} (issue 31 items 2 and 3), from summary.json's {@code phases[]} and
 * {@code backlog[]}: one row per phase and per backlog episode, each figure with its unit (a missing one is "–").
 * The bands behind the latency and throughput plots are the gnuplot scripts' own (the report embeds their PNGs).
 */
final class PhaseTables {
    static final List<String> PHASE_HEAD = List.of("phase", "span", "rate asked", "consumers", "sent", "received",
            "lost", "p50 from intended", "p99 from intended");
    static final List<String> BACKLOG_HEAD = List.of("phases", "paused – resumed", "peak (tool)", "peak (broker)",
            "drain", "drain rate", "time to catch up", "last arrival above the bound", "producers while draining",
            "p99 from intended while draining");

    private PhaseTables() {
    }

    /** Adds the Phases table, and the Backlog table when the run paused its consumers; nothing without phases. */
    static void add(Html h, JsonNode s) {
        JsonNode phases = s.path("phases");
        if (!phases.isArray() || phases.isEmpty()) {
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode p : phases) {
            rows.add(List.of(p.path("name").asText(), span(p.path("start_s"), p.path("end_s")), asked(p),
                    p.path("consumers_paused").asBoolean(false) ? "paused" : "consuming",
                    count(p.path("messages_sent")), count(p.path("messages_received")), count(p.path("messages_lost")),
                    us(p.path("latency_from_intended").path("latency_p50_us")),
                    us(p.path("latency_from_intended").path("latency_p99_us"))));
        }
        h.el("h2", "Phases");
        h.el("p", "Each phase's messages (summary.json phases[]); its span on the timeline from message 0's due time, "
                + "latency from each message's intended send time. The plots above draw the phases as bands.");
        h.table(PHASE_HEAD, rows);
        JsonNode backlog = s.path("backlog");
        if (!backlog.isArray() || backlog.isEmpty()) {
            return;
        }
        List<List<String>> b = new ArrayList<>();
        for (JsonNode e : backlog) {
            List<String> names = new ArrayList<>();
            e.path("phases").forEach(n -> names.add(n.asText()));
            JsonNode view = e.path("broker_view");
            b.add(List.of(String.join(", ", names), span(e.path("paused_at_s"), e.path("resumed_at_s")),
                    count(e.path("peak_messages")) + " msg",
                    view.isObject() ? count(view.path("peak_messages")) + " msg" : "not read",
                    seconds(e.path("drain_s")), rate(e.path("drain_msg_s")), seconds(e.path("time_to_catch_up_s")),
                    seconds(e.path("last_arrival_above_bound_s")), rate(e.path("drain_send_msg_s")),
                    us(e.path("drain_latency_from_intended").path("latency_p99_us"))));
        }
        h.el("h2", "Backlog");
        h.el("p", "Each run of paused phases (summary.json backlog[]): the most messages in flight by the trace and as "
                + "the broker counted them (not read: the driver cannot read it), the drain after the resume, when the "
                + "latency was back (from the first window from which on every window's median latency from the "
                + "intended time is within the pre-pause p99) and when the last message above that bound arrived, and "
                + "the producers meanwhile.");
        h.table(BACKLOG_HEAD, b);
    }

    private static String span(JsonNode from, JsonNode to) {
        return seconds(from) + " – " + seconds(to);
    }

    /** A constant rate, a ramp's two ends, or a pause. */
    private static String asked(JsonNode p) {
        JsonNode from = p.path("rate_asked_from_msg_s");
        JsonNode to = p.path("rate_asked_to_msg_s");
        if (!from.isNumber()) {
            return "–";
        }
        if (!to.isNumber() || to.asDouble() == from.asDouble()) {
            return rate(from);
        }
        return String.format(Locale.ROOT, "%,.0f → %,.0f msg/s", from.asDouble(), to.asDouble());
    }

    static String seconds(JsonNode s) {
        return s.isNumber() ? String.format(Locale.ROOT, "%.3f s", s.asDouble()) : "–";
    }

    static String rate(JsonNode r) {
        return r.isNumber() ? String.format(Locale.ROOT, "%,.0f msg/s", r.asDouble()) : "–";
    }

    static String count(JsonNode n) {
        return n.isNumber() ? String.format(Locale.ROOT, "%,d", n.asLong()) : "–";
    }

    static String us(JsonNode us) {
        return us.isNumber() ? Units.time(us.asDouble() * 1e3) : "–";
    }
}

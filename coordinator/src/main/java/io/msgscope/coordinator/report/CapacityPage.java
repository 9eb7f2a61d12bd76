package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.msgscope.analysis.output.HumanFormat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A capacity search's page (issue 31 item 4), from its summary.json: the answer in a sentence, the objective, the
 * hockey stick (capacity.png when rendered), the steps with units and a link to each step's own page when it has one.
 */
final class CapacityPage {
    private static final ObjectMapper OM = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private CapacityPage() {
    }

    static Path write(Path dir, JsonNode s) throws IOException {
        Html h = new Html();
        String title = "msgscope capacity " + dir.getFileName();
        h.el("h1", title);
        String st = s.path("status").asText("unknown");
        h.raw("<p>Status: <span class=\"" + ("ok".equals(st) ? "status-ok" : "status-failed") + "\">")
                .text(st).raw("</span></p>\n");
        h.raw("<p class=\"sentence\">").text(sentence(s)).raw("</p>\n");
        h.el("h2", "Objective (latency from the intended send time)");
        List<List<String>> obj = new ArrayList<>();
        for (Iterator<String> it = s.path("objective").fieldNames(); it.hasNext(); ) {
            String k = it.next();
            obj.add(List.of(percentile(k), "≤ " + Html.value(s.path("objective").get(k)) + " µs"));
        }
        h.table(List.of("percentile", "bound"), obj);
        h.el("h2", "Plots");
        for (String png : HtmlReport.pngs(dir)) {
            h.img(png, png);
        }
        if (grid(s)) {
            h.el("h2", "Rates (each decided by the majority of its runs)");
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode v : c(s).path("rates")) {
                rows.add(List.of(Html.value(v.get("rate_msg_s")), Html.value(v.get("runs")),
                        Html.value(v.get("runs_passed")), v.path("lost_messages").asBoolean() ? "yes" : "no",
                        v.path("verdict").asText()));
            }
            h.table(List.of("rate [msg/s]", "runs", "runs passed", "lost messages", "verdict"), rows);
        }
        h.el("h2", "Steps");
        List<String> pcts = new ArrayList<>();
        s.path("objective").fieldNames().forEachRemaining(pcts::add);
        List<String> head = new ArrayList<>(List.of("#", "role", "rate asked [msg/s]", "rate achieved [msg/s]",
                "hold [s]", "run status"));
        pcts.forEach(p -> head.add(percentile(p) + " [µs]"));
        head.addAll(List.of("lost [messages]", "stationary", "pass", "reason", "wall time [s]", "folder"));
        h.raw("<table>\n<thead><tr>");
        head.forEach(c -> h.raw("<th>").text(c).raw("</th>"));
        h.raw("</tr></thead>\n<tbody>\n");
        for (JsonNode t : s.path("steps")) {
            h.raw("<tr>");
            List<String> cells = new ArrayList<>(List.of(Html.value(t.get("index")), t.path("role").asText(),
                    Html.value(t.get("rate_asked_msg_s")), Html.value(t.get("rate_achieved_msg_s")),
                    Html.value(t.get("hold_s")), t.path("run_status").asText()));
            pcts.forEach(p -> cells.add(Html.value(t.path("latency_from_intended").get(p))));
            JsonNode stat = t.path("stationarity").path("stationary");
            cells.addAll(List.of(Html.value(t.get("messages_lost")), stat.isBoolean() ? (stat.asBoolean() ? "yes" : "no")
                    : "–", t.path("pass").asBoolean() ? "yes" : "no", Html.value(t.get("reason")),
                    Html.value(t.get("seconds"))));
            cells.forEach(c -> h.raw("<td>").text(c).raw("</td>"));
            String d = t.path("folder").asText();
            h.folderCell(dir, d).raw("</tr>\n");
        }
        h.raw("</tbody></table>\n");
        h.el("h2", "summary.json");
        h.pre(OM.writeValueAsString(s));
        Path index = dir.resolve("index.html");
        Files.writeString(index, Html.page(title, h.toString()), StandardCharsets.UTF_8);
        return index;
    }

    private static boolean grid(JsonNode s) {
        return "grid".equals(s.path("search").path("kind").asText());
    }

    private static JsonNode c(JsonNode s) {
        return s.path("capacity");
    }

    /** {@code p99_us} as {@code p99}. */
    private static String percentile(String key) {
        return key.endsWith("_us") ? key.substring(0, key.length() - 3) : key;
    }

    /** The answer, from summary.json's figures alone. */
    static String sentence(JsonNode s) {
        List<String> bounds = new ArrayList<>();
        s.path("objective").fields().forEachRemaining(e -> bounds.add(percentile(e.getKey()) + " ≤ "
                + (e.getValue().isNumber() ? HumanFormat.duration(e.getValue().asDouble() * 1e3) : "?")));
        String within = " within " + String.join(", ", bounds);
        JsonNode c = s.path("capacity");
        JsonNode found = c.get("found_msg_s");
        JsonNode above = c.get("first_failing_msg_s");
        StringBuilder b = new StringBuilder();
        JsonNode cut = s.get("interrupted");
        if (cut != null && cut.isObject()) {
            b.append("Interrupted by ").append(cut.path("signal").asText()).append(" during the ")
                    .append(cut.path("during").asText()).append(" phase after ").append(cut.path("steps_finished").asInt())
                    .append(" step(s); so far ").append(Html.value(cut.get("last_passing_msg_s")))
                    .append(" msg/s passed and ").append(Html.value(cut.get("first_failing_msg_s")))
                    .append(" msg/s failed. ");
            if (!cut.path("converged").asBoolean()) {
                return b.append("The search had not converged: no capacity is claimed.").toString();
            }
        }
        if (found == null || found.isNull()) {
            return b.append(grid(s) ? "Does not sustain even the lowest of --rates, " : "Does not sustain even --from ")
                    .append(Html.value(s.path("search").get("from_msg_s")))
                    .append(" msg/s").append(within).append('.').toString();
        }
        b.append("Sustains ").append(Html.value(found)).append(" msg/s").append(within);
        JsonNode ci = c.path("edge").path("ci95_msg_s");
        if (ci.isArray()) {
            b.append(" (edge 95 % interval ").append(Html.value(ci.get(0))).append('–').append(Html.value(ci.get(1)))
                    .append(" msg/s)");
        }
        if (grid(s)) {
            b.append(", and at every lower rate of --rates");
        }
        if (above == null || above.isNull()) {
            b.append(grid(s) ? "; the objective held at every rate of --rates, so the capacity may be higher."
                    : "; the objective held up to --to, so the capacity may be higher.");
        } else {
            b.append("; the first failing rate was ").append(Html.value(above)).append(" msg/s");
            JsonNode again = c.path("passed_above_first_failing_msg_s");
            if (again.isArray() && !again.isEmpty()) {
                List<String> r = new ArrayList<>();
                again.forEach(x -> r.add(Html.value(x)));
                b.append(", and ").append(String.join(", ", r)).append(" msg/s passed again above it (a noisy edge)");
            }
            b.append('.');
        }
        b.append(' ').append(s.path("steps").size()).append(" runs in ").append(Html.value(c.get("seconds")))
                .append(" s (").append(c.path("stop_reason").asText()).append(").");
        return b.toString();
    }
}

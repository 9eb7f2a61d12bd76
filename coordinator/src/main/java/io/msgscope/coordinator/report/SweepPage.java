package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import static io.msgscope.coordinator.report.SummaryTables.FIELD_HEAD;
import static io.msgscope.coordinator.report.SummaryTables.fields;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** A sweep's page (sweep.json): the sentence, the points' table with a link to each point's page, the timing. */
final class SweepPage {
    private static final ObjectMapper OM = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SweepPage() {
    }

    static Path writeSweep(Path dir, JsonNode sw) throws IOException {
        String param = sw.path("parameter").asText("value");
        Html h = new Html();
        String title = "msgscope sweep " + dir.getFileName() + " over " + param;
        h.el("h1", title);
        String st = sw.path("status").asText("unknown");
        h.raw("<p>Status: <span class=\"" + ("ok".equals(st) ? "status-ok" : "status-failed") + "\">")
                .text(st).raw("</span></p>\n");
        h.raw("<p class=\"sentence\">").text(sweepSentence(sw, param)).raw("</p>\n");
        h.el("h2", "Plots");
        for (String png : HtmlReport.pngs(dir)) {
            h.img(png, png);
        }
        h.el("h2", "Spread between repeats (min / median / max)");
        List<String> head = new ArrayList<>(List.of(param, "repeats"));
        List<String> figs = new ArrayList<>();
        JsonNode first = sw.path("spread").path(0);
        for (Iterator<String> it = first.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (first.get(f).isObject()) {
                figs.add(f);
                head.add(f);
            }
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode p : sw.path("spread")) {
            List<String> r = new ArrayList<>(List.of(Html.value(p.get(param)), Html.value(p.get("repeats"))));
            for (String f : figs) {
                JsonNode x = p.path(f);
                r.add(Html.value(x.get("min")) + " / " + Html.value(x.get("median")) + " / " + Html.value(x.get("max")));
            }
            rows.add(r);
        }
        h.table(head, rows);
        h.el("h2", "Points");
        h.raw("<table>\n<thead><tr><th>").text(param).raw("</th><th>repeat</th><th>status</th><th>receive msg/s</th>"
                + "<th>receive bytes/s</th><th>p50 [µs]</th><th>p99 [µs]</th><th>p99.9 [µs]</th><th>max [µs]</th>"
                + "<th>report</th></tr></thead>\n<tbody>\n");
        for (JsonNode p : sw.path("points")) {
            String d = p.path("dir").asText();
            h.raw("<tr>");
            for (String f : List.of(param, "repeat", "status", "recv_msg_s", "recv_bytes_s", "lat_p50_us", "lat_p99_us",
                    "lat_p999_us", "lat_max_us")) {
                h.raw("<td>").text(Html.value(p.get(f))).raw("</td>");
            }
            h.folderCell(dir, d).raw("</tr>\n");
        }
        h.raw("</tbody></table>\n");
        h.el("h2", "Time");
        h.table(FIELD_HEAD, fields(sw.path("timing")));
        h.el("h2", "Run options (passed to every run)");
        h.pre(String.join(" ", iterText(sw.path("run_args"))));
        h.el("h2", "sweep.json");
        h.pre(OM.writeValueAsString(sw));
        Path index = dir.resolve("index.html");
        Files.writeString(index, Html.page(title, h.toString()), StandardCharsets.UTF_8);
        return index;
    }

    private static String sweepSentence(JsonNode sw, String param) {
        StringBuilder b = new StringBuilder();
        b.append(sw.path("points").size()).append(" runs over ").append(sw.path("values").size()).append(" values of ")
                .append(param).append(", ").append(sw.path("repeat").asInt(1)).append(" repeat(s) each.");
        for (JsonNode p : sw.path("spread")) {
            b.append(' ').append(param).append(' ').append(Html.value(p.get(param))).append(": ")
                    .append(Html.value(p.path("recv_msg_s").get("median"))).append(" msg/s, p99 ")
                    .append(Html.value(p.path("lat_p99_us").get("median"))).append(" µs (medians of repeats).");
        }
        return b.toString();
    }

    private static List<String> iterText(JsonNode arr) {
        List<String> l = new ArrayList<>();
        arr.forEach(n -> l.add(n.asText()));
        return l;
    }
}

package io.msgscope.coordinator.report;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables of a report page built from summary.json (issue 18): each field in words with its unit, its value, and
 * its name in the file; the series aggregates, CPU, the distribution verdict, the peaks and the environment.
 */
final class SummaryTables {
    private SummaryTables() {
    }

    /** The head of every table of summary.json fields: what a reader calls it, its value, where to find it. */
    static final List<String> FIELD_HEAD = List.of("figure", "value", "summary.json field");

    /**
     * Rows of an object's fields (nested objects as JSON text): the field in words with its unit, the value, and
     * the field's name as summary.json spells it (issue 18: a reader should not have to decode {@code _p999_us}).
     */
    static List<List<String>> fields(JsonNode o) {
        List<List<String>> rows = new ArrayList<>();
        addFields(rows, "", "", o);
        return rows;
    }

    /**
     * Issue 29: a nested object is not shown as raw JSON but as its own rows, each labelled "parent: field" and named
     * {@code parent.field}; an array of numbers or words as its values, at most 12 of them.
     */
    private static void addFields(List<List<String>> rows, String labelPrefix, String keyPrefix, JsonNode o) {
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isObject() && v.size() > 0) {
                addFields(rows, labelPrefix + label(e.getKey()) + ": ", keyPrefix + e.getKey() + ".", v);
            } else if (v.isArray()) {
                rows.add(List.of(labelPrefix + label(e.getKey()), list(v), keyPrefix + e.getKey()));
            } else {
                rows.add(List.of(labelPrefix + label(e.getKey()), Html.value(v), keyPrefix + e.getKey()));
            }
        }
    }

    private static String list(JsonNode array) {
        if (array.isEmpty()) {
            return "none";
        }
        List<String> items = new ArrayList<>();
        for (JsonNode n : array) {
            if (items.size() == 12) {
                return String.join(", ", items) + " … (" + array.size() + " in all)";
            }
            items.add(n.isContainerNode() ? "{…}" : Html.value(n));
        }
        return String.join(", ", items);
    }

    static List<String> field(String key, JsonNode value) {
        return List.of(label(key), Html.value(value), key);
    }

    /** Unit suffixes of summary.json's field names, the longest first, and how a table heading writes them. */
    private static final String[][] UNITS = {
            {"_pct_of_all_cores", "[% of all cores]"}, {"_msg_s", "[msg/s]"}, {"_bytes_s", "[bytes/s]"},
            {"_packets_s", "[packets/s]"}, {"_seconds", "[s]"}, {"_us", "[µs]"}, {"_ns", "[ns]"}, {"_ms", "[ms]"},
            {"_kib", "[KiB]"}, {"_pct", "[%]"}, {"_s", "[s]"}};
    /** Abbreviations in field names, spelt out; percentiles written as they are read. */
    private static final Map<String, String> WORDS = Map.ofEntries(Map.entry("p999", "p99.9"),
            Map.entry("p9999", "p99.99"), Map.entry("ci95", "95 % interval"), Map.entry("cpu", "CPU"),
            Map.entry("rss", "RSS"), Map.entry("rt", "RT"), Map.entry("st", "ST"), Map.entry("recv", "receive"),
            Map.entry("lat", "latency"), Map.entry("tp", "throughput"), Map.entry("sd", "standard deviation"),
            Map.entry("stddev", "standard deviation"), Map.entry("id", "ID"), Map.entry("jvm", "JVM"),
            Map.entry("os", "OS"), Map.entry("rx", "received"), Map.entry("tx", "sent"));

    /** {@code latency_p999_us} → {@code latency p99.9 [µs]}; a name without a unit keeps its words. */
    static String label(String key) {
        String unit = "";
        String stem = key;
        for (String[] u : UNITS) {
            if (key.endsWith(u[0]) && key.length() > u[0].length()) {
                unit = " " + u[1];
                stem = key.substring(0, key.length() - u[0].length());
                break;
            }
        }
        StringBuilder b = new StringBuilder();
        for (String w : stem.split("_")) {
            if (!w.isEmpty()) {
                b.append(b.length() == 0 ? "" : " ").append(WORDS.getOrDefault(w, w));
            }
        }
        return b + unit;
    }

    private static final List<String> AGG = List.of("n", "mean", "median", "robust_deviation", "min", "p50", "p90",
            "p95", "p99", "p99_9", "p99_99", "max");

    static void seriesTable(Html h, JsonNode series, String title) {
        List<List<String>> rows = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = series.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().has("median")) {
                continue;
            }
            List<String> r = new ArrayList<>();
            r.add(e.getKey());
            for (String a : AGG) {
                r.add(Html.value(e.getValue().get(a)));
            }
            rows.add(r);
        }
        if (rows.isEmpty()) {
            return;
        }
        List<String> head = new ArrayList<>();
        head.add("series");
        head.addAll(AGG);
        h.el("h2", title);
        h.table(head, rows);
    }

    static void cpuTable(Html h, JsonNode cpu) {
        if (!cpu.isObject()) {
            return;
        }
        h.el("h2", "CPU (" + cpu.path("unit").asText("%") + ")");
        List<List<String>> rows = new ArrayList<>();
        for (String role : List.of("sender", "broker", "receiver")) {
            JsonNode r = cpu.path(role);
            addCpuRow(rows, role, r);
            addCpuRow(rows, role + " process", r.path("process"));
        }
        h.table(List.of("series", "time-weighted mean", "median per window", "mean per window", "robust deviation",
                "min", "max", "source"), rows);
    }

    private static void addCpuRow(List<List<String>> rows, String name, JsonNode r) {
        JsonNode st = r.path("stats");
        if (!st.isObject()) {
            return;
        }
        // issue 17: CPU time over elapsed time first; the window statistics weigh long and short windows alike
        rows.add(List.of(name, Html.value(r.path("time_weighted").get("mean_pct")), Html.value(st.get("median")),
                Html.value(st.get("mean")),
                Html.value(st.get("robust_deviation")), Html.value(st.get("min")), Html.value(st.get("max")),
                r.path("source").asText("")));
    }

    static void distribution(Html h, JsonNode d) {
        if (!d.isObject()) {
            return;
        }
        h.el("h2", "Latency distribution");
        h.raw("<p>Verdict: <b>").text(d.path("verdict").asText("–")).raw("</b></p>\n");
        List<List<String>> rows = new ArrayList<>();
        int i = 1;
        for (JsonNode m : d.path("modes")) {
            rows.add(List.of(Integer.toString(i++), Html.value(m.get("position_us")),
                    String.format(Locale.ROOT, "%.1f %%", 100 * m.path("share").asDouble())));
        }
        if (!rows.isEmpty()) {
            h.table(List.of("mode", "position [µs]", "share"), rows);
        }
        List<List<String>> other = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!List.of("verdict", "modes").contains(e.getKey())) {
                other.add(field(e.getKey(), e.getValue()));
            }
        }
        h.table(FIELD_HEAD, other);
    }

    static void peaks(Html h, JsonNode p) {
        if (!p.isObject()) {
            return;
        }
        h.el("h2", "Peaks (latency above k × median)");
        h.el("p", "median " + Html.value(p.get("median_us")) + " µs, max " + Html.value(p.get("max_us"))
                + " µs at message " + Html.value(p.get("max_at_message")));
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode k : p.path("above_k_times_median")) {
            rows.add(List.of(Html.value(k.get("factor")), Html.value(k.get("threshold_us")), Html.value(k.get("count")),
                    Html.value(k.get("highest_us")), Html.value(k.get("in_first_5pct")), Html.value(k.get("in_middle")),
                    Html.value(k.get("in_last_5pct"))));
        }
        h.table(List.of("k", "threshold [µs]", "messages above", "highest [µs]", "in first 5 %", "in the middle",
                "in last 5 %"), rows);
        List<List<String>> top = new ArrayList<>();
        for (JsonNode t : p.path("top_peaks")) {
            top.add(List.of(Html.value(t.get("message")), Html.value(t.get("latency_us"))));
        }
        if (!top.isEmpty()) {
            h.el("h3", "Highest peaks");
            h.table(List.of("message", "latency [µs]"), top);
        }
    }

    static void environment(Html h, JsonNode env) {
        if (!env.isObject()) {
            return;
        }
        h.el("h2", "Environment");
        if (!env.has("coordinator")) {
            h.table(FIELD_HEAD, fields(env));
            return;
        }
        h.el("h3", "Coordinator");
        h.table(FIELD_HEAD, fields(env.path("coordinator")));
        for (Iterator<Map.Entry<String, JsonNode>> it = env.path("agents").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            h.el("h3", "Agent " + e.getKey());
            h.table(FIELD_HEAD, fields(e.getValue()));
        }
    }
}

package io.msgscope.coordinator.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.core.LatencyRange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/msgscope-live.json (issue 34 item 6): a Grafana dashboard whose every query names a metric that
 * {@code --metrics-port} really serves, with every label its titles use, and whose variables are all defined.
 */
class GrafanaDashboardTest {
    private static final Path DASHBOARD = Path.of(System.getProperty("user.dir")).getParent()
            .resolve("deploy/grafana/msgscope-live.json");
    private static final Pattern METRIC = Pattern.compile("\\bmsgscope_[a-z0-9_]+");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_]+)");

    /** Every PromQL expression of the dashboard: panel targets, annotations and variable queries. */
    private static List<String> expressions(JsonNode node, List<String> into) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if ((e.getKey().equals("expr") || e.getKey().equals("definition")) && e.getValue().isTextual()) {
                    into.add(e.getValue().asText());
                } else {
                    expressions(e.getValue(), into);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> expressions(n, into));
        }
        return into;
    }

    /** What a scrape of a run with every metric fed serves. */
    private static String servedByABusyRun() throws IOException {
        try (LiveMetrics m = LiveMetrics.start("0", "scenario", "scenario-1", "mqtt")) {
            m.phase("measurement");
            m.counts(() -> 1_000, () -> 990);
            Histogram h = LatencyRange.histogram();
            h.recordValue(5_000);
            m.interval(1_000, h);
            m.health(1, 10);
            m.faults(io.msgscope.core.fault.FaultPlan.parse("--faults", "0s:pause:n1").steps(), System.nanoTime() - 1);
            try (InputStream in = new URL(m.url()).openStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
    }

    @Test
    void everyQueryNamesAServedMetricAndEveryTitleLabelExists() throws IOException {
        JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
        String served = servedByABusyRun();
        Set<String> servedNames = new HashSet<>();
        for (String line : served.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                servedNames.add(line.split("[{ ]", 2)[0]);
            }
        }
        List<String> exprs = expressions(d, new ArrayList<>());
        assertTrue(exprs.size() >= 10, () -> "the dashboard's queries: " + exprs);
        Set<String> named = new TreeSet<>();
        for (String e : exprs) {
            Matcher m = METRIC.matcher(e);
            assertTrue(m.find(), () -> "a query that names no msgscope metric: " + e);
            m.reset();
            while (m.find()) {
                named.add(m.group());
            }
        }
        Set<String> missing = new TreeSet<>(named);
        missing.removeAll(servedNames);
        assertTrue(missing.isEmpty(), () -> "queried but not served: " + missing + "; served: " + servedNames);
        // every metric served is on the dashboard
        Set<String> unused = new TreeSet<>(servedNames);
        unused.removeIf(n -> named.stream().anyMatch(n::equals) || n.endsWith("_count") || n.endsWith("_sum"));
        assertTrue(unused.isEmpty(), () -> "served but on no panel: " + unused);
        for (JsonNode a : d.get("annotations").get("list")) {
            Matcher label = Pattern.compile("\\{\\{(\\w+)}}").matcher(a.get("titleFormat").asText());
            while (label.find()) {
                String l = label.group(1);
                assertTrue(served.contains(l + "=\""), () -> "annotation " + a.get("name") + " titles with " + l
                        + ", which no served series has");
            }
        }
    }

    @Test
    void panelsAreWellFormedAndUseOnlyDefinedVariables() throws IOException {
        JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertEquals("msgscope-live", d.get("uid").asText());
        Set<String> variables = new HashSet<>(List.of("__rate_interval", "__interval"));
        d.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
        Set<Integer> ids = new HashSet<>();
        for (JsonNode p : d.get("panels")) {
            assertTrue(ids.add(p.get("id").asInt()), () -> "panel id twice: " + p.get("id"));
            assertFalse(p.get("title").asText().isBlank());
            assertEquals("${datasource}", p.get("datasource").get("uid").asText(), p.get("title").asText());
            JsonNode g = p.get("gridPos");
            assertTrue(g.get("w").asInt() > 0 && g.get("x").asInt() + g.get("w").asInt() <= 24, p.get("title").asText());
            assertTrue(p.get("targets").size() > 0, p.get("title").asText());
        }
        String text = d.toString();
        Matcher v = VARIABLE.matcher(text);
        while (v.find()) {
            String name = v.group(1);
            assertTrue(variables.contains(name), () -> "$" + name + " is used but not defined");
        }
    }
}

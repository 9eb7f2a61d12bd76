package io.msgscope.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

class HtmlReportTest {
    @TempDir
    Path tmp;

    /** The smallest whole PNG: signature, a 1x1 IHDR, an IDAT and the IEND chunk (CRCs not checked here). */
    static final byte[] PNG = java.util.HexFormat.of().parseHex("89504e470d0a1a0a0000000d4948445200000001000000010800"
            + "0000003a7e9b550000000a49444154789c63000100000500010d0a2db40000000049454e44ae426082");

    @Test
    void escapesEveryTextAndReferencesImagesRelatively() throws IOException {
        Path d = ComparisonTest.run(tmp, "run<1>", "tcp", 64, 1000, 20000, 146_799);
        String json = Files.readString(d.resolve("summary.json"))
                .replace("\"status\": \"ok\"", "\"status\": \"failed\", \"failure_reason\": \"lost <b>3</b> & more\","
                        + " \"warnings\": [\"<script>alert('x')</script>\"]");
        Files.writeString(d.resolve("summary.json"), json);
        Files.write(d.resolve("latency.png"), PNG);
        Files.write(d.resolve("my plot.png"), PNG);
        Files.write(d.resolve("cpu.png"), new byte[0]); // what a failed gnuplot script leaves
        Files.write(d.resolve("throughput.png"), java.util.Arrays.copyOf(PNG, 30)); // cut short
        HtmlReport.Result r = HtmlReport.write(d);
        String html = Files.readString(r.index());
        assertFalse(html.contains("<script"), "raw script tag");
        assertFalse(html.contains("<b>3"), "raw tag from failure reason");
        assertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assertTrue(html.contains("lost &lt;b&gt;3&lt;/b&gt; &amp; more"));
        assertTrue(html.contains("<title>msgscope trace run&lt;1&gt;</title>"), html);
        assertTrue(html.contains("<img src=\"latency.png\""));
        assertTrue(html.contains("<img src=\"my%20plot.png\""));
        assertTrue(html.indexOf("latency.png") < html.indexOf("my%20plot.png"), "known plots first");
        assertFalse(html.contains("cpu.png") || html.contains("throughput.png"), "no broken image (issue 18)");
        assertTrue(html.contains("class=\"status-failed\""));
        assertFalse(html.contains("http://") || html.contains("https://"), "no network references");
        assertTrue(html.contains("1,000 messages of 64 B at 20,000 msg/s over tcp: received at 20,000 msg/s"), html);
        assertTrue(html.contains("latency p50 147 µs, p99 900 µs, p99.9 2.00 ms, max 5.00 ms; 0 lost."), html);
    }

    /**
     * Issue 29: the page in the order docs/commands.md gives: sentence, status, headline, warnings, the plots (not
     * thousands of pixels down, after every table), then the tables and the spec.
     */
    @Test
    void theRunPageIsInTheOrderTheDocsGive() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "commands.md")).replaceAll("\\s+", " ");
        assertTrue(doc.contains("in this order: the summary sentence, status, the headline table, warnings, the plots"),
                "docs/commands.md gives the order");
        Path d = ComparisonTest.run(tmp, "order", "tcp", 64, 1000, 20000, 146_799);
        Files.writeString(d.resolve("summary.json"), Files.readString(d.resolve("summary.json"))
                .replace("\"status\": \"ok\"", "\"status\": \"ok\", \"warnings\": [\"a warning\"]"));
        Files.write(d.resolve("latency.png"), PNG);
        String html = Files.readString(HtmlReport.write(d).index());
        int at = -1;
        for (String part : List.of("class=\"sentence\"", "Status: ", "<h2>Headline</h2>", "<h2>Warnings</h2>",
                "<h2>Plots</h2>", "<img src=\"latency.png\"", "<h2>Latency (Q4)</h2>", "<h2>Throughput</h2>",
                "<h2>Counters</h2>", "<h2>Run spec (to reproduce)</h2>")) {
            int i = html.indexOf(part);
            assertTrue(i > at, () -> part + " out of order in:\n" + html);
            at = i;
        }
    }

    /** Tables name each figure in words with its unit and keep the summary.json name beside it (issue 18). */
    @Test
    void fieldsAreLabelledInWordsWithTheirUnit() throws IOException {
        assertEquals("latency p99.9 [µs]", SummaryTables.label("latency_p999_us"));
        assertEquals("median 95 % interval [msg/s]", SummaryTables.label("median_ci95_msg_s"));
        assertEquals("CPU receiver [%]", SummaryTables.label("cpu_receiver_pct"));
        assertEquals("host busy [% of all cores]", SummaryTables.label("host_busy_pct_of_all_cores"));
        assertEquals("broker RSS max [KiB]", SummaryTables.label("broker_rss_max_kib"));
        assertEquals("messages lost", SummaryTables.label("messages_lost"));
        assertEquals("s", SummaryTables.label("s"), "a bare unit-like name stays a name");
        Path d = ComparisonTest.run(tmp, "labels", "tcp", 64, 1000, 20000, 146_799);
        String html = Files.readString(HtmlReport.write(d).index());
        assertTrue(html.contains("<th>figure</th><th>value</th><th>summary.json field</th>"), html);
        assertTrue(html.contains("<tr><td>latency p50 [µs]</td><td>146.799</td><td>latency_p50_us</td></tr>"), html);
    }

    @Test
    void escapeAndHref() {
        assertEquals("a&amp;b&lt;c&gt;&quot;d&#39;", Html.esc("a&b<c>\"d'"));
        assertEquals("point-1k-1/index.html", Html.href("point-1k-1/index.html"));
        assertEquals("a%22b%C2%B5.png", Html.href("a\"bµ.png"));
    }
}

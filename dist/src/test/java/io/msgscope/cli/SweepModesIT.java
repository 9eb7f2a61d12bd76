package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 7 through the real jar: a sweep over the in-flight window in throughput mode (embedded relay),
 * a sweep over a driver option (AMQP tx_size against RabbitMQ), and report/compare on throughput and
 * scenario folders, the pages opened in headless Chromium. Small counts: these check behaviour, not speed.
 */
class SweepModesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern IMG = Pattern.compile("<img src=\"([^\"]+)\"");

    @TempDir
    Path tmp;

    private static List<String> rows(Path dat) throws Exception {
        return Files.readAllLines(dat, StandardCharsets.UTF_8).stream().filter(l -> !l.startsWith("#")).toList();
    }

    private static boolean gnuplot() {
        boolean g = TraceRunIT.gnuplotOnPath();
        if (!g && Ci.on()) {
            fail("gnuplot-nox must be installed under CI (.ci/run installs it)");
        }
        return g;
    }

    @Test
    void inFlightSweepRunsThroughputModeAndItsReportAndCompareWork() throws Exception {
        boolean gnuplot = gnuplot();
        Path out = tmp.resolve("f-sweep");
        List<String> args = new java.util.ArrayList<>(List.of("sweep", "--in-flights", "1,10,100", "--samples", "10",
                "--out", out.toString()));
        if (gnuplot) {
            args.add("--plot");
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w1"), args.toArray(String[]::new));
        assertEquals(0, p.waitFor(600), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        List<String> header = Files.readAllLines(out.resolve("sweep.dat")).stream().filter(l -> l.startsWith("# in_flight"))
                .toList();
        assertEquals(1, header.size());
        assertTrue(header.get(0).endsWith(" lost tp_window_median_msg_s tp_mean_msg_s tp_sd_msg_s client_cpu_ns_per_msg"), header.get(0));
        List<String> rows = rows(out.resolve("sweep.dat"));
        assertEquals(3, rows.size(), rows::toString);
        for (int i = 0; i < 3; i++) {
            String[] f = rows.get(i).split(" ");
            assertEquals(List.of("1", "10", "100").get(i), f[0]);
            assertEquals("ok", f[2], rows.get(i));
            assertTrue(Double.parseDouble(f[12]) > 100, "delivered msg/s of " + rows.get(i)); // recv_msg_s (issue 27: the delivered rate)
            assertTrue(Double.parseDouble(f[8]) > 0, "latency p99 of " + rows.get(i));
            assertEquals("NaN", f[5], "no robust deviation from a histogram: " + rows.get(i));
        }
        JsonNode sweep = JSON.readTree(out.resolve("sweep.json").toFile());
        assertEquals("throughput", sweep.path("mode").asText());
        assertEquals("--in-flights", sweep.path("sweep_option").asText());
        Path point = out.resolve("point-10-1");
        JsonNode s = SummarySchema.assertValid(point.resolve("summary.json"));
        assertEquals(10, s.path("result").path("in_flight").asLong());
        assertEquals(10, rows(point.resolve("samples.dat")).size());
        assertTrue(Files.readString(out.resolve("sweep-throughput.gp")).contains("set logscale x 10"));
        if (gnuplot) {
            assertTrue(Files.size(out.resolve("sweep-throughput.png")) > 1000);
            assertTrue(Files.size(point.resolve("samples.png")) > 1000, "point plots rendered by default");
        }

        MsgscopeProcess rep = MsgscopeProcess.start(tmp.resolve("w2"), "report", out.toString());
        assertEquals(0, rep.waitFor(300), () -> TraceRunIT.safe(rep::out) + TraceRunIT.safe(rep::err));
        String html = Files.readString(out.resolve("index.html"));
        assertTrue(html.contains("<a href=\"point-100-1/index.html\">"), html);
        String page = Files.readString(point.resolve("index.html"));
        assertTrue(page.contains("Latency at that F (Q4)"), page);
        if (gnuplot) {
            assertTrue(page.contains("<img src=\"samples.png\""), page);
            openInChromium(point);
        }

        // compare: two points differ in F: refused unless forced
        MsgscopeProcess c = MsgscopeProcess.start(tmp.resolve("w3"), "compare", point.toString(),
                out.resolve("point-100-1").toString());
        assertEquals(2, c.waitFor(60));
        assertTrue(c.err().startsWith("msgscope compare: in_flight: differs between the runs"), c.err());
        MsgscopeProcess cf = MsgscopeProcess.start(tmp.resolve("w4"), "compare", "--force", point.toString(),
                out.resolve("point-100-1").toString());
        assertEquals(0, cf.waitFor(60), () -> TraceRunIT.safe(cf::err));
        assertTrue(cf.out().contains("| in flight F | 10 | 100 |"), cf.out());
        plotsChecked(gnuplot);
    }

    /** Last in a test, once everything else was checked: without gnuplot (and CI) the test ends skipped. */
    private static void plotsChecked(boolean gnuplot) {
        Assumptions.assumeTrue(gnuplot, "gnuplot not installed: everything but the plots checked");
    }

    @Test
    void optionSweepOverAmqpTxSizeChecksValuesAndRunsEachPoint() throws Exception {
        ScenarioIT.requireBroker(5672, "RabbitMQ");
        Path out = tmp.resolve("tx-sweep");
        MsgscopeProcess bad = MsgscopeProcess.start(tmp.resolve("w0"), "sweep", "--driver", "amqp",
                "--opt-values", "tx_size=1,-1", "--count", "2000", "--out", out.toString());
        assertEquals(2, bad.waitFor(60));
        assertTrue(bad.err().startsWith("msgscope sweep: --opt-values: value tx_size=-1 refused: --opt tx_size:"),
                bad.err());
        assertFalse(Files.exists(out), "nothing ran");

        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w1"), "sweep", "--driver", "amqp",
                "--opt-values", "tx_size=1,10", "--count", "3000", "--warmup", "1000", "--no-plot-points",
                "--out", out.toString());
        assertEquals(0, p.waitFor(600), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        assertTrue(Files.readString(out.resolve("sweep.dat")).contains("\n# tx_size repeat status lat_mean_us"));
        List<String> rows = rows(out.resolve("sweep.dat"));
        assertEquals(2, rows.size(), rows::toString);
        assertTrue(rows.get(0).startsWith("1 1 ok ") && rows.get(1).startsWith("10 1 ok "), rows::toString);
        for (String v : List.of("1", "10")) {
            JsonNode s = SummarySchema.assertValid(out.resolve("point-" + v + "-1").resolve("summary.json"));
            assertEquals("amqp", s.path("driver").asText());
            assertEquals(v, s.path("spec").path("driver_options").path("tx_size").asText(), s.path("spec").toString());
            assertEquals(0, s.path("counters").path("messages_lost").asLong());
        }
        String gp = Files.readString(out.resolve("sweep-latency.gp"));
        assertTrue(gp.contains("set xlabel \"driver option tx_size\"") && !gp.contains("logscale x"), gp);
    }

    @Test
    void reportAndCompareOnScenarioFolders() throws Exception {
        ScenarioIT.requireBroker(4222, "nats-server");
        boolean gnuplot = gnuplot();
        Path a = tmp.resolve("nats-a");
        Path b = tmp.resolve("nats-b");
        for (Path d : List.of(a, b)) {
            MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w-" + d.getFileName()), "scenario", "--driver",
                    "nats", "--scenario", "fan-in", "--publishers", "2", "--rate", "100", "--duration", "2",
                    "--warmup", "1", "--out", d.toString());
            assertEquals(0, p.waitFor(120), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        }
        MsgscopeProcess c = MsgscopeProcess.start(tmp.resolve("wc"), "compare", a.toString(), b.toString());
        assertEquals(0, c.waitFor(60), () -> TraceRunIT.safe(c::err));
        assertTrue(c.out().contains("| mode | scenario | scenario |"), c.out());
        assertTrue(c.out().contains("| delivery rate | 1.0000 | 1.0000 |"), c.out());
        assertTrue(c.out().contains("| latency p99.9 [µs] |"), c.out());

        MsgscopeProcess rep = MsgscopeProcess.start(tmp.resolve("wr"), "report", a.toString());
        assertEquals(0, rep.waitFor(120), () -> TraceRunIT.safe(rep::out) + TraceRunIT.safe(rep::err));
        String html = Files.readString(a.resolve("index.html"));
        assertTrue(html.contains("fan-in over nats") && html.contains("delivery rate 1.0"), html);
        assertTrue(html.contains("<td>latency_p999_us</td>"), html);
        plotsChecked(gnuplot);
        assertTrue(html.contains("<img src=\"timeseries.png\""), html);
        openInChromium(a);
    }

    @Test
    void aRunAboveTheEnvelopeThresholdIsPlottedThroughTheEnvelope() throws Exception {
        boolean gnuplot = gnuplot();
        Path out = tmp.resolve("env");
        List<String> args = new java.util.ArrayList<>(List.of("run", "--count", "20000", "--rate", "20000", "--warmup",
                "5000", "--plot-envelope-above", "10000", "--plot-envelope-buckets", "500", "--out", out.toString()));
        if (gnuplot) {
            args.add("--plot");
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w1"), args.toArray(String[]::new));
        assertEquals(0, p.waitFor(300), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        List<String> env = Files.readAllLines(out.resolve("trace-envelope.dat"));
        assertTrue(env.get(0).startsWith("# bucket first_seq last_seq mid_seq lat_min_us lat_median_us lat_max_us st_min"
                + " st_median st_max rt_min rt_median rt_max latc_min_us latc_median_us latc_max_us cpu_"), env.get(0));
        List<String> rows = rows(out.resolve("trace-envelope.dat"));
        assertEquals(500, rows.size());
        assertTrue(rows.get(499).startsWith("499 19960 19999 19979 "), rows.get(499));
        for (String gp : List.of("latency.gp", "throughput.gp", "latency-peaks.gp", "cpu.gp")) {
            String text = Files.readString(out.resolve(gp));
            assertTrue(text.contains("\"trace-envelope.dat\"") && !text.contains("\"trace.dat\""), gp + ": " + text);
        }
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertTrue(s.path("files").toString().contains("trace-envelope.dat"), s.path("files").toString());
        assertEquals(20000, rows(out.resolve("trace.dat")).size(), "trace.dat is written either way");
        assertTrue(p.err().contains("analysis and output: ") && p.err().contains("series aggregates"), p.err());
        if (gnuplot) {
            for (String png : List.of("latency.png", "throughput.png", "latency-peaks.png", "cpu.png")) {
                assertTrue(Files.size(out.resolve(png)) > 1000, png);
            }
        }

        MsgscopeProcess small = MsgscopeProcess.start(tmp.resolve("w2"), "run", "--count", "20000", "--rate", "20000",
                "--warmup", "5000", "--out", tmp.resolve("small").toString());
        assertEquals(0, small.waitFor(300), () -> TraceRunIT.safe(small::err));
        assertFalse(Files.exists(tmp.resolve("small").resolve("trace-envelope.dat")), "below the default 100000");
        assertTrue(Files.readString(tmp.resolve("small").resolve("latency.gp")).contains("\"trace.dat\""));
        plotsChecked(gnuplot);
    }

    /** The page loads in headless Chromium with every image present (as ReportIT). */
    private void openInChromium(Path dir) throws Exception {
        Path chromium = ReportIT.chromium();
        if (chromium == null && Ci.on()) {
            fail("chromium must be installed under CI (.ci/run installs it)");
        }
        Assumptions.assumeTrue(chromium != null, "chromium not installed: the page was not opened");
        String html = Files.readString(dir.resolve("index.html"));
        Matcher m = IMG.matcher(html);
        int images = 0;
        while (m.find()) {
            images++;
            byte[] png = Files.readAllBytes(dir.resolve(java.net.URLDecoder.decode(m.group(1), StandardCharsets.UTF_8)));
            assertTrue(png.length > 8 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', m.group(1));
        }
        assertTrue(images > 0, "the page shows plots");
        Path profile = Files.createDirectories(tmp.resolve("profile-" + dir.getFileName()));
        Path dom = tmp.resolve("dom-" + dir.getFileName() + ".html");
        assertEquals(0, ReportIT.chromium(chromium, profile, dom, "--dump-dom", dir.resolve("index.html").toUri().toString()));
        String dumped = Files.readString(dom, StandardCharsets.UTF_8);
        assertEquals(images, IMG.matcher(dumped).results().count(), "every image in the loaded DOM");
    }
}

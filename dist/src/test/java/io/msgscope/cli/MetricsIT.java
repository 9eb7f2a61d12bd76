package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --metrics-port end to end (issue 18): a Prometheus scrape of a running scenario and a running trace run. */
class MetricsIT {
    private static final Pattern URL_LINE = Pattern.compile("metrics: (http://\\S+/metrics)");

    @TempDir
    Path tmp;

    private static String awaitUrl(MsgscopeProcess p) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Matcher m = URL_LINE.matcher(p.err());
            if (m.find()) {
                return m.group(1);
            }
            assertTrue(p.process.isAlive(), () -> "exited before serving metrics: " + TraceRunIT.safe(p::err));
            Thread.sleep(100);
        }
        throw new AssertionError("no 'metrics:' line within 60 s: " + p.err());
    }

    private static String scrape(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setConnectTimeout(2_000);
        c.setReadTimeout(5_000);
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Scrapes until {@code done} holds of a scrape (or the command ends); returns that scrape. */
    private static String scrapeUntil(MsgscopeProcess p, String url, java.util.function.Predicate<String> done)
            throws Exception {
        String last = "";
        while (p.process.isAlive()) {
            try {
                last = scrape(url);
            } catch (IOException e) {
                // the server goes when the command ends
            }
            if (done.test(last)) {
                return last;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the command ended before a scrape showed it; last scrape:\n" + last);
    }

    @Test
    void aRunningScenarioShowsItsRateLatencyAndCounts() throws Exception {
        Path out = tmp.resolve("scenario");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w1"), "scenario", "--scenario", "fan-in",
                "--publishers", "2", "--rate", "500", "--duration", "6", "--warmup", "1", "--metrics-port", "0",
                "--out", out.toString());
        String url = awaitUrl(p);
        String s = scrapeUntil(p, url, t -> t.contains("msgscope_phase{phase=\"measurement\"} 1")
                && t.contains("msgscope_latency_seconds{quantile=\"0.99\"}"));
        assertTrue(s.contains("mode=\"scenario\"") && s.contains("driver=\"zmq\""), s);
        double rate = value(s, "msgscope_receive_rate_messages_per_second");
        assertTrue(value(s, "msgscope_messages_received_total") > 0, s);
        assertEquals(0, value(s, "msgscope_errors_total"), s);
        p.awaitOkSummary(out, 120);
        // the gauge is the last second's rate: one of the seconds timeseries.dat records, to its 3 decimals
        List<Double> seconds = Files.readAllLines(out.resolve("timeseries.dat")).stream()
                .filter(l -> !l.startsWith("#")).map(l -> Double.parseDouble(l.split(" ")[1])).toList();
        assertTrue(seconds.stream().anyMatch(r -> Math.abs(r - rate) <= 0.0005 + 1e-9 * rate),
                "scraped " + rate + " msg/s is none of the seconds' rates " + seconds);
    }

    @Test
    void aRunningTraceRunShowsItsCountsGrowing() throws Exception {
        Path out = tmp.resolve("run");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("w2"), "run", "--count", "300000", "--rate", "50000",
                "--warmup", "1000", "--metrics-port", "0", "--out", out.toString());
        String url = awaitUrl(p);
        String first = scrapeUntil(p, url, t -> t.contains("msgscope_phase{phase=\"measurement\"} 1")
                && has(t, "msgscope_messages_sent_total") && value(t, "msgscope_messages_sent_total") > 0);
        double sent = value(first, "msgscope_messages_sent_total");
        String later = scrapeUntil(p, url, t -> has(t, "msgscope_messages_sent_total")
                && value(t, "msgscope_messages_sent_total") > sent);
        assertTrue(later.contains("msgscope_run_info{driver=\"tcp\",mode=\"trace\""), later);
        p.awaitOkSummary(out, 120);
    }

    private static boolean has(String text, String series) {
        return text.lines().anyMatch(l -> l.startsWith(series + " "));
    }

    private static double value(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " not in:\n" + text);
    }
}

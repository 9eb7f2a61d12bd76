package io.msgscope.coordinator.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.LatencyRange;
import io.msgscope.core.SpecException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** --metrics-port: what a Prometheus scrape reads, checked against the values fed in (issue 18). */
class LiveMetricsTest {

    private static String scrape(String url, String accept) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        if (accept != null) {
            c.setRequestProperty("Accept", accept);
        }
        assertEquals(200, c.getResponseCode());
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aScrapeReadsTheRunAsItIsNow() throws IOException {
        try (LiveMetrics m = LiveMetrics.start("0", "scenario", "scenario-1", "mqtt")) {
            assertTrue(m.url().matches("http://127\\.0\\.0\\.1:\\d+/metrics"), m.url());
            String before = scrape(m.url(), null);
            assertTrue(before.contains("msgscope_run_info{driver=\"mqtt\",mode=\"scenario\",run_id=\"scenario-1\"} 1"),
                    before);
            assertTrue(before.contains("msgscope_phase{phase=\"set-up\"} 1"), before);
            assertFalse(before.contains("msgscope_latency_seconds{"), "no latency before an interval: " + before);
            assertFalse(before.contains("msgscope_messages_sent_total "), before);

            AtomicLong sent = new AtomicLong(1_000);
            m.phase("measurement");
            m.counts(sent::get, () -> 990);
            Histogram h = LatencyRange.histogram();
            for (int i = 1; i <= 1000; i++) {
                h.recordValue(i * 1_000L); // 1 µs .. 1 ms
            }
            m.interval(1234.5, h);
            m.health(3, 200);
            sent.set(1_500); // read at the scrape, not when fed
            String now = scrape(m.url(), null);
            assertTrue(now.contains("msgscope_phase{phase=\"measurement\"} 1"), now);
            assertTrue(now.contains("msgscope_messages_sent_total 1500"), now);
            assertTrue(now.contains("msgscope_messages_received_total 990"), now);
            assertTrue(now.contains("msgscope_receive_rate_messages_per_second 1234.5"), now);
            assertTrue(now.contains("msgscope_errors_total 3"), now);
            assertTrue(now.contains("msgscope_connections_open 200"), now);
            assertTrue(now.contains("msgscope_latency_seconds_count 1000"), now);
            double p99 = value(now, "msgscope_latency_seconds{quantile=\"0.99\"}");
            assertEquals(h.getValueAtPercentile(99) / 1e9, p99, 1e-12);
            assertEquals(990e-6, p99, 2e-6);
            assertEquals(h.getMaxValue() / 1e9, value(now, "msgscope_latency_max_seconds"), 1e-12);
            assertEquals(h.getMean() * 1000 / 1e9, value(now, "msgscope_latency_seconds_sum"), 1e-9);

            String om = scrape(m.url(), "application/openmetrics-text; version=1.0.0");
            assertTrue(om.contains("# TYPE msgscope_messages_sent counter") && om.trim().endsWith("# EOF"), om);
        }
    }

    @Test
    void faultsAreDueOnceTheirPlannedTimeHasPassedOnTheRunsClock() throws IOException {
        try (LiveMetrics m = LiveMetrics.start("0", "trace", "run-1", "nats")) {
            assertFalse(scrape(m.url(), null).contains("msgscope_faults_due"), "no --faults: no fault metric");
            // the clock started 60 s ago: the faults at 0 s and 1.5 s are due, the one at 3,600 s is not
            m.faults(io.msgscope.core.fault.FaultPlan.parse("--faults", "0s:pause:n1, 1.5s:resume:n1, 3600s:pause:n2")
                    .steps(), System.nanoTime() - 60_000_000_000L);
            String now = scrape(m.url(), null);
            assertEquals(2.0, value(now, "msgscope_faults_due_total"), now);
            assertEquals(1.0, value(now, "msgscope_fault_due{fault=\"0s:pause:n1\"}"), now);
            assertEquals(1.0, value(now, "msgscope_fault_due{fault=\"1.5s:resume:n1\"}"), now);
            assertFalse(now.contains("3600s:pause:n2"), now);
        }
    }

    private static double value(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " not in " + text);
    }

    @Test
    void noOptionNoServerAndABadAddressNamesTheOption() throws IOException {
        assertNull(LiveMetrics.start(null, "trace", "r", "tcp"));
        for (String bad : new String[] {"abc", "70000", "-1", ":9464", "127.0.0.1:x"}) {
            SpecException e = assertThrows(SpecException.class, () -> LiveMetrics.start(bad, "trace", "r", "tcp"));
            assertEquals("--metrics-port", e.option(), bad);
        }
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            SpecException e = assertThrows(SpecException.class,
                    () -> LiveMetrics.start("127.0.0.1:" + taken.getLocalPort(), "trace", "r", "tcp"));
            assertTrue(e.getMessage().contains("cannot serve metrics on 127.0.0.1:" + taken.getLocalPort()),
                    e.getMessage());
        }
    }
}

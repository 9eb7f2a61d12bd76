package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Seed 000's flow-controlled throughput mode (A5-A7) through the real CLI, on the embedded relay. */
class ThroughputIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void aFixedInFlightCountGivesTheRequestedSamples() throws Exception {
        Path out = tmp.resolve("fixed");
        boolean gnuplot = TraceRunIT.gnuplotOnPath();
        List<String> args = new java.util.ArrayList<>(List.of("throughput", "--in-flight", "50", "--samples", "30",
                "--out", out.toString()));
        if (gnuplot) {
            args.add("--plot");
        }
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("cli-fixed"), args.toArray(String[]::new));
        assertEquals(0, p.waitFor(180), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        assertEquals("throughput", s.get("mode").asText());
        JsonNode r = s.get("result");
        assertEquals(50, r.get("in_flight").asLong());
        assertEquals(30, r.get("samples").asInt());
        assertEquals(30, r.get("sample_values_msg_s").size());
        double median = r.get("median_msg_s").asDouble();
        assertTrue(median > 1000, "median " + median);
        assertEquals(median * 64, r.get("median_bytes_s").asDouble(), 1e-6 * median * 64);
        // every message sent came back: the window was kept and drained
        assertEquals(r.get("messages_sent").asLong(), r.get("messages_received").asLong());
        assertTrue(r.get("messages_sent").asLong() >= 2 * 50 + 30, "skipped 2F, then sampled");
        assertTrue(p.out().contains("50 in flight"), p.out());
        if (gnuplot) { // --plot renders the fixed-F samples too, not only a search's curve
            assertTrue(Files.size(out.resolve("samples.png")) > 1000, p.out());
        }
    }

    @Test
    void theAutomaticSearchStepsThenNarrowsAndWritesItsCurve() throws Exception {
        Path out = tmp.resolve("auto");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("cli-auto"), "throughput", "--samples", "20",
                "--max-exponent", "3", "--out", out.toString());
        assertEquals(0, p.waitFor(300), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        JsonNode s = SummarySchema.assertValid(out.resolve("summary.json"));
        assertEquals("ok", s.get("status").asText());
        JsonNode probes = s.get("probes");
        assertTrue(probes.size() >= 3);
        assertEquals(1, probes.get(0).get("in_flight").asLong());
        assertEquals(10, probes.get(1).get("in_flight").asLong());
        // issue 17: peak and knee, the knee within the peak's interval, the final measurement at the knee
        JsonNode search = s.get("search");
        long peak = search.get("peak").get("in_flight").asLong();
        long knee = search.get("knee").get("in_flight").asLong();
        assertTrue(knee <= peak, knee + " > " + peak);
        assertEquals(peak, search.get("optimal_in_flight").asLong());
        assertEquals(knee, search.get("chosen_in_flight").asLong());
        assertEquals("knee", search.get("pick").asText());
        assertEquals(knee, s.get("result").get("in_flight").asLong());
        double floor = search.get("knee").get("knee_floor_msg_s").asDouble();
        assertEquals(floor, search.get("knee").get("within_peak_interval_from_msg_s").asDouble(), 0.0, "the old name, kept a release");
        String rule = search.get("knee").get("rule").asText();
        if (rule.startsWith("fitted")) {
            // read off the fitted curve: its 90 % point rounded up, never past the peak, and measured there
            JsonNode fit = search.get("fit");
            // by hand from the curve's parameters (issue 36: not the code's own knee_in_flight_fitted)
            double k = fit.get("sharpness_k").asDouble();
            double hand = fit.get("crossover_in_flight").asDouble() * 0.9 / Math.pow(1 - Math.pow(0.9, k), 1 / k);
            assertEquals(hand, fit.get("knee_in_flight_fitted").asDouble(), 1e-6 * hand);
            long fitted = (long) Math.ceil(hand - 1e-9);
            assertEquals(2, fit.get("knee_in_flight_ci95").size(), fit.toString()); // issue 27
            assertEquals(Math.min(peak, Math.max(1, fitted)), knee, search.toString());
            assertTrue(fit.get("median_error_percent").asDouble() <= 25, search.toString());
            assertTrue(Files.readString(out.resolve("search.gp")).contains("curve(x) with lines"));
        } else {
            assertTrue(rule.startsWith("measured"), rule);
            assertTrue(knee == peak || search.get("knee").get("median_msg_s").asDouble() >= floor, search.toString());
        }
        // the final measurement after a search is ten probes long (--final-samples auto)
        assertEquals(200, s.get("result").get("samples").asInt(), s.get("result").toString());
        assertTrue(search.get("method").asText().contains("golden-section"), search.get("method").asText());
        assertTrue(search.get("probes_taken").asInt() <= 40);
        JsonNode r = s.get("result");
        assertEquals(2, r.get("median_ci95_msg_s").size());
        assertTrue(r.get("median_ci95_msg_s").get(0).asDouble() <= r.get("median_msg_s").asDouble());
        assertTrue(r.get("stationarity").has("steady"));
        assertTrue(r.get("messages_in_flight").get("counted_at_arrivals").asDouble() > 0);
        assertTrue(r.get("sampling_period").get("rate_msg_s").asDouble() > 0);
        // issue 27: the headline is messages / period, by hand from the sampling period's own counts
        JsonNode period = r.get("sampling_period");
        double delivered = period.get("messages").asDouble() / (period.get("elapsed_ms").asDouble() / 1e3);
        assertEquals(delivered, r.get("delivered_msg_s").asDouble(), 0.005 * delivered);
        assertEquals(r.get("window_median_msg_s").asDouble(), r.get("median_msg_s").asDouble(), 0.0);
        assertTrue(s.get("warmup").get("elapsed_ms").asDouble() >= 3000);
        List<String> lines = Files.readAllLines(out.resolve("search.dat"));
        assertEquals("# in_flight median_msg_s mean_msg_s stddev_msg_s samples phase ci_low_msg_s ci_high_msg_s "
                + "latency_p50_us mean_in_flight", lines.get(0));
        assertEquals(probes.size() + 3, lines.size()); // header, two comment lines
        assertTrue(Files.readString(out.resolve("search.gp")).contains("set logscale x"));
        assertTrue(p.out().contains("F = 1 "), p.out());
        // issue 18: latency.hlog, an interval per probe tagged with its F and step, then the final measurement's
        List<org.HdrHistogram.Histogram> intervals = Hlog.intervals(out.resolve("latency.hlog"));
        assertEquals(probes.size() + 1, intervals.size());
        assertEquals("F1-step", intervals.get(0).getTag());
        assertEquals("final-F" + knee, intervals.get(intervals.size() - 1).getTag());
        assertTrue(intervals.get(intervals.size() - 1).getTotalCount() > 0);
    }

    @Test
    void badInFlightIsAUsageError() throws Exception {
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("cli-bad"), "throughput", "--in-flight", "0",
                "--out", tmp.resolve("bad").toString());
        assertEquals(2, p.waitFor(60));
        assertTrue(p.err().contains("--in-flight"), p.err());
        assertTrue(!p.err().contains("Exception"), p.err());
    }
}

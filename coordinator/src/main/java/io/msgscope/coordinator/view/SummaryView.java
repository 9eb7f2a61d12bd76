package io.msgscope.coordinator.view;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.LatencyFigures;
import io.msgscope.coordinator.throughput.ProbePeriod;

import java.util.List;
import java.util.Locale;

/**
 * One reading of the {@code summary.json} of any mode, for the sweep tables, {@code compare} and
 * {@code report}: a trace run ({@code msgscope run}: {@code series}, {@code throughput},
 * {@code counters}), a throughput run ({@code msgscope throughput}: {@code result} with the median of
 * the samples, A7) and a scenario run ({@code msgscope scenario}: {@code results} with the Q4 fields
 * and Q6 rates). Missing figures are NaN, never 0.
 */
public final class SummaryView {
    /** The three result-folder kinds. */
    public enum Mode { RUN, THROUGHPUT, SCENARIO }

    private final JsonNode s;
    private final Mode mode;
    private final Envelope envelope;

    public SummaryView(JsonNode summary) {
        this.s = summary;
        this.mode = modeOf(summary);
        this.envelope = Envelope.read(summary);
    }

    /** The summary.json in {@code dir} read, or null when there is none. */
    public static SummaryView read(java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve(io.msgscope.coordinator.results.ResultFiles.SUMMARY);
        return java.nio.file.Files.isRegularFile(file)
                ? new SummaryView(io.msgscope.coordinator.results.Json.MAPPER.readTree(file.toFile())) : null;
    }

    /** What every mode's summary begins with, typed (issue 15), from this version's summaries and earlier ones. */
    public Envelope envelope() {
        return envelope;
    }

    /** Which command wrote the summary: its {@code mode} field, else the shape of the document. */
    static Mode modeOf(JsonNode s) {
        String m = s.path("mode").asText("");
        if (m.equals("scenario") || s.path("results").isObject()) {
            return Mode.SCENARIO;
        }
        if (m.equals("throughput") || s.path("probes").isArray()) {
            return Mode.THROUGHPUT;
        }
        return Mode.RUN;
    }

    public Mode mode() {
        return mode;
    }

    public JsonNode json() {
        return s;
    }

    public String modeName() {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    public String status() {
        return s.path("status").isTextual() ? envelope.status() : "unknown";
    }

    public String driver() {
        return envelope.driver() == null ? "?" : envelope.driver();
    }

    static double num(JsonNode n) {
        return n.isNumber() ? n.asDouble() : Double.NaN;
    }

    /**
     * Messages per second received: the run's whole-run rate, the rate delivered over the sampling period (issue 27:
     * messages / period; a summary before it holds the same figure as {@code sampling_period.rate_msg_s}), or Q6's
     * receive rate.
     */
    public double msgPerS() {
        return switch (mode) {
            case RUN -> num(s.path("throughput").path("receive_msg_s"));
            case THROUGHPUT -> deliveredMsgPerS();
            case SCENARIO -> num(s.path("results").path("receive_rate"));
        };
    }

    private double deliveredMsgPerS() {
        JsonNode r = s.path("result");
        return r.has("delivered_msg_s") ? num(r.path("delivered_msg_s"))
                : num(r.path("sampling_period").path("rate_msg_s"));
    }

    /** Bytes per second received, as {@link #msgPerS()}. */
    public double bytesPerS() {
        return switch (mode) {
            case RUN -> num(s.path("throughput").path("receive_bytes_s"));
            case THROUGHPUT -> s.path("result").path("delivered_bytes_s").isNumber()
                    ? num(s.path("result").path("delivered_bytes_s"))
                    : deliveredMsgPerS() * num(s.path("settings").path("size"));
            case SCENARIO -> num(s.path("results").path("receive_bytes_rate"));
        };
    }

    /**
     * Throughput mode: the median of the samples, what a typical window looks like ({@code window_median_msg_s}, or
     * {@code median_msg_s} in a summary before issue 27); NaN otherwise.
     */
    public double windowMedianMsgPerS() {
        JsonNode r = s.path("result");
        return num(r.has("window_median_msg_s") ? r.path("window_median_msg_s") : r.path("median_msg_s"));
    }

    /** Throughput samples' mean and standard deviation (throughput mode; NaN otherwise). */
    public double sampleMeanMsgPerS() {
        return num(s.path("result").path("mean_msg_s"));
    }

    public double sampleSdMsgPerS() {
        return num(s.path("result").path("stddev_msg_s"));
    }

    /** Client CPU per message in ns (throughput mode; NaN otherwise). */
    public double clientCpuNsPerMessage() {
        return num(s.path("result").path("client_cpu_ns_per_message"));
    }

    /**
     * CPU time per message received (ns) for each role the mode measures, labelled, in the order a reader wants them:
     * a trace run's sender, broker and receiver (the measured thread, then its whole process, time-weighted); a
     * throughput run's flow agent (process, producer thread, delivering thread) over the sampling period; a
     * scenario's publishers and subscribers agents (and a ZeroMQ proxy). Roles without a figure are left out.
     */
    public java.util.Map<String, Double> cpuNsPerMessage() {
        java.util.Map<String, Double> m = new java.util.LinkedHashMap<>();
        switch (mode) {
            case RUN -> {
                JsonNode cpu = s.path("cpu");
                for (String role : List.of("sender", "broker", "receiver")) {
                    put(m, role + " thread", num(cpu.path(role).path("time_weighted").path("cpu_ns_per_message")));
                    put(m, role + " process",
                            num(cpu.path(role).path("process").path("time_weighted").path("cpu_ns_per_message")));
                }
            }
            case THROUGHPUT -> {
                ProbePeriod.Cpu cpu = ProbePeriod.Cpu.read(s.path("result").path("cpu"));
                put(m, "flow agent process", cpu.process().nsPerMessage());
                put(m, "producer thread", cpu.producerThread().nsPerMessage());
                put(m, "delivering thread", cpu.consumerThread().nsPerMessage());
            }
            case SCENARIO -> {
                JsonNode r = s.path("results");
                put(m, "publishers agents", num(r.path("publishers_cpu_us_per_message")) * 1e3);
                put(m, "subscribers agents", num(r.path("subscribers_cpu_us_per_message")) * 1e3);
                put(m, "proxy thread", num(r.path("proxy_cpu_ns_per_message")));
            }
        }
        return m;
    }

    private static void put(java.util.Map<String, Double> m, String k, double v) {
        if (!Double.isNaN(v)) {
            m.put(k, v);
        }
    }

    private static void put(java.util.Map<String, Double> m, String k, Double v) {
        put(m, k, v == null ? Double.NaN : v);
    }

    /** Messages sent (measured): a trace run's count, a scenario's; NaN in throughput mode. */
    public double sent() {
        return switch (mode) {
            case RUN -> num(s.path("counters").path("messages_sent"));
            case THROUGHPUT -> Double.NaN;
            case SCENARIO -> num(s.path("results").path("expected_messages"));
        };
    }

    /** The latency figures every mode has, in the Q4 names' order. */
    public static final List<String> LATENCY = List.of("min", "mean", "median", "robust_deviation", "p50", "p90",
            "p95", "p99", "p999", "p9999", "max");

    /**
     * A latency figure in µs: {@code min}, {@code mean}, {@code median}, {@code robust_deviation},
     * {@code p50}, {@code p90}, {@code p95}, {@code p99}, {@code p999}, {@code p9999}, {@code max}. A trace
     * run has them all (M6, from every message); the other modes have the Q4 set from their HdrHistogram,
     * with the median as p50 and no robust deviation, p90 or p99.99 (NaN).
     */
    public double latencyUs(String field) {
        if (mode == Mode.RUN) {
            String f = switch (field) {
                case "p999" -> "p99_9";
                case "p9999" -> "p99_99";
                default -> field;
            };
            double v = num(s.path("series").path("latency_ns").path(f)) / 1000;
            // the Q4 fields carry the same figures; older or hand-made summaries may have only those
            return Double.isNaN(v) ? num(s.path("latency").path("latency_" + field + "_us")) : v;
        }
        JsonNode lat = mode == Mode.THROUGHPUT ? s.path("result").path("latency") : s.path("results");
        return LatencyFigures.read(lat, "latency_").us(field);
    }

    /** Sender and receiver throughput medians over M-message windows (trace runs only). */
    public double stMedian() {
        return num(s.path("series").path("st_msg_s").path("median"));
    }

    public double rtMedian() {
        return num(s.path("series").path("rt_msg_s").path("median"));
    }

    /** Messages lost: counted exactly in a trace run; expected − received in a scenario; NaN in throughput mode. */
    public double lost() {
        return switch (mode) {
            case RUN -> num(s.path("counters").path("messages_lost"));
            case THROUGHPUT -> Double.NaN;
            case SCENARIO -> Math.max(0, num(s.path("results").path("expected_messages"))
                    - num(s.path("results").path("messages_received")));
        };
    }

    /** Message size in bytes. */
    public String size() {
        return switch (mode) {
            case RUN -> s.path("spec").path("size").asText("?");
            case THROUGHPUT -> s.path("settings").path("size").asText("?");
            case SCENARIO -> s.path("size").asText("?");
        };
    }

    /**
     * The settings whose difference makes two results of this mode incomparable, as name=value pairs:
     * size, count and rate of a trace run; size and in-flight setting of a throughput run; scenario,
     * size, publishers, subscribers, rate and duration of a scenario.
     */
    public List<String[]> mustMatch() {
        return switch (mode) {
            case RUN -> List.of(pair("size", size()), pair("count", s.path("spec").path("count").asText("?")),
                    pair("rate", s.path("spec").path("rate").asText("?")));
            case THROUGHPUT -> List.of(pair("size", size()),
                    pair("in_flight", s.path("settings").path("in_flight").asText("?")));
            case SCENARIO -> List.of(pair("scenario", s.path("scenario").asText("?")), pair("size", size()),
                    pair("publishers", s.path("publishers").asText("?")),
                    pair("subscribers", s.path("subscribers").asText("?")),
                    pair("rate", scenarioRate()),
                    pair("duration_s", s.path("duration_s").asText("?")));
        };
    }

    /** A scenario's rate per publisher, or its load phases (issue 31: their rates are the total). */
    private String scenarioRate() {
        JsonNode phases = s.path("spec").path("phases");
        return phases.isTextual() ? "phases " + phases.asText() + " in all"
                : s.path("rate_per_publisher").asText("?");
    }

    private static String[] pair(String k, String v) {
        return new String[] {k, v};
    }

    /** The one-sentence answer of any mode. */
    public String sentence() {
        StringBuilder b = new StringBuilder();
        switch (mode) {
            case RUN -> {
                JsonNode spec = s.path("spec");
                double rate = spec.path("rate").asDouble(0);
                b.append(String.format(Locale.ROOT, "%,d messages of %d B", spec.path("count").asLong(),
                        spec.path("size").asLong()));
                b.append(rate > 0 ? String.format(Locale.ROOT, " at %,.0f msg/s", rate) : " at full speed");
                b.append(" over ").append(driver()).append(": received at ");
            }
            case THROUGHPUT -> b.append("Throughput of ").append(size()).append(" B messages over ").append(driver())
                    .append(" with ").append(s.path("result").path("in_flight").asText("?"))
                    .append(" in flight (").append(s.path("settings").path("in_flight").asText("?"))
                    .append(" requested): delivered over the sampling period of ")
                    .append(s.path("result").path("samples").asText("?")).append(" samples at ");
            case SCENARIO -> b.append(s.path("scenario").asText("?")).append(" over ").append(driver()).append(" @ ")
                    .append(s.path("delivery").asText("?")).append(", ").append(s.path("publishers").asText("?"))
                    .append(" publisher(s) x ").append(scenarioRate())
                    .append(" msg/s for ").append(s.path("duration_s").asText("?")).append(" s, ")
                    .append(s.path("subscribers").asText("?")).append(" subscriber(s), ").append(size())
                    .append(" B: received at ");
        }
        b.append(Double.isNaN(msgPerS()) ? "– msg/s (nothing measured)"
                : String.format(Locale.ROOT, "%,.0f msg/s (%s/s)", msgPerS(), Units.bytes(bytesPerS())));
        b.append("; latency p50 ").append(us(latencyUs("p50"))).append(", p99 ").append(us(latencyUs("p99")))
                .append(", p99.9 ").append(us(latencyUs("p999"))).append(", max ").append(us(latencyUs("max")));
        if (mode == Mode.SCENARIO) {
            b.append("; delivery rate ").append(deliveryRate());
        }
        double lost = lost();
        if (!Double.isNaN(lost)) {
            b.append("; ").append(String.format(Locale.ROOT, "%,.0f", lost)).append(" lost");
        }
        return b.append('.').toString();
    }

    /**
     * A scenario's delivery rate for people: three decimals, more when three would round a shortfall up to 1
     * (0.99973 stays 0.99973, issue 16).
     */
    public String deliveryRate() {
        JsonNode d = s.path("results").path("delivery_rate");
        return d.isNumber() ? io.msgscope.coordinator.scenario.ScenarioWriters.number(d.asDouble()) : "–";
    }

    private static String us(double us) {
        return Double.isNaN(us) ? "–" : Units.time(us * 1000);
    }
}

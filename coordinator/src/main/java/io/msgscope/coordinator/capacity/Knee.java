package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The closed-loop knee of a throughput run on the same set-up ({@code --knee-from DIR}), reported beside the open-loop
 * capacity: read from that folder's summary.json ({@code search.knee}, or {@code result} for a fixed-F run).
 *
 * @param folder      the folder as given
 * @param inFlight    F at the knee
 * @param msgPerS     median throughput there, msg/s
 * @param latencyP99Us p99 there (from the actual send time: a closed loop has no intended time), µs; null when unknown
 * @param driver      the throughput run's driver
 */
public record Knee(String folder, long inFlight, double msgPerS, Double latencyP99Us, String driver) {
    /** Reads the knee from {@code dir}; a folder that is no finished throughput run is a usage error naming option. */
    public static Knee read(String option, Path dir) {
        Path file = dir.resolve(ResultFiles.SUMMARY);
        JsonNode s;
        try {
            s = Files.isRegularFile(file) ? Json.MAPPER.readTree(file.toFile()) : null;
        } catch (IOException e) {
            throw new io.msgscope.core.SpecException(option, file + " cannot be read: " + e.getMessage());
        }
        if (s == null || !"throughput".equals(s.path("mode").asText())) {
            throw new io.msgscope.core.SpecException(option, dir + " holds no throughput run's summary.json");
        }
        JsonNode k = s.path("search").path("knee");
        if (k.isObject() && k.path("median_msg_s").isNumber()) {
            return new Knee(dir.toString(), k.path("in_flight").asLong(), k.path("median_msg_s").asDouble(),
                    k.path("latency_p99_us").isNumber() ? k.path("latency_p99_us").asDouble() : null,
                    s.path("driver").asText(null));
        }
        JsonNode r = s.path("result");
        if (r.path("median_msg_s").isNumber()) {
            JsonNode p99 = r.path("latency").path("latency_p99_us");
            return new Knee(dir.toString(), r.path("in_flight").asLong(), r.path("median_msg_s").asDouble(),
                    p99.isNumber() ? p99.asDouble() : null, s.path("driver").asText(null));
        }
        throw new io.msgscope.core.SpecException(option, dir + "'s throughput run has no knee or result (it failed?)");
    }

    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("folder", folder);
        m.put("driver", driver);
        m.put("in_flight", inFlight);
        m.put("msg_s", msgPerS);
        m.put("latency_p99_us", latencyP99Us);
        m.put("note", "closed loop: F messages in flight, each sent when one arrives, so latency never includes a "
                + "backlog; the capacity above is open loop at a fixed rate with latency from the intended send time");
        return m;
    }
}

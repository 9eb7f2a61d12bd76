package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.Json;
import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The throughput knee beside the capacity (--knee-from), and the CPU per message at the found rate. */
class KneeTest {
    private static final Path GOLDEN = Path.of("src/test/resources/io/msgscope/coordinator/golden/throughput-summary.json");

    @Test
    void readsTheKneeOfAThroughputSummary(@TempDir Path tmp) throws Exception {
        Path t = tmp.resolve("t1");
        Files.createDirectories(t);
        Files.copy(GOLDEN, t.resolve("summary.json"));
        Knee k = Knee.read("--knee-from", t);
        // the golden summary's search.knee: F = 90, median 45,000 msg/s, p99 6,000.639 µs
        assertEquals(90, k.inFlight());
        assertEquals(45_000, k.msgPerS());
        assertEquals(6000.639, k.latencyP99Us());
        SpecException e = assertThrows(SpecException.class, () -> Knee.read("--knee-from", tmp));
        assertEquals("--knee-from", e.option());

        SimulatedSystem sys = new SimulatedSystem(1000, 200);
        sys.senderCpuNs = 5000; // each run reports 5,000 + rate/100 ns: 5,009 at 900 msg/s
        Objective o = Objective.parse("--objective", "p99=2ms");
        CapacityJob.StepRunner runner = (phases, stepDir) -> {
            String[] w = phases.split(",");
            Files.createDirectories(stepDir);
            Json.write(stepDir.resolve("summary.json"),
                    sys.summary(Double.parseDouble(w[0].substring(w[0].indexOf('@') + 1)), w.length));
            return 0;
        };
        StringWriter console = new StringWriter();
        Path dir = tmp.resolve("cap");
        JobOutcome out = new CapacityJob(o, new CapacitySearch.Settings(100, 5000, 0.05, 3, 6, 1, 40), StepMode.TRACE, k,
                runner, Map.of(), "tcp", dir, () -> null).run(new PrintWriter(console));
        assertEquals(JobOutcome.Ending.OK, out.ending());
        JsonNode s = Json.MAPPER.readTree(dir.resolve("summary.json").toFile());
        assertEquals(5009.0, s.path("capacity").path("cpu_ns_per_message_at_found").path("sender thread").asDouble());
        assertEquals(90, s.path("throughput_knee").path("in_flight").asInt());
        assertEquals(45_000.0, s.path("throughput_knee").path("msg_s").asDouble());
        assertTrue(console.toString().contains("; the closed-loop knee (throughput mode) was 45,000 msg/s at F = 90"),
                console.toString());
    }
}

package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.ResultFiles;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * Issue 15: the report reads back what the typed throughput result wrote — its latency and its CPU per message —
 * through the same typed parts ({@code LatencyFigures}, {@code ProbePeriod.Cpu}).
 */
class TypedResultReadBackTest {
    @Test
    void theReportReadsTheThroughputResultBackTyped() throws Exception {
        ThroughputRun.Outcome o = ThroughputGoldenTest.searchedOutcome();
        RunSpec spec = RunSpec.builder().count(2).window(1).size(64).pin(false).driver("amqp")
                .uri("amqp://127.0.0.1:5672/%2f").build();
        ThroughputResults.Given g = new ThroughputResults.Given(64, "zeros", 0, 20, "auto", 10, 2, 200, 3000, 20000, 3,
                "knee", 2, 12);
        ThroughputResult r = ThroughputResults.result(spec, g, o, io.msgscope.coordinator.Golden.ENV, "read-back",
                "2026-01-02T03:04:05Z", List.of(ResultFiles.SUMMARY));
        ObjectMapper om = new ObjectMapper();
        SummaryView v = new SummaryView(om.readTree(om.writeValueAsString(r.toMap())));

        assertEquals(SummaryView.Mode.THROUGHPUT, v.mode());
        assertEquals(r.result().latency().figures().p99Us(), v.latencyUs("p99"), 0);
        assertEquals(r.result().latency().figures().p50Us(), v.latencyUs("median"), 0);
        assertTrue(Double.isNaN(v.latencyUs("p90")), "a figure throughput mode does not write");
        ProbePeriod.Cpu cpu = r.result().period().cpu();
        assertEquals(Map.of("flow agent process", cpu.process().nsPerMessage(),
                "producer thread", cpu.producerThread().nsPerMessage(),
                "delivering thread", cpu.consumerThread().nsPerMessage()), v.cpuNsPerMessage());
        // an older summary without the CPU object: nothing, not zeros
        ProbePeriod.Cpu none = ProbePeriod.Cpu.read(om.readTree("{}"));
        assertNull(none.process().nsPerMessage());
    }
}

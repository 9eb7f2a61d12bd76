package io.msgscope.coordinator.throughput;

import com.google.protobuf.ByteString;
import io.msgscope.proto.FlowResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The figures of one throughput probe against values computed by hand. */
class ThroughputStatsTest {

    private static FlowResult result(long inFlight, double meanInFlight, long latencyNs) {
        Histogram h = new Histogram(1_000, 10_000_000_000L, 3);
        h.recordValueWithCount(latencyNs, 1000);
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(b);
        return FlowResult.newBuilder().setInFlight(inFlight).addAllSamples(List.of(4.0, 1.0, 3.0, 2.0))
                .setSampledMessages(200_000).setSamplingNs(2_000_000_000L) // 100,000 msg/s over 2 s
                .setSamplingProcessCpuNs(1_000_000_000L) // 50 % of a core, 5,000 ns per message
                .setSamplingProducerCpuNs(400_000_000L).setSamplingConsumerCpuNs(-1)
                .setWarmupReceived(300).setWarmupElapsedNs(250_000_000L)
                .setMeanInFlight(meanInFlight).setLatencyHistogram(ByteString.copyFrom(b.array(), 0, len)).build();
    }

    @Test
    void rateOverThePeriodLittlesLawAndTimeWeightedCpu() {
        ThroughputStats st = ThroughputStats.of(result(100, 99.5, 1_000_000)); // 1 ms latency
        assertEquals(2, st.median()); // lower median of the samples (M6)
        assertEquals(100_000, st.rateOverSampling(), 1e-9);
        // Little: 100,000 msg/s x 1 ms = 100 in flight (the histogram holds 1 ms to 3 digits)
        assertEquals(100, st.littleInFlight(), 0.1);
        assertEquals(99.5, st.countedInFlight());
        assertEquals("", st.inFlightNote());
        ProbePeriod period = ProbePeriod.of(st); // the typed figures summary.json writes (issue 15)
        assertEquals(50.0, period.cpu().process().pctOfOneCore(), 1e-12);
        assertEquals(5_000.0, period.cpu().process().nsPerMessage(), 1e-12);
        assertEquals(20.0, period.cpu().producerThread().pctOfOneCore(), 1e-12);
        assertEquals(2_000.0, period.cpu().producerThread().nsPerMessage(), 1e-12);
        assertNull(period.cpu().consumerThread().pctOfOneCore(), "delivery changed threads: unknown, not 0");
        @SuppressWarnings("unchecked")
        Map<String, Object> w = (Map<String, Object>) period.toMap().get("warmup");
        assertEquals(300L, w.get("messages"));
        assertEquals(250.0, (Double) w.get("elapsed_ms"), 1e-12);
        assertEquals(300L, period.warmupMessages());
    }

    @Test
    void aWindowNotFilledIsNoted() {
        ThroughputStats st = ThroughputStats.of(result(100, 48.0, 480_000)); // Little: 100k msg/s x 0.48 ms = 48
        assertTrue(st.inFlightNote().startsWith("at F = 100 only 48.0 messages were in flight on average"),
                st.inFlightNote());
        assertTrue(st.inFlightNote().contains("(Little's law; 48.0 seen by each arriving message)"), st.inFlightNote());
    }

    @Test
    void samplesJsonCarriesTheMedianInterval() {
        Map<String, Object> m = SamplesJson.samples(ThroughputStats.of(result(1, 1, 1_000)).samples());
        assertEquals(List.of(1.0, 4.0), m.get("median_ci95_msg_s")); // n = 4: the whole sample
        assertEquals(1 - 2 / 16.0, (Double) m.get("median_ci_confidence"), 1e-12);
        assertEquals(4, m.get("samples"));
    }
}

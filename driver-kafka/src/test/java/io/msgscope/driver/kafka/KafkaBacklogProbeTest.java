package io.msgscope.driver.kafka;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe's lag by hand: end less the later of committed and handed-over, per partition, summed. */
class KafkaBacklogProbeTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final TopicPartition P2 = new TopicPartition("t", 2);

    @Test
    void committedOffsetsAloneGiveKafkasLag() throws IOException {
        // (1,000 - 400) + (500 - 500) + (2,000 - 1,900) = 700
        assertEquals(700, KafkaBacklogProbe.lag("g", Map.of(P0, 1_000L, P1, 500L, P2, 2_000L),
                Map.of(P0, 400L, P1, 500L, P2, 1_900L), Map.of()));
    }

    @Test
    void recordsHandedOverButNotCommittedAreNotBacklog() throws IOException {
        // P0: 650 handed over beyond a commit at 400 -> 1,000 - 650 = 350; P1 not handed over -> 500 - 100 = 400;
        // P2: a position behind the commit (an entry from before a commit by another member) -> the commit: 100
        assertEquals(350 + 400 + 100, KafkaBacklogProbe.lag("g", Map.of(P0, 1_000L, P1, 500L, P2, 2_000L),
                Map.of(P0, 400L, P1, 100L, P2, 1_900L), Map.of(P0, 650L, P2, 1_800L)));
    }

    @Test
    void aPositionReadAfterTheEndCountsNothingNegative() throws IOException {
        // the end was read first; 20 more were produced and consumed before the position was read
        assertEquals(0, KafkaBacklogProbe.lag("g", Map.of(P0, 1_000L), Map.of(P0, 990L), Map.of(P0, 1_020L)));
    }

    @Test
    void aPartitionNeverCommittedHasNoKnownLag() {
        IOException e = assertThrows(IOException.class, () -> KafkaBacklogProbe.lag("g",
                Map.of(P0, 10L, P1, 10L), Map.of(P0, 5L), Map.of(P1, 10L)));
        assertTrue(e.getMessage().contains("no committed offset for partition t-1"), e.getMessage());
    }
}

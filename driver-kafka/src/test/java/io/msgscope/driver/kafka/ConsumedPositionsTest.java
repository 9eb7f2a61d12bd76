package io.msgscope.driver.kafka;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A group's handed-over positions: listed members only, the furthest per partition, revoked and left ones gone. */
class ConsumedPositionsTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    @Test
    void theGroupsMembersPositionsAreMergedAndForgotten() {
        String g = "g-" + System.nanoTime();
        ConsumedPositions a = new ConsumedPositions(g);
        ConsumedPositions b = new ConsumedPositions(g);
        ConsumedPositions other = new ConsumedPositions(g + "-other");
        a.handedOver(P0, 10);
        assertEquals(Map.of(), ConsumedPositions.of(g), "not listed before it joined");
        a.join();
        b.join();
        other.join();
        other.handedOver(P1, 99);
        b.handedOver(P1, 7);
        b.handedOver(P0, 4); // before a rebalance took P0 from b: a holds the further position
        assertEquals(Map.of(P0, 10L, P1, 7L), ConsumedPositions.of(g));
        a.handedOver(P0, 25); // the latest offset replaces the earlier one
        assertEquals(Map.of(P0, 25L, P1, 7L), ConsumedPositions.of(g));
        a.revoked(List.of(P0));
        assertEquals(Map.of(P0, 4L, P1, 7L), ConsumedPositions.of(g));
        b.leave();
        assertEquals(Map.of(), ConsumedPositions.of(g), "a holds nothing now, b left");
        a.leave();
        other.leave();
        assertEquals(Map.of(), ConsumedPositions.of(g + "-other"));
    }

    @Test
    void theMiddleOfTwoReads() {
        TopicPartition p2 = new TopicPartition("t", 2);
        // P0 moved 100 -> 201 (middle 150, rounded down), P1 only before, p2 only after
        assertEquals(Map.of(P0, 150L, P1, 7L, p2, 40L),
                ConsumedPositions.midway(Map.of(P0, 100L, P1, 7L), Map.of(P0, 201L, p2, 40L)));
    }
}

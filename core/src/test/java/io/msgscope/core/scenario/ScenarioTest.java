package io.msgscope.core.scenario;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Q6's expected-message arithmetic and each scenario's topic layout, by hand. */
class ScenarioTest {
    @Test
    void expectedCountsFollowTheSeedTable() {
        // 4 publishers x 200 msg/s x 2 s = 1600 sent
        assertEquals(1600, Scenario.FAN_IN.nominalExpected(4, 1, 200, 2));
        assertEquals(1600, Scenario.STRAIGHT_RUN.nominalExpected(4, 4, 200, 2));
        assertEquals(1600, Scenario.ROUND_ROBIN.nominalExpected(4, 4, 200, 2));
        // fan-out: 1 x 200 x 2 = 400 sent, each to 4 subscribers
        assertEquals(1600, Scenario.FAN_OUT.nominalExpected(1, 4, 200, 2));
        assertEquals(400 * 7, Scenario.FAN_OUT.expected(400, 7));
        assertEquals(999, Scenario.ROUND_ROBIN.expected(999, 7));
        assertEquals(3 * 5, Scenario.FAN_IN.nominalExpected(3, 1, 2.5, 2));
    }

    @Test
    void topicLayouts() {
        assertEquals(List.of("t", "t", "t"), Scenario.FAN_IN.publisherTopics("t", '/', 3));
        assertEquals(List.of("t"), Scenario.FAN_IN.subscriberTopics("t", '/', 1));
        assertEquals(List.of("t/0", "t/1"), Scenario.STRAIGHT_RUN.publisherTopics("t", '/', 2));
        assertEquals(List.of("t.0", "t.1"), Scenario.STRAIGHT_RUN.subscriberTopics("t", '.', 2));
        assertEquals(List.of("t", "t"), Scenario.ROUND_ROBIN.subscriberTopics("t", '/', 2));
    }

    @Test
    void shapesTheScenarioCannotHaveAreUsageErrors() {
        SpecException e = assertThrows(SpecException.class, () -> Scenario.FAN_IN.check(4, 2));
        assertTrue(e.getMessage().contains("--subscribers"), e.getMessage());
        assertThrows(SpecException.class, () -> Scenario.FAN_OUT.check(2, 4));
        assertThrows(SpecException.class, () -> Scenario.STRAIGHT_RUN.check(4, 3));
        assertThrows(SpecException.class, () -> Scenario.ROUND_ROBIN.check(0, 3));
        Scenario.ROUND_ROBIN.check(4, 2);
        assertEquals(Scenario.ROUND_ROBIN, Scenario.parse("Round-Robin"));
        assertThrows(SpecException.class, () -> Scenario.parse("fan-all"));
    }
}

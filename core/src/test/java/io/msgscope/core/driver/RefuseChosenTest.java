package io.msgscope.core.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.msgscope.core.SpecException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RefuseChosenTest {

    @Test
    void optionsTheScenarioDoesNotChooseAreLeftAlone() {
        ScenarioSupport.refuseChosen(Map.of("qos", "1"), "", "", "topic", "group");
        ScenarioSupport.refuseChosen(Map.of("qos", "1"), "its topics", "", "topic", "group");
    }

    @Test
    void withWhatTheFirstGivenIsNamedWithTheHint() {
        SpecException e = assertThrows(SpecException.class, () -> ScenarioSupport.refuseChosen(
                Map.of("group", "g", "address", "a"), "each connection's address", " (use --topic-prefix)",
                "topic", "address", "group"));
        assertEquals("--opt address", e.option());
        assertEquals("--opt address: is chosen by the scenario (each connection's address); do not give it "
                + "(use --topic-prefix)", e.getMessage());
    }

    @Test
    void withoutWhatAllAreNamedAtOnce() {
        SpecException e = assertThrows(SpecException.class,
                () -> ScenarioSupport.refuseChosen(Map.of("group", "g"), "", "", "subject", "group"));
        assertEquals("--opt", e.option());
        assertEquals("--opt: subject and group are chosen by the scenario; do not give them", e.getMessage());
    }
}

package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Issue 32: a spec file's degrade carries its rate into the --faults shorthand. */
class SpecFileNetworkFaultsTest {
    @Test
    void aDegradesRateBecomesItsFourthField() throws Exception {
        assertEquals("1s:partition:n2, 2s:heal:n2, 3s:degrade:n2:rate=1mbit, 4s:heal:n2", SpecFile.faults(
                new ObjectMapper().readTree("[{\"at\":\"1s\",\"action\":\"partition\",\"target\":\"n2\"},"
                        + "{\"at\":\"2s\",\"action\":\"heal\",\"target\":\"n2\"},"
                        + "{\"at\":\"3s\",\"action\":\"degrade\",\"target\":\"n2\",\"rate\":\"1mbit\"},"
                        + "{\"at\":\"4s\",\"action\":\"heal\",\"target\":\"n2\"}]")));
    }
}

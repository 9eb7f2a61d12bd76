package io.msgscope.coordinator.scenario;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The note that explains a broker's CPU above one core (issue 18) appears exactly when it is above. */
@ExtendWith(GermanLocale.class)
class BrokerStatsTest {
    @Test
    void aboveOneCoreIsExplainedAndOnlyThen() {
        assertNull(BrokerStats.aboveOneCore(100.0));
        assertNull(BrokerStats.aboveOneCore(Double.NaN));
        String note = BrokerStats.aboveOneCore(118.04);
        assertTrue(note.startsWith("broker_cpu_max_pct 118.0 is above one core") && note.contains("softirq"), note);
    }
}

package io.msgscope.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The run store's cost line of {@code --verbose} (issue 34): both times in whole ms, rounded, as measured. */
class StoreCostLineTest {
    @Test
    void theCheckAndTheRecordingAreGivenInWholeMilliseconds() {
        // %.0f rounds half up: 12.5 ms is 13, 86.49 ms is 86
        assertEquals("run store: checked in 13 ms before the run, recorded in 86 ms after it",
                StoreOptions.storeCost(12_500_000L, 86_490_000L));
        assertEquals("run store: checked in 0 ms before the run, recorded in 1200 ms after it",
                StoreOptions.storeCost(400_000L, 1_200_000_000L));
    }
}

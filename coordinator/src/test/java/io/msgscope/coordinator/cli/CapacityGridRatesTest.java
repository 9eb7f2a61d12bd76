package io.msgscope.coordinator.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code capacity --rates}: a list as given, a range as each rate STEP % above the one before (issue 31 item 4). */
class CapacityGridRatesTest {
    @Test
    void aListIsTakenAsGiven() {
        assertEquals(List.of(1000.0, 2500.0, 40000.0), CapacityCommand.gridRates("1k, 2.5k,40000"));
    }

    @Test
    void aRangeGrowsByItsStepAndEndsAtTo() {
        // by hand: 100,000 × 1.05^k, rounded, while below 130,000: 100000, 105000, 110250, 115762.5 → 115763,
        // 121550.6 → 121551, 127628.2 → 127628; then TO
        assertEquals(List.of(100000.0, 105000.0, 110250.0, 115763.0, 121551.0, 127628.0, 130000.0),
                CapacityCommand.gridRates("100k..130k/5%"));
        // the capacity script's range: 100k..400k in 5 % steps is 29 rates below 400k and 400k itself
        List<Double> r = CapacityCommand.gridRates("100k..400k/5%");
        List<Double> byHand = new ArrayList<>();
        for (double x = 100000; x < 400000; x *= 1.05) {
            byHand.add((double) Math.round(x));
        }
        byHand.add(400000.0);
        assertEquals(byHand, r);
        assertEquals(30, r.size());
    }

    @Test
    void aSmallStepOnSmallRatesKeepsTheRatesDistinct() {
        // 10 × 1.01^k rounds to 10 until it reaches 10.5: each rate is kept once
        assertEquals(List.of(10.0, 11.0, 12.0), CapacityCommand.gridRates("10..12/1%"));
    }
}

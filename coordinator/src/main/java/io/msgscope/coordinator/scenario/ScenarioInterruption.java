package io.msgscope.coordinator.scenario;

import io.msgscope.coordinator.results.Interruptions;

import java.util.Locale;
import java.util.Map;

/**
 * How far a scenario stopped by SIGINT or SIGTERM got (issue 29): the signal, the phase it cut, and the seconds the
 * publishers were measured for, of those scheduled. Every rate of the result is over {@code measuredS}, the time from
 * the measurement's start to the publishers' stop; the in-flight wait still ran, so what was sent is counted through.
 * summary.json's {@code interrupted} section; {@link #reason()} is its failure reason.
 *
 * @param signal    SIGINT or SIGTERM
 * @param during    set-up, warm-up, measurement or drain (the in-flight wait, after a whole measurement)
 * @param measuredS the seconds measured, null when the measurement had not begun
 * @param durationS the seconds scheduled ({@code --duration})
 */
public record ScenarioInterruption(String signal, String during, Double measuredS, double durationS) {

    /** One line: what was cut and what the figures are over. */
    public String reason() {
        if (measuredS == null) {
            return Interruptions.nothingMeasured(signal, during);
        }
        return String.format(Locale.ROOT, "%s after %.1f of %s measured seconds; every figure is over the part that "
                + "ran", Interruptions.by(signal, during), measuredS,
                java.math.BigDecimal.valueOf(durationS).stripTrailingZeros().toPlainString());
    }

    /** summary.json's {@code interrupted} section. */
    Map<String, Object> toMap() {
        Map<String, Object> m = Interruptions.section(signal, during);
        m.put("measured_s", measuredS);
        m.put("duration_s", durationS);
        return m;
    }
}

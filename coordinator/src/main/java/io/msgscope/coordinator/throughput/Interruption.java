package io.msgscope.coordinator.throughput;

import io.msgscope.coordinator.results.Interruptions;

import java.util.Locale;
import java.util.Map;

/**
 * How far an interrupted throughput run got (issue 29): the signal, the stage it cut, the search's probes that
 * finished (a search probe cut short is discarded: it is not the search's), and a final measurement cut short with the
 * samples it took of those asked. summary.json's {@code interrupted} section; {@link #reason()} is its failure reason.
 *
 * @param signal             SIGINT or SIGTERM
 * @param during             set-up, warm-up, search or measurement
 * @param probesFinished     the search's probes that finished, all in {@code probes}
 * @param finalInFlight      F of the final measurement when it was cut, else null
 * @param finalSamples       the samples the cut final measurement took (its figures are over them), else null
 * @param finalSamplesAsked  the samples it was to take, else null
 */
public record Interruption(String signal, String during, int probesFinished, Long finalInFlight, Integer finalSamples,
                           Integer finalSamplesAsked) {

    static Interruption of(ThroughputCollector c) {
        if (c.interruptedBy == null) {
            return null;
        }
        boolean cutFinal = c.finalSamplesAsked > 0;
        return new Interruption(c.interruptedBy, c.interruptedDuring, c.probes.size(),
                cutFinal ? c.finalInFlight : null,
                cutFinal ? (c.finalResult == null ? 0 : c.finalResult.getSamplesCount()) : null,
                cutFinal ? c.finalSamplesAsked : null);
    }

    /** One line: what was cut and what the figures are over. */
    public String reason() {
        String by = Interruptions.by(signal, during);
        String probes = probesFinished + (probesFinished == 1 ? " probe" : " probes");
        if (finalSamplesAsked != null) {
            return String.format(Locale.ROOT, "%s at F = %d after %d of %d samples%s; every figure is over the part "
                    + "that ran", by, finalInFlight, finalSamples, finalSamplesAsked,
                    probesFinished > 0 ? " (the search's " + probes + " finished)" : "");
        }
        if ("search".equals(during)) {
            return by + " after " + probes + " (the probe under way discarded); no final measurement";
        }
        return Interruptions.nothingMeasured(signal, during);
    }

    /** summary.json's {@code interrupted} section. */
    Map<String, Object> toMap() {
        Map<String, Object> m = Interruptions.section(signal, during);
        m.put("probes_finished", probesFinished);
        m.put("final_samples", finalSamples);
        m.put("final_samples_asked", finalSamplesAsked);
        return m;
    }
}

package io.msgscope.coordinator.results;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a run stopped by SIGINT or SIGTERM says first in the modes that cut a stage (issue 29: trace, throughput,
 * scenario): its failure reason starts "interrupted by SIGNAL during the STAGE", and summary.json's
 * {@code interrupted} section starts with {@code signal} and {@code during}; each mode adds how far it got. Sweep and
 * batch count finished runs instead ({@link Unfinished}).
 */
public final class Interruptions {
    private Interruptions() {
    }

    /** "interrupted by SIGINT during the warm-up": the start of the failure reason. */
    public static String by(String signal, String during) {
        return "interrupted by " + signal + " during the " + during;
    }

    /** The failure reason of a run cut before its measurement began. */
    public static String nothingMeasured(String signal, String during) {
        return by(signal, during) + "; nothing was measured";
    }

    /** The {@code interrupted} section's first entries, {@code signal} and {@code during}; the mode's follow. */
    public static Map<String, Object> section(String signal, String during) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("signal", signal);
        m.put("during", during);
        return m;
    }
}

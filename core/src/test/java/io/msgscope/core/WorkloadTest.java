package io.msgscope.core;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The part of a spec every mode shares: checked once, named after the option that set it. */
class WorkloadTest {
    @Test
    void sizeIsCheckedAgainstTheHeaderAndTheLargestMessage() {
        assertEquals(WireHeader.SIZE, new Workload("tcp", "", Map.of(), WireHeader.SIZE, Padding.ZEROS, 1).size());
        SpecException small = assertThrows(SpecException.class,
                () -> new Workload("tcp", "", Map.of(), WireHeader.SIZE - 1, Padding.ZEROS, 1));
        assertEquals("--size", small.option());
        assertEquals("--size: must be between 32 (the measurement header) and 67108864 bytes, got 31",
                small.getMessage());
        assertThrows(SpecException.class, () -> Workload.checkSize(Workload.MAX_SIZE + 1));
    }

    @Test
    void paddingIsReadInAnyCaseAndRefusedByName() {
        assertEquals(Padding.RANDOM, Workload.padding(" Random "));
        assertEquals(Padding.ZEROS, Workload.padding("zeros"));
        SpecException e = assertThrows(SpecException.class, () -> Workload.padding("ones"));
        assertEquals("--padding", e.option());
        assertEquals("--padding: must be zeros or random, got 'ones'", e.getMessage());
    }

    @Test
    void aBlankDriverIsRefusedAndOptionsAreCopied() {
        assertEquals("--driver", assertThrows(SpecException.class,
                () -> new Workload(" ", "", Map.of(), 64, Padding.ZEROS, 1)).option());
        Map<String, String> opts = new HashMap<>(Map.of("qos", "1"));
        Workload w = new Workload("mqtt", null, opts, 64, Padding.ZEROS, 1);
        opts.put("qos", "2");
        assertEquals("1", w.driverOptions().get("qos"));
        assertEquals("", w.uri());
    }

    @Test
    void aRunSpecIsBuiltAroundItsWorkloadAndReadsThroughIt() {
        Workload w = new Workload("amqp", "amqp://u:secret@h:5672/%2f", Map.of("confirm", "true"), 128, Padding.RANDOM, 7);
        RunSpec spec = RunSpec.builder().workload(w).count(1000).window(10).build();
        assertEquals(w, spec.workload());
        assertEquals(128, spec.size());
        assertEquals(Padding.RANDOM, spec.padding());
        assertEquals(7, spec.seed());
        assertEquals("amqp", spec.driver());
        assertEquals(w.uriForDisplay(), spec.uriForDisplay());
        assertEquals(spec, spec.toBuilder().build());
    }
}

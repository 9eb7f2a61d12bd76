package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class AffinityTest {

    @Test
    void cpuListFormatting() {
        assertEquals("", Affinity.toCpuList(new long[2]));
        assertEquals("0", Affinity.toCpuList(new long[] {0b1L}));
        assertEquals("0-1", Affinity.toCpuList(new long[] {0b11L}));
        assertEquals("0,2-3", Affinity.toCpuList(new long[] {0b1101L}));
        assertEquals("1,3,5", Affinity.toCpuList(new long[] {0b101010L}));
    }

    @Test
    void cpuListRunsAcrossWords() {
        // bits 62, 63, 64, 65 set: one run spanning the word boundary, then 127 alone
        long[] mask = {(1L << 62) | (1L << 63), 0b11L | (1L << 63)};
        assertEquals("62-65,127", Affinity.toCpuList(mask));
        assertEquals("0-127", Affinity.toCpuList(new long[] {-1L, -1L}));
    }

    @Test
    void negativeCpuOnlyReports() {
        Affinity.Result r = Affinity.pinCurrentThread(-1);
        assertEquals(-1, r.requestedCpu());
        assertFalse(r.pinned());
        assertEquals(Affinity.currentAffinity(), r.obtained());
        if (isLinux()) {
            assertEquals("", r.note());
            assertNotEquals("unknown", r.obtained());
            assertFalse(r.obtained().isEmpty());
        }
    }

    @Test
    void pinningAFreshThreadToCoreZero() throws Exception {
        assumeTrue(isLinux(), "sched_setaffinity is Linux only");
        assumeTrue(allowed(Affinity.currentAffinity(), 0), "core 0 is not in this process's CPU set");
        AtomicReference<Affinity.Result> result = new AtomicReference<>();
        AtomicReference<String> after = new AtomicReference<>();
        Thread t = new Thread(() -> {
            result.set(Affinity.pinCurrentThread(0));
            after.set(Affinity.currentAffinity());
        }, "affinity-test");
        t.start();
        t.join();
        Affinity.Result r = result.get();
        assertEquals(0, r.requestedCpu());
        assertEquals("0", r.obtained());
        assertTrue(r.pinned());
        assertEquals("", r.note());
        assertEquals("0", after.get());
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase().contains("linux");
    }

    private static boolean allowed(String cpuList, int cpu) {
        for (String part : cpuList.split(",")) {
            String[] ends = part.split("-");
            try {
                int lo = Integer.parseInt(ends[0]);
                int hi = ends.length > 1 ? Integer.parseInt(ends[1]) : lo;
                if (cpu >= lo && cpu <= hi) {
                    return true;
                }
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return false;
    }
}

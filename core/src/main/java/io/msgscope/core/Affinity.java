package io.msgscope.core;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;

/**
 * Pins the calling thread to one core with sched_setaffinity(2) (D3, M5) and reports the
 * affinity actually obtained. Works on Linux; elsewhere pinning is reported as unavailable.
 */
public final class Affinity {
    private interface LibC extends Library {
        int sched_setaffinity(int pid, NativeLong cpusetsize, long[] mask);

        int sched_getaffinity(int pid, NativeLong cpusetsize, long[] mask);
    }

    private static final int MASK_WORDS = 16; // 1024 CPUs
    private static final LibC LIBC = load();

    private Affinity() {
    }

    private static LibC load() {
        try {
            return Native.load("c", LibC.class);
        } catch (Throwable t) {
            return null;
        }
    }

    /** The result of a pinning attempt. */
    public record Result(int requestedCpu, String obtained, boolean pinned, String note) {
    }

    /** Pins the calling thread to {@code cpu}; {@code cpu < 0} only reports the current affinity. */
    public static Result pinCurrentThread(int cpu) {
        if (LIBC == null) {
            return new Result(cpu, "unknown", false, "sched_setaffinity unavailable on this platform");
        }
        String note = "";
        boolean pinned = false;
        if (cpu >= 0) {
            long[] mask = new long[MASK_WORDS];
            mask[cpu / 64] |= 1L << (cpu % 64);
            int rc = LIBC.sched_setaffinity(0, new NativeLong(MASK_WORDS * 8L), mask);
            if (rc != 0) {
                note = "sched_setaffinity(" + cpu + ") failed, errno " + Native.getLastError();
            }
        }
        String obtained = currentAffinity();
        if (cpu >= 0 && obtained.equals(Integer.toString(cpu))) {
            pinned = true;
        }
        return new Result(cpu, obtained, pinned, note);
    }

    /** The calling thread's CPU set as a list like "0-1" or "3". */
    public static String currentAffinity() {
        if (LIBC == null) {
            return "unknown";
        }
        long[] mask = new long[MASK_WORDS];
        if (LIBC.sched_getaffinity(0, new NativeLong(MASK_WORDS * 8L), mask) != 0) {
            return "unknown";
        }
        return toCpuList(mask);
    }

    static String toCpuList(long[] mask) {
        StringBuilder sb = new StringBuilder();
        int n = mask.length * 64;
        int i = 0;
        while (i < n) {
            if ((mask[i / 64] & (1L << (i % 64))) == 0) {
                i++;
                continue;
            }
            int start = i;
            while (i + 1 < n && (mask[(i + 1) / 64] & (1L << ((i + 1) % 64))) != 0) {
                i++;
            }
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(start);
            if (i > start) {
                sb.append('-').append(i);
            }
            i++;
        }
        return sb.toString();
    }
}

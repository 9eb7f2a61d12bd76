package io.msgscope.core;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time sources for the every-Nth-message samples (M3). The calling thread's CPU time has
 * nanosecond resolution (CLOCK_THREAD_CPUTIME_ID, ~1 µs per call); the process's is counted in
 * 10 ms ticks and means something only over windows of ~100 ms or more (FACTS.md).
 */
public final class CpuClock {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS = osBean();

    private CpuClock() {
    }

    private static com.sun.management.OperatingSystemMXBean osBean() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean hs ? hs : null;
    }

    /** CPU time of the calling thread in ns, or {@link SendRecorder#ABSENT} when the JVM cannot tell. */
    public static long threadCpuNs() {
        long v = THREADS.getCurrentThreadCpuTime();
        return v < 0 ? SendRecorder.ABSENT : v;
    }

    /**
     * CPU time of another live thread of this JVM in ns, or ABSENT when the JVM cannot tell or the thread has ended
     * (then the sample is missing, never another thread's counter).
     */
    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() is the same value on 17
    public static long threadCpuNs(Thread thread) {
        long v = THREADS.getThreadCpuTime(thread.getId());
        return v < 0 ? SendRecorder.ABSENT : v;
    }

    /** CPU time of this process in ns (10 ms ticks), or ABSENT when unknown. */
    public static long processCpuNs() {
        long v = OS == null ? -1 : OS.getProcessCpuTime();
        return v < 0 ? SendRecorder.ABSENT : v;
    }
}

package io.msgscope.core.proc;

/**
 * Constants of the Linux CPU accounting files read by this package.
 *
 * <p>{@code /proc/PID/stat} and {@code /proc/stat} count CPU time in clock ticks of
 * {@code USER_HZ} per second. The kernel fixes {@code USER_HZ} at 100 on every Linux
 * architecture that matters here (it is the value of {@code sysconf(_SC_CLK_TCK)} and does not
 * follow the kernel's internal {@code HZ}), so one tick is 10 ms: process- and host-wide CPU from
 * these files is quantised to 10 ms and only meaningful over windows of about 100 ms or more.
 * cgroup v2 {@code cpu.stat} counts in microseconds instead.
 */
public final class ProcCpu {
    /** Clock ticks per second in /proc/PID/stat and /proc/stat (Linux USER_HZ). */
    public static final int USER_HZ = 100;
    /** Nanoseconds per clock tick: 1e9 / {@link #USER_HZ}. */
    public static final long NS_PER_TICK = 1_000_000_000L / USER_HZ;

    private ProcCpu() {
    }

    /** Clock ticks to nanoseconds. */
    public static long ticksToNs(long ticks) {
        return ticks * NS_PER_TICK;
    }
}

package io.msgscope.core.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readers against this machine's /proc: plausibility, and that reading does not allocate.
 * The mean cost per call is printed for the record, never asserted (STYLE: performance lives in
 * benchmarks).
 */
class ProcReadersLiveTest {
    private static final Path PROC = Path.of("/proc");
    /** JIT compilation and the first call's buffers may allocate a little; reading itself must not. */
    private static final long ALLOCATION_SLACK = 4_096; // JIT and OSR noise; one object per call would be >= 160,000 bytes
    private static final int CALLS = 10_000;

    @TempDir
    Path tmp;

    @BeforeAll
    static void linux() {
        assumeTrue(Files.isRegularFile(PROC.resolve("self/stat")), "needs Linux /proc");
    }

    private interface Call {
        void run() throws IOException;
    }

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocated() {
        return MX.getCurrentThreadAllocatedBytes();
    }

    /** Warms up, then makes CALLS calls; asserts they allocated (almost) nothing and prints their mean cost. */
    private static void noAllocation(String what, Call call) throws IOException {
        for (int i = 0; i < CALLS; i++) {
            call.run();
        }
        long baseline = -allocated() + allocated();
        long a0 = allocated();
        long t0 = System.nanoTime();
        for (int i = 0; i < CALLS; i++) {
            call.run();
        }
        long t1 = System.nanoTime();
        long bytes = allocated() - a0 - baseline;
        System.out.printf("%-40s %8d ns/call, %d bytes allocated over %d calls (baseline %d)%n", what,
                (t1 - t0) / CALLS, bytes, CALLS, baseline);
        assertTrue(bytes <= ALLOCATION_SLACK, what + " allocated " + bytes + " bytes over " + CALLS + " calls");
    }

    private static long burn(long cpuNs) {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + cpuNs;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x += i * x + 1;
            }
        }
        return x;
    }

    @Test
    void ownProcessCpuGrowsWithWork() throws IOException {
        try (ProcessCpuReader r = ProcessCpuReader.forPid(PROC, ProcessHandle.current().pid())) {
            long before = r.cpuNs();
            assertTrue(before > 0, "cpu " + before);
            assertEquals(0, before % ProcCpu.NS_PER_TICK);
            burn(300_000_000L);
            long after = r.cpuNs();
            // 300 ms of this thread's CPU is 30 ticks; allow for tick rounding
            assertTrue(after - before >= 200_000_000L, before + " -> " + after);
            assertTrue(r.comm().length() > 0);
            noAllocation("ProcessCpuReader.cpuNs /proc/self", r::cpuNs);
        }
    }

    @Test
    void exitedProcessIsReported() throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "while :; do :; done").start(); // busy: its CPU is not 0
        try (ProcessCpuReader r = ProcessCpuReader.forPid(PROC, p.pid())) {
            io.msgscope.core.test.Await.until(() -> {
                try {
                    return statCpuNsByHand(p.pid()) > 0;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, 15, "a clock tick of CPU in the busy process");
            long before = statCpuNsByHand(p.pid());
            long read = r.cpuNs();
            long after = statCpuNsByHand(p.pid());
            assertTrue(before <= read && read <= after, before + " <= " + read + " <= " + after + " ns");
            p.destroyForcibly().waitFor();
            // reaped: the open stat file now answers ESRCH
            NoSuchProcessException e = org.junit.jupiter.api.Assertions.assertThrows(NoSuchProcessException.class,
                    r::cpuNs);
            assertTrue(e.getMessage().contains("has exited"), e.getMessage());
        } finally {
            p.destroyForcibly();
        }
    }

    /** utime + stime (fields 14 and 15 of /proc/PID/stat) in ns at 100 ticks a second, parsed here. */
    private static long statCpuNsByHand(long pid) throws IOException {
        String stat = Files.readString(PROC.resolve(pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" "); // f[0] is field 3, the state
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    /** lo's rx bytes, rx packets, tx bytes, tx packets from /proc/net/dev, parsed here. */
    private static long[] loopbackByHand() throws IOException {
        for (String line : Files.readAllLines(PROC.resolve("net/dev"))) {
            String t = line.trim();
            if (t.startsWith("lo:")) {
                String[] f = t.substring(3).trim().split("\\s+");
                return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[8]), Long.parseLong(f[9])};
            }
        }
        throw new AssertionError("no lo in /proc/net/dev");
    }

    @Test
    void hostBusyWithinTotal() throws IOException {
        long[] a = new long[2];
        long[] b = new long[2];
        try (HostCpuReader r = HostCpuReader.host(PROC)) {
            assertTrue(r.read(a));
            burn(50_000_000L);
            assertTrue(r.read(b));
            assertTrue(a[0] > 0 && a[0] <= a[1], a[0] + " / " + a[1]);
            assertTrue(b[0] >= a[0] && b[1] >= a[1]);
            assertTrue(b[0] <= b[1]);
            noAllocation("HostCpuReader.read /proc/stat", () -> r.read(a));
        }
    }

    @Test
    void netDevFindsLoopback() throws IOException {
        long[] out = new long[4];
        try (NetDevReader r = new NetDevReader(PROC.resolve("net/dev"), "lo")) {
            try (java.net.DatagramSocket udp = new java.net.DatagramSocket()) { // some traffic on lo, at least this
                udp.send(new java.net.DatagramPacket(new byte[100], 100, InetAddress.getLoopbackAddress(), 9));
            }
            long[] before = loopbackByHand();
            assertTrue(r.read(out));
            long[] after = loopbackByHand();
            for (int i = 0; i < 4; i++) {
                assertTrue(before[i] <= out[i] && out[i] <= after[i], "field " + i + ": " + before[i] + " <= "
                        + out[i] + " <= " + after[i]);
            }
            assertTrue(out[0] >= 100 && out[1] >= 1 && out[2] >= 100 && out[3] >= 1, java.util.Arrays.toString(out));
            noAllocation("NetDevReader.read /proc/net/dev lo", () -> r.read(out));
        }
        assertEquals("lo", NetDevReader.interfaceOf(InetAddress.getLoopbackAddress()));
        assertEquals("lo", NetDevReader.interfaceOf(InetAddress.getByName("127.0.0.2")));
    }

    @Test
    void cgroupReaderDoesNotAllocate() throws IOException {
        // cgroup v2 is not mounted everywhere: use the live one when there is, else a fixture
        Path live = Path.of("/sys/fs/cgroup");
        Path dir = Files.isRegularFile(live.resolve("cpu.stat")) ? live
                : Fixtures.copy("cpu.stat", tmp.resolve("cg/cpu.stat")).getParent();
        try (CgroupCpuReader r = CgroupCpuReader.forCgroup(dir)) {
            assertTrue(r.cpuNs() > 0);
            noAllocation("CgroupCpuReader.cpuNs " + dir, r::cpuNs);
        }
    }

    @Test
    void fixtureReadsDoNotAllocate() throws IOException {
        Fixtures.copy("pid-stat", tmp.resolve("4242/stat"));
        try (ProcessCpuReader r = ProcessCpuReader.forPid(tmp, 4242)) {
            noAllocation("ProcessCpuReader.cpuNs fixture", r::cpuNs);
        }
    }
}

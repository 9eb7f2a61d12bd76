package io.msgscope.core.proc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readers on fixture files, with values computed by hand; then the files change under them. */
class ProcReadersFixtureTest {
    @TempDir
    Path root;

    @Test
    void userHzIsTheLinuxConstant() {
        assertEquals(100, ProcCpu.USER_HZ);
        assertEquals(10_000_000L, ProcCpu.NS_PER_TICK);
        assertEquals(30_000_000L, ProcCpu.ticksToNs(3));
    }

    @Test
    void processCpuCountsFieldsAfterTheLastParenthesis() throws IOException {
        Path stat = Fixtures.copy("pid-stat", root.resolve("4242/stat"));
        try (ProcessCpuReader r = ProcessCpuReader.forPid(root, 4242)) {
            // utime 731 + stime 262 = 993 ticks of 10 ms
            assertEquals(9_930_000_000L, r.cpuNs());
            assertEquals("my (weird) proc", r.comm());
            assertEquals(4242, r.pid());
            assertEquals(stat.toString(), r.source());

            Fixtures.rewrite(stat, Fixtures.read("pid-stat").replace(" 731 262 ", " 1731 1262 "));
            assertEquals(29_930_000_000L, r.cpuNs());
            // a name that even looks like more fields: ") R 1 2 3"
            Fixtures.rewrite(stat, "4242 (a) R 1 2 3) S 1 4242 4242 0 -1 4194560 1 0 0 0 7 5 0 0 20 0 1 0 9 9 9\n");
            assertEquals(120_000_000L, r.cpuNs());
            assertEquals("a) R 1 2 3", r.comm());
        }
    }

    @Test
    void absentProcessIsNamed() {
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class,
                () -> ProcessCpuReader.forPid(root, 99999));
        assertEquals(99999, e.pid());
        assertTrue(e.getMessage().contains("no process with pid 99999"), e.getMessage());
        assertThrows(NoSuchProcessException.class, () -> ProcessCpuReader.forPid(root, 0));
    }

    @Test
    void truncatedStatIsMalformed() throws IOException {
        Path stat = Fixtures.copy("pid-stat", root.resolve("7/stat"));
        try (ProcessCpuReader r = ProcessCpuReader.forPid(root, 7)) {
            Fixtures.rewrite(stat, "7 (x) S 1 2 3\n");
            IOException e = assertThrows(IOException.class, r::cpuNs);
            assertTrue(e.getMessage().contains("fewer than 15 fields"), e.getMessage());
            Fixtures.rewrite(stat, "");
            assertThrows(NoSuchProcessException.class, r::cpuNs);
        }
    }

    @Test
    void cgroupUsageIsMicroseconds() throws IOException {
        Path cpuStat = Fixtures.copy("cpu.stat", root.resolve("system.slice/broker.service/cpu.stat"));
        try (CgroupCpuReader r = CgroupCpuReader.forCgroup(cpuStat.getParent())) {
            assertEquals(123_456_789_000L, r.cpuNs());
            Fixtures.rewrite(cpuStat, "user_usec 5\nsystem_usec 6\nusage_usec 11\n");
            assertEquals(11_000L, r.cpuNs());
            Fixtures.rewrite(cpuStat, "user_usec 5\n");
            assertThrows(IOException.class, r::cpuNs);
        }
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> CgroupCpuReader.forCgroup(root.resolve("nothing")));
        assertTrue(e.getMessage().contains("cpu.stat"), e.getMessage());
    }

    @Test
    void hostBusyAndTotal() throws IOException {
        Path stat = Fixtures.copy("stat", root.resolve("stat"));
        long[] out = new long[2];
        try (HostCpuReader r = HostCpuReader.host(root)) {
            assertTrue(r.read(out));
            // busy = 100508 + 20 + 16401 + 3 + 1307 + 67 = 118306 ticks (guest 500 is inside user)
            // total = 118306 + 151247 idle + 716 iowait = 270269 ticks
            assertArrayEquals(new long[] {1_183_060_000_000L, 2_702_690_000_000L}, out);

            Fixtures.rewrite(stat, "cpu  10 0 10 100 1 0 0 0 0 0\ncpu0 10 0 10 100 1 0 0 0 0 0\n");
            assertTrue(r.read(out));
            assertArrayEquals(new long[] {200_000_000L, 1_210_000_000L}, out);

            // an old kernel with only user nice system idle
            Fixtures.rewrite(stat, "cpu  1 2 3 4\n");
            assertTrue(r.read(out));
            assertArrayEquals(new long[] {60_000_000L, 100_000_000L}, out);

            Fixtures.rewrite(stat, "intr 1 2 3\n");
            assertFalse(r.read(out));
            assertArrayEquals(new long[] {60_000_000L, 100_000_000L}, out);
        }
    }

    @Test
    void netDevFindsTheInterface() throws IOException {
        Path dev = Fixtures.copy("net-dev", root.resolve("net/dev"));
        long[] out = new long[4];
        try (NetDevReader lo = new NetDevReader(dev, "lo");
                NetDevReader eth0 = new NetDevReader(dev, "eth0");
                NetDevReader eth10 = new NetDevReader(dev, "eth10");
                NetDevReader eth1 = new NetDevReader(dev, "eth1");
                NetDevReader docker = new NetDevReader(dev, "docker0")) {
            assertTrue(lo.read(out));
            assertArrayEquals(new long[] {2250582821L, 5422567, 2250582821L, 5422567}, out);
            assertTrue(eth0.read(out));
            assertArrayEquals(new long[] {95970122, 3340, 410906, 2759}, out);
            // counters touching the colon
            assertTrue(eth10.read(out));
            assertArrayEquals(new long[] {123456789012345L, 987654321, 98765432109876L, 123456789}, out);
            assertTrue(docker.read(out));
            assertArrayEquals(new long[4], out);
            // "eth1" is a prefix of "eth10" only
            out[0] = 42;
            assertFalse(eth1.read(out));
            assertEquals(42, out[0]);

            Fixtures.rewrite(dev, Fixtures.read("net-dev").replace("95970122    3340", "95970999    3341"));
            assertTrue(eth0.read(out));
            assertArrayEquals(new long[] {95970999, 3341, 410906, 2759}, out);
            Fixtures.rewrite(dev, Fixtures.read("net-dev").lines().limit(3).reduce("", (a, b) -> a + b + "\n"));
            assertFalse(eth0.read(out));
            assertTrue(lo.read(out));
        }
    }

    @Test
    void netDevGrowsForManyInterfaces() throws IOException {
        StringBuilder sb = new StringBuilder(Fixtures.read("net-dev").lines().limit(2)
                .reduce("", (a, b) -> a + b + "\n"));
        for (int i = 0; i < 500; i++) {
            sb.append(String.format("veth%04d: %d 2 0 0 0 0 0 0 %d 4 0 0 0 0 0 0%n", i, i, i * 10));
        }
        Path dev = root.resolve("dev");
        Files.writeString(dev, sb);
        long[] out = new long[4];
        try (NetDevReader r = new NetDevReader(dev, "veth0499")) {
            assertTrue(Files.size(dev) > 8192);
            assertTrue(r.read(out));
            assertArrayEquals(new long[] {499, 2, 4990, 4}, out);
        }
    }
}

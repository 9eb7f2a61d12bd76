package io.msgscope.agent.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.msgscope.control.AgentRole;
import io.msgscope.control.TraceSink;
import io.msgscope.core.SpecException;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarRoleTest {
    private static final Path PROC = Path.of("/proc");

    @TempDir
    Path tmp;

    /** Keeps what the role uploads. */
    private static final class CapturingSink implements TraceSink {
        final Map<Series, long[]> series = new EnumMap<>(Series.class);

        @Override
        public void series(Series s, long[] values, int count) {
            series.put(s, Arrays.copyOf(values, count));
        }
    }

    /** start() answers at once on the calling thread. */
    private static PhaseDone phase(AgentRole role, Phase phase) {
        PhaseDone[] done = new PhaseDone[1];
        String[] failed = new String[1];
        role.start(phase, new AgentRole.PhaseListener() {
            @Override
            public void done(PhaseDone d) {
                done[0] = d;
            }

            @Override
            public void failed(String message) {
                failed[0] = message;
            }
        });
        if (failed[0] != null) {
            throw new AssertionError("phase failed: " + failed[0]);
        }
        assertNotNull(done[0], "start() did not answer at once");
        return done[0];
    }

    private static RunSpec.Builder spec() {
        return RunSpec.newBuilder().setRunId("t").setPinCpu(-1).setSamplePeriodUs(10_000);
    }

    private static PhaseDone awaitSamples(SidecarRole role, int samples, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        PhaseDone d = phase(role, Phase.MEASURE);
        while (d.getSamples() < samples && System.nanoTime() < deadline) {
            Thread.sleep(20);
            d = phase(role, Phase.MEASURE);
        }
        assertTrue(d.getSamples() >= samples, "only " + d.getSamples() + " samples in " + timeoutMs + " ms");
        return d;
    }

    /** {System.nanoTime(), the process's time on CPU in ns from /proc/<pid>/schedstat}. */
    private static long[] onCpuNs(long pid) throws java.io.IOException {
        String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("schedstat"));
        return new long[] {System.nanoTime(), Long.parseLong(stat.trim().split("\\s+")[0])};
    }

    @Test
    void samplesABusyChildProcess() throws Exception {
        assumeTrue(Files.isRegularFile(PROC.resolve("stat")) && Files.isExecutable(Path.of("/bin/sh")), "needs Linux");
        Process child = new ProcessBuilder("/bin/sh", "-c", "while :; do :; done").start();
        SidecarRole role = new SidecarRole();
        try {
            Ready ready = role.prepare(spec().setBrokerPid(child.pid()).build());
            assertEquals(Role.PROBE, ready.getRole());
            PhaseDone warm = phase(role, Phase.WARMUP);
            assertEquals(Phase.WARMUP, warm.getPhase());
            assertTrue(warm.getNote().startsWith("broker process " + child.pid() + " (sh) CPU from /proc/"
                    + child.pid() + "/stat, 10 ms ticks, sampled every 10 ms; host CPU from /proc/stat"), warm.getNote());

            long[] before = onCpuNs(child.pid()); // /proc's own count, ns on CPU, before the measurement starts
            PhaseDone early = awaitSamples(role, 20, 20_000);
            PhaseDone d = awaitSamples(role, 100, 20_000);
            assertTrue(d.getSamplingNs() > 0);
            CapturingSink sink = new CapturingSink();
            role.upload(sink);
            long[] after = onCpuNs(child.pid());
            long[] t = sink.series.get(Series.SIDECAR_SAMPLE_NS);
            long[] u = sink.series.get(Series.SIDECAR_BROKER_CPU_NS);
            long[] busy = sink.series.get(Series.SIDECAR_HOST_BUSY_NS);
            long[] total = sink.series.get(Series.SIDECAR_HOST_TOTAL_NS);
            int n = t.length;
            assertTrue(n >= d.getSamples());
            assertEquals(n, u.length);
            assertEquals(n, busy.length);
            assertEquals(n, total.length);
            for (int i = 1; i < n; i++) {
                assertTrue(t[i] > t[i - 1], "timestamps at " + i);
                assertTrue(u[i] >= u[i - 1], "broker cpu at " + i);
                assertTrue(busy[i] >= busy[i - 1] && total[i] >= total[i - 1], "host cpu at " + i);
            }
            for (int i = 0; i < n; i++) {
                assertTrue(busy[i] <= total[i], "busy > total at " + i);
            }
            double elapsed = t[n - 1] - t[0];
            double rate = (u[n - 1] - u[0]) / elapsed;
            double meanPeriodMs = elapsed / (n - 1) / 1e6;
            System.out.printf("sidecar: %d samples, mean period %.2f ms, broker CPU %.0f %% of a core, "
                    + "%.1f µs per sample reading /proc overall, %.1f µs after the first 20; sampler allocated %d B, host %.0f %% busy%n",
                    n, meanPeriodMs, rate * 100, d.getSamplingNs() / 1e3 / d.getSamples(),
                    (d.getSamplingNs() - early.getSamplingNs()) / 1e3 / (d.getSamples() - early.getSamples()),
                    d.getHotThreadAllocatedBytes(),
                    100.0 * (busy[n - 1] - busy[0]) / (total[n - 1] - total[0]));
            // issue 27: the sampled rate is the busy loop's as the kernel counts it (schedstat, ns on CPU) over a span
            // that holds the samples' (tens of ms longer): a busy loop's share of a core changes little in that
            // time, so 8 points catch a wrong tick length or clock, where a share of 20-150 % caught nothing
            double truth = (double) (after[1] - before[1]) / (after[0] - before[0]);
            assertTrue(Math.abs(rate - truth) < 0.08, "the sidecar says the busy loop used " + rate * 100
                    + " % of a core, /proc/" + child.pid() + "/schedstat " + truth * 100 + " %");
            // fixed period: no drift (the mean stays near 10 ms even when single ticks are late)
            assertTrue(meanPeriodMs >= 9.9 && meanPeriodMs < 15, "mean period " + meanPeriodMs + " ms");
        } finally {
            child.destroyForcibly();
            role.close();
            role.close(); // idempotent
        }
    }

    @Test
    void absentProcessNameSaysWhatWasSearched() {
        assumeTrue(Files.isDirectory(PROC.resolve("self")), "needs Linux /proc");
        SidecarRole role = new SidecarRole();
        try {
            SpecException e = assertThrows(SpecException.class,
                    () -> role.prepare(spec().setBrokerProcess("no-such-broker-xyz").build()));
            assertEquals("--broker-process", e.option());
            assertTrue(e.getMessage().matches("--broker-process: no process named 'no-such-broker-xyz' among \\d+ "
                    + "processes \\(searched /proc/\\*/comm and argv\\[0\\]\\); is the broker running on this host\\?"),
                    e.getMessage());
        } finally {
            role.close();
        }
    }

    @Test
    void noTargetAsksForOne() {
        SidecarRole role = new SidecarRole(tmp, tmp);
        SpecException e = assertThrows(SpecException.class, () -> role.prepare(spec().build()));
        assertEquals("--broker-pid", e.option());
        assertTrue(e.getMessage().contains("--broker-pid, --broker-process or --broker-cgroup"), e.getMessage());
        role.close();
    }

    @Test
    void periodOutsideItsRange() {
        SidecarRole role = new SidecarRole(tmp, tmp);
        for (int us : new int[] {999, 1_000_001, -5}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> role.prepare(spec().setBrokerPid(1).setSamplePeriodUs(us).build()));
            assertEquals("--probe-period", e.option());
            assertTrue(e.getMessage().contains("1000..1000000 µs"), e.getMessage());
        }
        role.close();
    }

    @Test
    void absentPidIsASpecError() {
        SidecarRole role = new SidecarRole(tmp, tmp);
        SpecException e = assertThrows(SpecException.class, () -> role.prepare(spec().setBrokerPid(4242).build()));
        assertEquals("--broker-pid", e.option());
        assertTrue(e.getMessage().contains("no process with pid 4242"), e.getMessage());
        role.close();
    }

    private void fakeProcess(Path proc, long pid, String comm, String argv0, long utime, long stime) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        Files.write(dir.resolve("cmdline"), (argv0 + "\0-c\0x.conf\0").getBytes(StandardCharsets.UTF_8));
        Files.writeString(dir.resolve("stat"), pid + " (" + comm + ") S 1 " + pid + " " + pid + " 0 -1 4194560 10 0 0 0 "
                + utime + " " + stime + " 0 0 20 0 3 0 100 1000 10 18446744073709551615 0 0 0 0 0\n");
    }

    private Path fakeProc() throws IOException {
        Path proc = Files.createDirectories(tmp.resolve("proc"));
        Files.writeString(proc.resolve("stat"), "cpu  100 0 50 800 10 0 5 0 0 0\ncpu0 100 0 50 800 10 0 5 0 0 0\n");
        fakeProcess(proc, 1, "systemd", "/sbin/init", 5, 5);
        fakeProcess(proc, 310, "mosquitto", "/usr/sbin/mosquitto", 20, 3);
        fakeProcess(proc, 320, "mosquitto", "/usr/sbin/mosquitto", 700, 41);
        fakeProcess(proc, 330, "mosq (test)", "/opt/bin/mosquitto", 1, 0);
        return proc;
    }

    @Test
    void severalMatchesPickTheBusiestAndSaySo() throws Exception {
        Path proc = fakeProc();
        SidecarRole role = new SidecarRole(proc, tmp.resolve("cgroup"));
        try {
            role.prepare(spec().setBrokerProcess("mosquitto").setSamplePeriodUs(1_000).build());
            PhaseDone d = awaitSamples(role, 5, 10_000);
            assertTrue(d.getNote().startsWith("3 processes named 'mosquitto' [310, 320, 330], chose pid 320 with the most "
                    + "CPU time so far (7410 ms); broker process 320 (mosquitto) CPU from " + proc + "/320/stat, 10 ms "
                    + "ticks, sampled every 1 ms; host CPU from " + proc + "/stat"), d.getNote());
            CapturingSink sink = new CapturingSink();
            role.upload(sink);
            long[] u = sink.series.get(Series.SIDECAR_BROKER_CPU_NS);
            assertTrue(u.length >= 5);
            assertEquals(7_410_000_000L, u[0]);
            assertEquals(1_550_000_000L, sink.series.get(Series.SIDECAR_HOST_BUSY_NS)[0]);
            assertEquals(9_650_000_000L, sink.series.get(Series.SIDECAR_HOST_TOTAL_NS)[0]);
            // sampling stopped with the upload
            assertEquals(u.length, phase(role, Phase.MEASURE).getSamples());
        } finally {
            role.close();
        }
    }

    @Test
    void cgroupSourceResolvesUnderTheRoot() throws Exception {
        Path proc = fakeProc();
        Path cgroups = tmp.resolve("cgroup");
        Path service = Files.createDirectories(cgroups.resolve("system.slice/mosquitto.service"));
        Files.writeString(service.resolve("cpu.stat"), "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n");
        for (String given : new String[] {"/system.slice/mosquitto.service", "system.slice/mosquitto.service",
            service.toString()}) {
            SidecarRole role = new SidecarRole(proc, cgroups);
            try {
                role.prepare(spec().setBrokerCgroup(given).setBrokerPid(1).build());
                PhaseDone d = awaitSamples(role, 2, 10_000);
                assertTrue(d.getNote().startsWith("broker cgroup " + service + " CPU from " + service + "/cpu.stat"),
                        d.getNote());
                CapturingSink sink = new CapturingSink();
                role.upload(sink);
                assertEquals(2_500_000_000L, sink.series.get(Series.SIDECAR_BROKER_CPU_NS)[0]);
            } finally {
                role.close();
            }
        }
        SidecarRole role = new SidecarRole(proc, cgroups);
        SpecException e = assertThrows(SpecException.class,
                () -> role.prepare(spec().setBrokerCgroup("system.slice/absent.service").build()));
        assertEquals("--broker-cgroup", e.option());
        role.close();
    }

    @Test
    void brokerExitingFailsThePhase() throws Exception {
        assumeTrue(Files.isRegularFile(PROC.resolve("stat")), "needs Linux");
        Process child = new ProcessBuilder("sleep", "60").start();
        SidecarRole role = new SidecarRole();
        try {
            role.prepare(spec().setBrokerPid(child.pid()).build());
            awaitSamples(role, 2, 10_000);
            child.destroyForcibly().waitFor();
            String[] failed = new String[1];
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (failed[0] == null && System.nanoTime() < deadline) {
                role.start(Phase.MEASURE, new AgentRole.PhaseListener() {
                    @Override
                    public void done(PhaseDone d) {
                    }

                    @Override
                    public void failed(String message) {
                        failed[0] = message;
                    }
                });
                Thread.sleep(20);
            }
            assertNotNull(failed[0]);
            assertTrue(failed[0].contains("process " + child.pid() + " has exited"), failed[0]);
            assertThrows(IOException.class, () -> role.upload(new CapturingSink()));
        } finally {
            child.destroyForcibly();
            role.close();
        }
    }
}

package io.msgscope.agent.probe;

import io.msgscope.core.SpecException;
import io.msgscope.core.fault.FaultTargets;
import io.msgscope.proto.FaultApplied;
import io.msgscope.proto.FaultStep;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agent's side of faults (issue 32) on a {@code sleep} process of the test's own, stopped by its pid. */
class FaultInjectorTest {
    @TempDir
    Path tmp;

    private Process victim;
    private Path pidFile;

    @BeforeEach
    void start() throws Exception {
        victim = new ProcessBuilder("sleep", "60").start();
        pidFile = tmp.resolve("victim.pid");
        Files.writeString(pidFile, victim.pid() + "\n");
    }

    @AfterEach
    void stop() throws Exception {
        victim.destroyForcibly();
        victim.waitFor(5, TimeUnit.SECONDS);
    }

    private static RunSpec spec(String... steps) {
        RunSpec.Builder b = RunSpec.newBuilder();
        for (String s : steps) {
            String[] f = s.split(":");
            b.addFaults(FaultStep.newBuilder().setAtNs(Long.parseLong(f[0]) * 1_000_000L).setAction(f[1])
                    .setTarget(f[2]));
        }
        return b.build();
    }

    private char state() throws Exception {
        String stat = Files.readString(Path.of("/proc/" + victim.pid() + "/stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    @Test
    void pausesAndResumesOnTimeAndReportsEachStamp() throws Exception {
        FaultInjector f = FaultInjector.of(FaultTargets.parse(List.of("node1=" + pidFile)),
                spec("100:pause:node1", "400:resume:node1"));
        long origin = System.nanoTime();
        f.start(origin);
        Thread.sleep(250);
        assertEquals('T', state(), "stopped between pause and resume");
        Thread.sleep(400);
        assertTrue(state() == 'S' || state() == 'R', "running again after the resume: " + state());
        List<FaultApplied> applied = f.applied();
        assertEquals(2, applied.size());
        for (FaultApplied a : applied) {
            assertEquals("", a.getError());
            assertEquals(victim.pid(), a.getPid());
            assertEquals(origin, a.getOriginNs());
            long lag = a.getAppliedNs() - origin - a.getStep().getAtNs();
            assertTrue(lag >= 0 && lag < 50_000_000L, "applied within 50 ms of plan: " + lag + " ns");
            assertTrue(a.getDoneNs() >= a.getAppliedNs());
        }
        assertEquals("pause", applied.get(0).getStep().getAction());
        f.stop();
    }

    @Test
    void aTargetOrActionItWasNotGivenIsRefusedAtSetUp() {
        FaultTargets given = FaultTargets.parse(List.of("node1=" + pidFile));
        SpecException other = assertThrows(SpecException.class,
                () -> FaultInjector.of(given, spec("100:pause:node2", "200:resume:node2")));
        assertTrue(other.getMessage().contains("node2"), other.getMessage());
        SpecException restart = assertThrows(SpecException.class,
                () -> FaultInjector.of(given, spec("100:restart:node1")));
        assertTrue(restart.getMessage().contains("no restart command"), restart.getMessage());
        assertThrows(SpecException.class, () -> FaultInjector.of(FaultTargets.NONE, spec("100:pause:node1")));
    }

    @Test
    void aTargetLeftPausedIsResumedWhenItStops() throws Exception {
        FaultInjector f = FaultInjector.of(FaultTargets.parse(List.of("node1=" + pidFile)), spec("10:pause:node1"));
        f.start(System.nanoTime());
        Thread.sleep(200);
        assertEquals('T', state());
        f.stop();
        Thread.sleep(50);
        assertTrue(state() != 'T', "resumed: " + state());
    }

    @Test
    void killAndRestartRunWhatTheyWereGiven() throws Exception {
        Path marker = tmp.resolve("restarted");
        FaultInjector f = FaultInjector.of(FaultTargets.parse(List.of("node1=" + pidFile,
                "node1=restart:touch " + marker)), spec("10:kill:node1", "50:restart:node1"));
        f.start(System.nanoTime());
        assertTrue(victim.waitFor(5, TimeUnit.SECONDS), "killed");
        assertEquals(137, victim.exitValue());
        Thread.sleep(500);
        assertTrue(Files.exists(marker), "the restart command ran");
        assertEquals(2, f.applied().size());
        assertEquals("", f.applied().get(1).getError());
        f.stop();
    }

    /** A restart command still running when the run ends was applied, not failed: its end is unknown (done 0). */
    @Test
    void aRestartStillRunningWhenTheRunEndsWasAppliedAndRunsOn() throws Exception {
        Path marker = tmp.resolve("booted");
        FaultInjector f = FaultInjector.of(FaultTargets.parse(List.of("node1=restart:sleep 1; touch " + marker)),
                spec("10:restart:node1"));
        f.start(System.nanoTime());
        Thread.sleep(300);
        f.stop();
        assertEquals(1, f.applied().size());
        assertEquals("", f.applied().get(0).getError());
        assertTrue(f.applied().get(0).getAppliedNs() > 0);
        assertEquals(0, f.applied().get(0).getDoneNs());
        Thread.sleep(1_500);
        assertTrue(Files.exists(marker), "the command ran on after the run ended");
    }

    /** A fault that fell due while a restart command ran is not applied once the run has ended. */
    @Test
    void aFaultOverdueWhenTheRunEndsIsNotAppliedAfterIt() throws Exception {
        FaultInjector f = FaultInjector.of(FaultTargets.parse(List.of("node1=restart:sleep 2", "node2=" + pidFile)),
                spec("10:restart:node1", "20:pause:node2"));
        f.start(System.nanoTime());
        Thread.sleep(300); // the pause is overdue, waiting behind the restart command
        f.stop();
        Thread.sleep(100);
        assertEquals(1, f.applied().size(), f.applied()::toString);
        assertTrue(state() != 'T', "the overdue pause was not sent: " + state());
    }
}

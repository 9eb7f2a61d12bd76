package io.msgscope.core.fault;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultPlanTest {
    private static final long S = 1_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void theShorthandParsesInTimeOrderAndBack() {
        FaultPlan p = FaultPlan.parse("--faults", "15s:resume:node1, 10s:pause:node1, 1.5s:pause:n2, 1750ms:resume:n2");
        assertEquals(List.of(new FaultStep(3 * S / 2, FaultAction.PAUSE, "n2"),
                new FaultStep(1_750_000_000L, FaultAction.RESUME, "n2"),
                new FaultStep(10 * S, FaultAction.PAUSE, "node1"),
                new FaultStep(15 * S, FaultAction.RESUME, "node1")), p.steps());
        assertEquals("1.5s:pause:n2, 1.75s:resume:n2, 10s:pause:node1, 15s:resume:node1", p.shorthand());
        assertEquals(p.steps(), FaultPlan.parse("--faults", p.shorthand()).steps());
        assertEquals(List.of("n2", "node1"), p.targets());
        p.check("--faults", 20 * S, false);
    }

    @Test
    void badPlansAreRefusedNamingTheOptionAndTheStep() {
        assertTrue(refused("10s:explode:node1", 20 * S).contains("'explode' is not a fault action"));
        assertTrue(refused("10s-pause-node1", 20 * S).contains("TIME:ACTION:TARGET"));
        assertTrue(refused("10s:pause:node1, 30s:resume:node1", 20 * S).contains("after the run's end"));
        assertTrue(refused("10s:resume:node1", 20 * S).contains("not paused"));
        assertTrue(refused("1s:pause:a, 2s:pause:a, 3s:resume:a", 20 * S).contains("while it is paused"));
        assertTrue(refused("1s:pause:a", 20 * S).contains("never resumed"));
        assertTrue(refused("1s:kill:a", 20 * S).contains("reconnect"));
        assertTrue(refused("1s:restart:a", 20 * S).contains("reconnect"));
        assertTrue(refused("1s:pause:a, 2s:resume:a", null).contains("--rate or --phases"));
        // with reconnecting clients a kill is fine, and a kill ends a pause
        FaultPlan.parse("--faults", "1s:pause:a, 2s:kill:a").check("--faults", 20 * S, true);
        // issue 32 item 3: the driver's reason is the refusal's; none (null) is a driver whose clients reconnect
        SpecException e = assertThrows(SpecException.class, () -> FaultPlan.parse("--faults", "1s:kill:a")
                .check("--faults", 20 * S, "the x clients do not reconnect without --opt reconnect=true"));
        assertEquals("--faults: '1s:kill:a' ends the clients' connections and the x clients do not reconnect "
                + "without --opt reconnect=true; or use pause/resume", e.getMessage());
        FaultPlan.parse("--faults", "1s:kill:a, 2s:restart:a").check("--faults", 20 * S, (String) null);
    }

    private static String refused(String text, Long runNs) {
        SpecException e = assertThrows(SpecException.class, () -> FaultPlan.parse("--faults", text)
                .check("--faults", runNs, false));
        assertEquals("--faults", e.option());
        return e.getMessage();
    }

    @Test
    void targetsAllowOnlyWhatTheyWereGiven() throws Exception {
        Path pidFile = tmp.resolve("b.pid");
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        FaultTargets t = FaultTargets.parse(List.of("node1=" + pidFile, "node1=restart:systemctl restart nats",
                "node2=pid:" + ProcessHandle.current().pid()));
        assertEquals(List.of("node1", "node2"), t.names());
        assertEquals(ProcessHandle.current().pid(), t.get("node1").currentPid());
        t.check("--faults", FaultPlan.parse("--faults", "1s:pause:node1, 2s:resume:node1, 3s:pause:node2"));
        SpecException other = assertThrows(SpecException.class,
                () -> t.check("--faults", FaultPlan.parse("--faults", "1s:pause:node3")));
        assertTrue(other.getMessage().contains("target 'node3' was not given"), other.getMessage());
        assertTrue(other.getMessage().contains("node1, node2"), other.getMessage());
        SpecException noCommand = assertThrows(SpecException.class,
                () -> t.check("--faults", FaultPlan.parse("--faults", "1s:restart:node2")));
        assertTrue(noCommand.getMessage().contains("no restart command for node2"), noCommand.getMessage());
        assertEquals(List.of("node1=" + pidFile, "node1=restart:systemctl restart nats",
                "node2=pid:" + ProcessHandle.current().pid()), t.arguments());
        for (String bad : List.of("node1", "=x", "a=pid:-3", "a=restart:")) {
            SpecException e = assertThrows(SpecException.class, () -> FaultTargets.parse(List.of(bad)));
            assertEquals(FaultTargets.OPTION, e.option());
        }
    }
}

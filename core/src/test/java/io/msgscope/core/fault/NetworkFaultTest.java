package io.msgscope.core.fault;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** partition, heal and degrade (issue 32 item 1): the shorthand, the plan's checks and the netns targets. */
class NetworkFaultTest {
    private static final long S = 1_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void degradeCarriesItsRateAndReadsBack() {
        FaultPlan p = FaultPlan.parse("--faults", "1s:partition:n2, 2s:heal:n2, 3s:degrade:n2:rate=1.5mbit, 4s:heal:n2");
        assertEquals(List.of(new FaultStep(S, FaultAction.PARTITION, "n2"), new FaultStep(2 * S, FaultAction.HEAL, "n2"),
                new FaultStep(3 * S, FaultAction.DEGRADE, "n2", "rate=1.5mbit"),
                new FaultStep(4 * S, FaultAction.HEAL, "n2")), p.steps());
        assertEquals("1s:partition:n2, 2s:heal:n2, 3s:degrade:n2:rate=1.5mbit, 4s:heal:n2", p.shorthand());
        assertEquals(p.steps(), FaultPlan.parse("--faults", p.shorthand()).steps());
        p.check("--faults", 5 * S, false); // no reconnect needed: the connections stall, the kernel keeps them
        // a pause inside a partition of the same node is allowed: the two are apart
        FaultPlan.parse("--faults", "1s:partition:n2, 2s:pause:n2, 3s:resume:n2, 4s:heal:n2").check("--faults", 5 * S, false);
        assertTrue(FaultAction.HEAL.undoes() && FaultAction.RESUME.undoes() && !FaultAction.PARTITION.undoes());
        assertEquals(0, Signals.of(FaultAction.PARTITION));
    }

    @Test
    void badNetworkPlansAreRefusedNamingTheStep() {
        assertTrue(refused("1s:heal:n2").contains("neither partitioned nor degraded"), refused("1s:heal:n2"));
        assertTrue(refused("1s:partition:n2").contains("'1s:partition:n2' is never healed"));
        assertTrue(refused("1s:partition:n2, 2s:degrade:n2:rate=1mbit, 3s:heal:n2").contains("heal n2 first"));
        assertTrue(refused("1s:degrade:n2, 2s:heal:n2").contains("needs its rate"));
        assertTrue(refused("1s:degrade:n2:rate=fast, 2s:heal:n2").contains("needs its rate"));
        assertTrue(refused("1s:degrade:n2:rate=0mbit, 2s:heal:n2").contains("needs its rate"));
        assertTrue(refused("1s:pause:n2:rate=1mbit, 2s:resume:n2").contains("only degrade takes a fourth field"));
        assertTrue(refused("1s:partition:n2, 9s:heal:n2").contains("after the run's end"));
    }

    private static String refused(String text) {
        SpecException e = assertThrows(SpecException.class, () -> FaultPlan.parse("--faults", text)
                .check("--faults", 5 * S, false));
        assertEquals("--faults", e.option());
        return e.getMessage();
    }

    @Test
    void aNetnsTargetAllowsOnlyTheNetworkActions() throws Exception {
        Path pidFile = tmp.resolve("b.pid");
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        FaultTargets t = FaultTargets.parse(List.of("n1=" + pidFile, "n2=netns:msc-broker/msc-b0", "n3=netns:lab3"));
        FaultTargets.Target n2 = t.get("n2");
        assertEquals("msc-broker", n2.netns());
        assertEquals("msc-b0", n2.device());
        assertNull(t.get("n3").device());
        assertTrue(n2.allows(FaultAction.PARTITION) && n2.allows(FaultAction.HEAL) && n2.allows(FaultAction.DEGRADE));
        assertTrue(!n2.allows(FaultAction.PAUSE) && !t.get("n1").allows(FaultAction.PARTITION));
        assertEquals(List.of("n1=" + pidFile, "n2=netns:msc-broker/msc-b0", "n3=netns:lab3"), t.arguments());
        // partition of a target given as a process only: refused at set-up, naming what is missing
        SpecException e = assertThrows(SpecException.class, () -> t.check("--faults",
                FaultPlan.parse("--faults", "1s:partition:n1, 2s:heal:n1")));
        assertEquals("--faults: '1s:partition:n1': the broker-probe agent was given no network namespace "
                + "(NAME=netns:NS) for n1; refused", e.getMessage());
        // a namespace that does not exist on the agent's host
        String ns = "msgscope-no-such-ns-" + ProcessHandle.current().pid();
        FaultTargets missing = FaultTargets.parse(List.of("n4=netns:" + ns));
        assertTrue(assertThrows(SpecException.class, () -> missing.check("--faults", FaultPlan.parse("--faults",
                "1s:partition:n4, 2s:heal:n4"))).getMessage().contains("no network namespace '" + ns + "'"));
    }

    @Test
    void badNetnsTargetsNameTheOption() {
        for (String bad : List.of("n2=netns:", "n2=netns:a/b/c", "n2=netns:a b", "n2=netns:ns/averyveryverylongname")) {
            SpecException e = assertThrows(SpecException.class, () -> FaultTargets.parse(List.of(bad)), bad);
            assertEquals(FaultTargets.OPTION, e.option());
        }
        assertTrue(assertThrows(SpecException.class, () -> FaultTargets.parse(List.of("n2=netns:a", "n2=netns:b")))
                .getMessage().contains("has a network namespace already"));
    }
}

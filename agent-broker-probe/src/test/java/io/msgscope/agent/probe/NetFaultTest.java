package io.msgscope.agent.probe;

import io.msgscope.core.SpecException;
import io.msgscope.core.fault.FaultTargets;
import io.msgscope.proto.FaultStep;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** degrade's tc settings from its rate (issue 32), and the agent's own check of what a coordinator sent. */
class NetFaultTest {
    @Test
    void theBucketHoldsTenMillisecondsAtTheRateAndAtLeastOneFrame() {
        assertEquals("1mbit", NetFault.tcRate("rate=1mbit"));
        assertEquals("2.5gbit", NetFault.tcRate("rate=2.5gbit"));
        assertEquals(1_600, NetFault.burstBytes("rate=1mbit"));       // 1e6 / 8 / 100 = 1,250 -> the floor
        assertEquals(125_000, NetFault.burstBytes("rate=100mbit"));   // 1e8 / 8 / 100
        assertEquals(1_250_000, NetFault.burstBytes("rate=1gbit"));
        assertEquals(1_600, NetFault.burstBytes("rate=800bit"));
    }

    private static RunSpec spec(String action, String target, String arg) {
        return RunSpec.newBuilder().addFaults(FaultStep.newBuilder().setAtNs(1_000_000_000L).setAction(action)
                .setTarget(target).setArg(arg)).addFaults(FaultStep.newBuilder().setAtNs(2_000_000_000L)
                .setAction("heal").setTarget(target)).build();
    }

    @Test
    void theAgentRefusesWhatItWasNotGivenWhateverTheCoordinatorSends() {
        FaultTargets given = FaultTargets.parse(List.of("n2=netns:msgscope-no-such-ns-" + ProcessHandle.current().pid()));
        // a rate that is not one (it would go to tc as an argument): refused before anything runs
        SpecException e = assertThrows(SpecException.class, () -> FaultInjector.of(given,
                spec("degrade", "n2", "rate=1mbit;reboot")));
        assertTrue(e.getMessage().contains("needs its rate"), e.getMessage());
        // a network action on a target the agent was not given
        e = assertThrows(SpecException.class, () -> FaultInjector.of(given, spec("partition", "n3", "")));
        assertTrue(e.getMessage().contains("target 'n3' was not given to the broker-probe agent"), e.getMessage());
        // the namespace it was given is not on this host
        e = assertThrows(SpecException.class, () -> FaultInjector.of(given, spec("partition", "n2", "")));
        assertTrue(e.getMessage().contains("no network namespace"), e.getMessage());
    }
}

package io.msgscope.coordinator.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CorePlanTest {

    private static void assertCores(CorePlan p, int sender, int receiver, int relay) {
        assertEquals(sender, p.sender(), "sender core");
        assertEquals(receiver, p.receiver(), "receiver core");
        assertEquals(relay, p.relay(), "relay core");
    }

    private static void assertOneM5Warning(CorePlan p, String mentions) {
        assertEquals(1, p.warnings().size(), p.warnings().toString());
        String w = p.warnings().get(0);
        assertTrue(w.contains("M5"), w);
        assertTrue(w.contains(mentions), w);
    }

    @Test
    void oneCorePinsNothing() {
        CorePlan p = CorePlan.plan(1, true);
        assertCores(p, -1, -1, -1);
        assertOneM5Warning(p, "1 core");
    }

    @Test
    void twoCoresPinSenderAndReceiverOnly() {
        CorePlan p = CorePlan.plan(2, true);
        assertCores(p, 0, 1, -1);
        assertOneM5Warning(p, "2 cores");
    }

    @Test
    void threeCoresPinEachRole() {
        CorePlan p = CorePlan.plan(3, true);
        assertCores(p, 0, 1, 2);
        assertTrue(p.warnings().isEmpty(), p.warnings().toString());
    }

    @Test
    void eightCoresPinTheFirstThree() {
        CorePlan p = CorePlan.plan(8, true);
        assertCores(p, 0, 1, 2);
        assertTrue(p.warnings().isEmpty(), p.warnings().toString());
    }

    @Test
    void pinningOffPinsNothingWhateverTheCores() {
        for (int cores : new int[] {1, 2, 3, 8}) {
            CorePlan p = CorePlan.plan(cores, false);
            assertCores(p, -1, -1, -1);
            assertOneM5Warning(p, "--no-pin");
            assertTrue(p.warnings().get(0).contains(cores + " cores"), p.warnings().get(0));
        }
    }

    @Test
    void aLocalBrokerOnTwoCoresLeavesTheRolesUnpinnedUnlessPinIsGiven() {
        CorePlan auto = CorePlan.plan(2, null, "127.0.0.1");
        assertCores(auto, -1, -1, -1);
        assertOneM5Warning(auto, "also runs the broker (127.0.0.1)");
        assertTrue(CorePlan.unpinnedForBroker(2, null, "127.0.0.1"));
        assertCores(CorePlan.plan(2, true, "127.0.0.1"), 0, 1, -1);   // --pin pins anyway
        assertCores(CorePlan.plan(2, null, null), 0, 1, -1);          // no broker here: as before
        assertCores(CorePlan.plan(3, null, "127.0.0.1"), 0, 1, 2);    // a core is left for the broker
        assertCores(CorePlan.plan(2, false, "127.0.0.1"), -1, -1, -1);
        assertTrue(CorePlan.plan(2, false, "127.0.0.1").warnings().get(0).contains("--no-pin"));
    }

    @Test
    void withoutARelayTwoCoresAreOneEachForSenderAndReceiverAndNoWarningMentionsARelay() {
        CorePlan direct = CorePlan.plan(2, null, null, false); // tcp --opt via=direct
        assertCores(direct, 0, 1, -1);
        assertTrue(direct.warnings().isEmpty(), direct.warnings().toString());
        CorePlan off = CorePlan.plan(2, false, null, false);
        assertOneM5Warning(off, "sender and receiver float");
        assertTrue(!off.warnings().get(0).contains("relay"), off.warnings().get(0));
        assertOneM5Warning(CorePlan.plan(1, true, null, false), "sender and receiver share it");
        assertOneM5Warning(CorePlan.plan(2, null, null, true), "the relay shares them"); // via=relay: as before
    }

    @Test
    void onlyAddressesOfThisMachineAreLocal() {
        assertEquals("127.0.0.1", CorePlan.onThisMachine("127.0.0.1"));
        assertEquals("localhost", CorePlan.onThisMachine("localhost"));
        assertEquals(null, CorePlan.onThisMachine("192.0.2.1")); // TEST-NET-1: nobody's
        assertEquals(null, CorePlan.onThisMachine(null));
        assertEquals(null, CorePlan.onThisMachine(""));
    }
}

package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.agents.CorePlan;
import io.msgscope.coordinator.agents.RemoteAgents;
import io.msgscope.core.driver.Driver;
import io.msgscope.proto.Role;
import picocli.CommandLine.Option;

/**
 * {@code --[no-]pin} of {@code run} and {@code throughput} (D3, M5): pin the sender's and the
 * receiver's hot threads (and the relay's when a core is free). Left out, msgscope decides: pinned,
 * except when the broker runs on this machine and it has fewer than three cores, where pinning both
 * roles leaves the broker no core of its own ({@link CorePlan#plan(int, Boolean, String)}).
 */
public final class PinOption {
    @Option(names = "--pin", negatable = true, fallbackValue = "true",
            description = "Pin sender and receiver (and relay when a core is free) to their own cores (D3, M5); "
                    + "--pin pins always, --no-pin never (default: decide: pinned, except on a machine of 2 "
                    + "cores that also runs the broker, where pinning both would leave the broker no core).")
    Boolean pin;

    /** The broker's host when the broker, the sender and the receiver all run on this machine, else null. */
    static String localBroker(Driver drv, DriverOptions d, RemoteAgents remote) {
        if (remote.given(Role.SENDER) || remote.given(Role.RECEIVER)) {
            return null; // pinning happens on the agents' own machines
        }
        return CorePlan.onThisMachine(drv.brokerHost(d.uri(), d.options()));
    }

    /** Which core each role gets here. */
    CorePlan plan(Driver drv, DriverOptions d, RemoteAgents remote) {
        return CorePlan.plan(Runtime.getRuntime().availableProcessors(), pin, localBroker(drv, d, remote),
                drv.usesRelay(d.options()));
    }

    /** Whether the roles are pinned at all (the run spec's {@code pin}, in summary.json). */
    boolean pinned(Driver drv, DriverOptions d, RemoteAgents remote) {
        return !Boolean.FALSE.equals(pin) && !CorePlan.unpinnedForBroker(Runtime.getRuntime().availableProcessors(),
                pin, localBroker(drv, d, remote));
    }
}

package io.msgscope.coordinator;

import java.util.ArrayList;
import java.util.List;

/**
 * Which core each role's hot thread is pinned to (D3, M5): one core each for sender, receiver and
 * relay when the box has three; sender and receiver only when it has two (the relay floats, and
 * the result says so); nothing when pinning is off or the box has one core.
 *
 * @param sender   core for the sender, -1 = not pinned
 * @param receiver core for the receiver, -1 = not pinned
 * @param relay    core for the relay, -1 = not pinned
 */
public record CorePlan(int sender, int receiver, int relay, List<String> warnings) {

    /** The sidecar probe's core: its own when a fourth core is free (M5), else none (it sleeps between samples). */
    public int probe(int cores) {
        return relay >= 0 && cores >= 4 ? 3 : -1;
    }

    public static CorePlan plan(int cores, boolean pin) {
        List<String> warnings = new ArrayList<>();
        if (!pin) {
            warnings.add("pinning disabled (--no-pin): sender, relay and receiver float over " + cores
                    + " cores (M5 wants one dedicated core each)");
            return new CorePlan(-1, -1, -1, warnings);
        }
        if (cores >= 3) {
            return new CorePlan(0, 1, 2, warnings);
        }
        if (cores == 2) {
            warnings.add("this machine has 2 cores: sender pinned to core 0 and receiver to core 1, the relay "
                    + "shares them (M5 wants one dedicated core each for sender, relay and receiver)");
            return new CorePlan(0, 1, -1, warnings);
        }
        warnings.add("this machine has 1 core: sender, relay and receiver share it; nothing pinned (M5)");
        return new CorePlan(-1, -1, -1, warnings);
    }
}

package io.msgscope.coordinator.agents;

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

    /** Whether {@link #plan(int, Boolean, String)} leaves the roles unpinned to give a local broker room. */
    public static boolean unpinnedForBroker(int cores, Boolean pin, String localBroker) {
        return pin == null && localBroker != null && cores > 1 && cores < 3;
    }

    /**
     * {@code host} when it names this machine (loopback, the wildcard or one of its interfaces' addresses),
     * else null; null for null, and for a name that does not resolve.
     */
    public static String onThisMachine(String host) {
        if (host == null || host.isEmpty()) {
            return null;
        }
        try {
            java.net.InetAddress a = java.net.InetAddress.getByName(host);
            boolean local = a.isLoopbackAddress() || a.isAnyLocalAddress()
                    || java.net.NetworkInterface.getByInetAddress(a) != null;
            return local ? host : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    /** The sidecar probe's core: its own when a fourth core is free (M5), else none (it sleeps between samples). */
    public int probe(int cores) {
        return relay >= 0 && cores >= 4 ? 3 : -1;
    }

    public static CorePlan plan(int cores, boolean pin) {
        return plan(cores, pin, null);
    }

    /**
     * As {@link #plan(int, boolean)}, with {@code pin} null meaning "decide": pinned, except when
     * {@code localBroker} (the broker's address, null when it is not on this machine) shares a box of
     * fewer than three cores. Pinning sender and receiver to both cores there leaves the broker no
     * core of its own; on the 2-core box it cut Mosquitto's QoS 0 throughput from 94-111 k to
     * 55-67 k msg/s. An explicit {@code --pin} pins anyway.
     */
    public static CorePlan plan(int cores, Boolean pin, String localBroker) {
        return plan(cores, pin, localBroker, true);
    }

    /**
     * As {@link #plan(int, Boolean, String)}; {@code relay} false when no relay agent runs (the tcp driver's
     * {@code via=direct}, broker drivers): the warnings then speak of sender and receiver only, and two cores
     * are one each for them, which is all M5 asks of a run without a middle box on this machine.
     */
    public static CorePlan plan(int cores, Boolean pin, String localBroker, boolean relay) {
        List<String> warnings = new ArrayList<>();
        if (unpinnedForBroker(cores, pin, localBroker)) {
            warnings.add("this machine has " + cores + " cores and also runs the broker (" + localBroker
                    + "): sender and receiver not pinned, so the broker is not squeezed onto their cores (M5 wants "
                    + "one dedicated core each; --pin pins them anyway)");
            return new CorePlan(-1, -1, -1, warnings);
        }
        String roles = relay ? "sender, relay and receiver" : "sender and receiver";
        if (pin != null && !pin) {
            warnings.add("pinning disabled (--no-pin): " + roles + " float over " + cores
                    + " cores (M5 wants one dedicated core each)");
            return new CorePlan(-1, -1, -1, warnings);
        }
        if (cores >= 3) {
            return new CorePlan(0, 1, 2, warnings);
        }
        if (cores == 2) {
            if (relay) {
                warnings.add("this machine has 2 cores: sender pinned to core 0 and receiver to core 1, the relay "
                        + "shares them (M5 wants one dedicated core each for sender, relay and receiver)");
            }
            return new CorePlan(0, 1, -1, warnings);
        }
        warnings.add("this machine has 1 core: " + roles + " share it; nothing pinned (M5)");
        return new CorePlan(-1, -1, -1, warnings);
    }
}

package io.msgscope.coordinator.agents;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlHub;
import io.msgscope.core.clock.OffsetFit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Follows the epoch-clock offset of every cross-host pair of agents that a latency compares (issue 33 item 1): a
 * sender's stamps against a receiver's clock. Between the coordinator's polls it probes each agent of those pairs
 * every {@link #PROBE_EVERY_MS} ms over the control channel — a burst of {@link #BURST} ping-pongs, the one with the
 * smallest round trip kept (min-RTT filter) — and records the pair's offset (sender − receiver, the two probes
 * subtracted: the coordinator's own clock cancels) with the sum of the two round trips. {@link #track} keeps the
 * fastest probe of each {@link #FILTER_MS} ms and fits each pair's series ({@link OffsetFit}). Probes run on the coordinator's thread between its queries, never beside them.
 * In trace mode ({@link #monotonic}) the pair's monotonic clocks are followed instead, on the receiver's clock.
 */
public final class ClockTracker {
    public static final long PROBE_EVERY_MS = 250;
    public static final int BURST = 3;
    /** The min-RTT filter's interval: of the probes in each, the fastest is fitted. */
    public static final long FILTER_MS = 1000;
    /** Steps smaller than this are not looked for (below it they are drift or noise). */
    public static final long MIN_STEP_NS = 100_000;

    /** A sender's agent and a receiver's, on two boxes. */
    public record Pair(AgentLink sender, AgentLink receiver) {
        public String name() {
            return sender.name() + " -> " + receiver.name();
        }
    }

    private final ControlHub hub;
    private final ClockErrorLimit limit;
    /**
     * Trace mode (issue 33 item 3): the agents' monotonic clocks (O_n, I_n) rather than their epoch clocks, and each
     * sample's time on the receiver's clock, so that a message's own receive stamp finds its offset.
     */
    private final boolean onReceiverClock;
    /** Each probed agent's fastest probe: its monotonic clock against the coordinator's, to within half its round trip. */
    private final Map<AgentLink, ClockOffset.Probe> fastest = new LinkedHashMap<>();
    private final List<Pair> pairs = new ArrayList<>();
    private final int allPairs;
    private final Map<Pair, List<OffsetFit.Sample>> samples = new LinkedHashMap<>();
    private final long anchorNs = System.nanoTime();
    private final long anchorEpochMs = System.currentTimeMillis();
    private long lastProbeNs = Long.MIN_VALUE;

    /** Every sender × receiver pair, {@code limit} the run's {@code --max-clock-error} on two boxes (by boot id, R1; an unknown id counts as another box). */
    public ClockTracker(ControlHub hub, List<AgentLink> senders, List<AgentLink> receivers, ClockErrorLimit limit) {
        this(hub, senders, receivers, limit, false);
    }

    /**
     * A trace run's one sender → receiver pair (issue 33 item 3), on their monotonic clocks: active when the two are
     * not known to share a boot; the fit's time axis is the receiver's clock.
     */
    public static ClockTracker monotonic(ControlHub hub, AgentLink sender, AgentLink receiver, ClockErrorLimit limit) {
        return new ClockTracker(hub, List.of(sender), List.of(receiver), limit, true);
    }

    private ClockTracker(ControlHub hub, List<AgentLink> senders, List<AgentLink> receivers, ClockErrorLimit limit,
                         boolean onReceiverClock) {
        this.hub = hub;
        this.limit = limit;
        this.onReceiverClock = onReceiverClock;
        this.allPairs = senders.size() * receivers.size();
        for (AgentLink s : senders) {
            for (AgentLink r : receivers) {
                if (!sameBox(s, r)) {
                    Pair p = new Pair(s, r);
                    pairs.add(p);
                    samples.put(p, new ArrayList<>());
                }
            }
        }
    }

    /** True only when both boot ids are known and equal: one CLOCK_MONOTONIC (R1). */
    public static boolean sameBox(AgentLink a, AgentLink b) {
        return sameBoot(a.helloAck().getEnvironment().getBootId(), b.helloAck().getEnvironment().getBootId());
    }

    /** Two boot ids name one boot: both known and equal (an unknown id proves nothing: another box). */
    public static boolean sameBoot(String a, String b) {
        return !a.isEmpty() && a.equals(b);
    }

    /** True when some pair is cross-host: only then is anything probed. */
    public boolean active() {
        return !pairs.isEmpty();
    }

    /** One probe of every agent of the cross-host pairs; each pair gets one sample. */
    public void probe() throws AgentFailure {
        Set<AgentLink> agents = new LinkedHashSet<>();
        pairs.forEach(p -> {
            agents.add(p.sender());
            agents.add(p.receiver());
        });
        Map<AgentLink, ClockOffset.Probe> got = new LinkedHashMap<>();
        for (AgentLink a : agents) {
            ClockOffset.Probe p = ClockOffset.probe(hub, a, BURST, !onReceiverClock);
            got.put(a, p);
            fastest.merge(a, p, (was, now) -> now.rttNs() < was.rttNs() ? now : was);
        }
        for (Pair p : pairs) {
            ClockOffset.Probe s = got.get(p.sender());
            ClockOffset.Probe r = got.get(p.receiver());
            // on the receiver's clock: its own reading at the probe (the coordinator's midpoint + its offset)
            long at = onReceiverClock ? r.atNs() + r.offsetNs() : (s.atNs() + r.atNs()) / 2;
            samples.get(p).add(new OffsetFit.Sample(at, s.offsetNs() - r.offsetNs(), s.rttNs() + r.rttNs()));
        }
        lastProbeNs = System.nanoTime();
    }

    /** A probe when {@link #PROBE_EVERY_MS} ms have passed since the last one (and some pair is cross-host). */
    public void probeIfDue() throws AgentFailure {
        if (active() && (lastProbeNs == Long.MIN_VALUE
                || System.nanoTime() - lastProbeNs >= PROBE_EVERY_MS * 1_000_000L)) {
            probe();
        }
    }

    /** Waits until {@code dueNs} (System.nanoTime), probing every {@link #PROBE_EVERY_MS} ms meanwhile when active. */
    public void sleepUntil(long dueNs) throws AgentFailure, InterruptedException {
        while (true) {
            long now = System.nanoTime();
            long next = !active() ? Long.MAX_VALUE
                    : lastProbeNs == Long.MIN_VALUE ? now : lastProbeNs + PROBE_EVERY_MS * 1_000_000L;
            if (next >= dueNs) {
                sleep(dueNs - now);
                return;
            }
            sleep(next - now);
            probe();
        }
    }

    private static void sleep(long ns) throws InterruptedException {
        if (ns > 0) {
            Thread.sleep(ns / 1_000_000, (int) (ns % 1_000_000));
        }
    }

    /** Each pair's samples as fitted (after the min-RTT filter), for pairs with any; by pair name. */
    public Map<String, List<OffsetFit.Sample>> fitted() {
        Map<String, List<OffsetFit.Sample>> out = new LinkedHashMap<>();
        samples.forEach((p, s) -> {
            if (!s.isEmpty()) {
                out.put(p.name(), OffsetFit.minRttPerInterval(s, FILTER_MS * 1_000_000L));
            }
        });
        return out;
    }

    /** The fitted pairs (those with samples), on the coordinator's clock with its epoch anchor. */
    public ClockTrack track() {
        Map<String, OffsetFit> fits = new LinkedHashMap<>();
        fitted().forEach((name, s) -> fits.put(name, OffsetFit.of(s, MIN_STEP_NS)));
        List<String> hooked = new ArrayList<>();
        for (Pair p : pairs) {
            for (AgentLink a : List.of(p.sender(), p.receiver())) {
                if (a.helloAck().getEnvironment().getBootId().endsWith(io.msgscope.core.clock.ClockShift.BOOT_ID_SUFFIX)
                        && !hooked.contains(a.name())) {
                    hooked.add(a.name());
                }
            }
        }
        long anchor = anchorNs;
        if (onReceiverClock && !pairs.isEmpty() && fastest.containsKey(pairs.get(0).receiver())) {
            anchor += fastest.get(pairs.get(0).receiver()).offsetNs(); // the fit's axis is the receiver's clock
        }
        return new ClockTrack(fits, allPairs, anchor, anchorEpochMs, hooked, limit);
    }
}

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
    private final List<Pair> pairs = new ArrayList<>();
    private final int allPairs;
    private final Map<Pair, List<OffsetFit.Sample>> samples = new LinkedHashMap<>();
    private final long anchorNs = System.nanoTime();
    private final long anchorEpochMs = System.currentTimeMillis();
    private long lastProbeNs = Long.MIN_VALUE;

    /** Every sender × receiver pair, {@code limit} the run's {@code --max-clock-error} on two boxes (by boot id, R1; an unknown id counts as another box). */
    public ClockTracker(ControlHub hub, List<AgentLink> senders, List<AgentLink> receivers, ClockErrorLimit limit) {
        this.hub = hub;
        this.limit = limit;
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

    static boolean sameBox(AgentLink a, AgentLink b) {
        String ia = a.helloAck().getEnvironment().getBootId();
        return !ia.isEmpty() && ia.equals(b.helloAck().getEnvironment().getBootId());
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
            got.put(a, ClockOffset.probe(hub, a, BURST, true));
        }
        for (Pair p : pairs) {
            ClockOffset.Probe s = got.get(p.sender());
            ClockOffset.Probe r = got.get(p.receiver());
            samples.get(p).add(new OffsetFit.Sample((s.atNs() + r.atNs()) / 2, s.offsetNs() - r.offsetNs(),
                    s.rttNs() + r.rttNs()));
        }
        lastProbeNs = System.nanoTime();
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

    /** The fitted pairs (those with samples), on the coordinator's clock with its epoch anchor. */
    public ClockTrack track() {
        Map<String, OffsetFit> fits = new LinkedHashMap<>();
        samples.forEach((p, s) -> {
            if (!s.isEmpty()) {
                fits.put(p.name(), OffsetFit.of(OffsetFit.minRttPerInterval(s, FILTER_MS * 1_000_000L), MIN_STEP_NS));
            }
        });
        List<String> hooked = new ArrayList<>();
        for (Pair p : pairs) {
            for (AgentLink a : List.of(p.sender(), p.receiver())) {
                if (a.helloAck().getEnvironment().getBootId().endsWith(io.msgscope.core.clock.ClockShift.BOOT_ID_SUFFIX)
                        && !hooked.contains(a.name())) {
                    hooked.add(a.name());
                }
            }
        }
        return new ClockTrack(fits, allPairs, anchorNs, anchorEpochMs, hooked, limit);
    }
}

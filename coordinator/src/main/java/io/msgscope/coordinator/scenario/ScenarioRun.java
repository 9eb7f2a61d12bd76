package io.msgscope.coordinator.scenario;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.AgentLink;
import io.msgscope.control.ControlCodec;
import io.msgscope.control.ControlHub;
import io.msgscope.coordinator.LocalAgents;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Go;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one scenario (seed 002) with a publishers agent and a subscribers agent on this box: spec
 * handshake, set-up (subscribers first, so no message finds an empty topic), warm-up, explicit reset,
 * measurement with a progress poll every second (the per-second series), in-flight wait (up to 5 s,
 * Q9), final histograms.
 */
public final class ScenarioRun {
    /** What the run asks for. */
    public record Config(Scenario scenario, String driver, String uri, Map<String, String> options, int publishers,
                         int subscribers, double rate, long warmupMs, long durationMs, int size, boolean randomPadding,
                         long seed) {
    }

    /** What the run measured. */
    public static final class Outcome {
        public String failure;
        public boolean usage;
        public long sent;
        public Map<String, Long> counters = new HashMap<>();
        public Histogram latency;
        public Histogram intended;
        public final java.util.List<ScenarioResult.Second> seconds = new java.util.ArrayList<>();
        public boolean inFlightTimedOut;
        public long drainMs;
    }

    private final Config cfg;
    private final ProgressLine progress;

    public ScenarioRun(Config cfg, ProgressLine progress) {
        this.cfg = cfg;
        this.progress = progress;
    }

    public Outcome run(Path dir, List<String> jvmArgs) {
        return run(dir, jvmArgs, java.util.Map.of(), null);
    }

    /**
     * @param remote agent daemons to use instead of local ones (issue 6), by role
     * @param secret the shared secret those agents require, or null
     */
    public Outcome run(Path dir, List<String> jvmArgs, java.util.Map<Role, io.msgscope.coordinator.AgentEndpoint> remote,
                       io.msgscope.control.SharedSecret secret) {
        Outcome o = new Outcome();
        try (LocalAgents agents = new LocalAgents();
             ControlHub hub = new ControlHub(ControlCodec.DEFAULT_MAX_FRAME, secret)) {
            io.msgscope.coordinator.AgentEndpoint subA = remote.containsKey(Role.SUBSCRIBERS)
                    ? remote.get(Role.SUBSCRIBERS) : agents.start(Role.SUBSCRIBERS, dir, jvmArgs, 30_000);
            io.msgscope.coordinator.AgentEndpoint pubA = remote.containsKey(Role.PUBLISHERS)
                    ? remote.get(Role.PUBLISHERS) : agents.start(Role.PUBLISHERS, dir, jvmArgs, 30_000);
            AgentLink subs = AgentLink.connect(hub, Role.SUBSCRIBERS, subA.host(), subA.port(), 10_000, subA::deathReason);
            AgentLink pubs = AgentLink.connect(hub, Role.PUBLISHERS, pubA.host(), pubA.port(), 10_000, pubA::deathReason);
            String pb = pubs.helloAck().getEnvironment().getBootId();
            String sb = subs.helloAck().getEnvironment().getBootId();
            if (!pb.isEmpty() && !sb.isEmpty() && !pb.equals(sb)) {
                // latency subtracts the publishers' epoch stamps from the subscribers' clock (Q1, R1)
                throw new io.msgscope.control.AgentFailure("publishers and subscribers", "they run on different "
                        + "boxes (boot ids differ); latency compares their clocks, so they must share one box", true);
            }
            RunSpec spec = RunSpec.newBuilder().setRunId(Long.toHexString(cfg.seed())).setSize(cfg.size())
                    .setRate(cfg.rate()).setRandomPadding(cfg.randomPadding()).setSeed(cfg.seed()).setPinCpu(-1)
                    .setDriver(cfg.driver()).setUri(cfg.uri()).putAllDriverOptions(cfg.options()).build();
            ScenarioMiddleBox box = ScenarioMiddleBox.startIfNeeded(cfg, agents, hub, dir, jvmArgs, remote, spec);
            for (AgentLink l : List.of(subs, pubs)) {
                RunSpec own = box == null ? spec : l == subs ? box.forSubscribers(spec) : box.forPublishers(spec);
                l.send(Envelope.newBuilder().setSpec(own).build());
                hub.await(l, 30_000, "the run spec", Envelope.BodyCase.READY);
            }
            boolean mqtt = cfg.driver().equals("mqtt");
            String base = (mqtt ? "msgscope/" : "msgscope.") + cfg.scenario().label() + "-" + Long.toHexString(cfg.seed());
            char sep = mqtt ? '/' : '.';
            ScenarioPlan plan = ScenarioPlan.newBuilder().setScenario(cfg.scenario().label())
                    .addAllPublisherTopics(cfg.scenario().publisherTopics(base, sep, cfg.publishers()))
                    .addAllSubscriberTopics(cfg.scenario().subscriberTopics(base, sep, cfg.subscribers()))
                    .setGroup(cfg.scenario() == Scenario.ROUND_ROBIN ? "msgscope" + Long.toHexString(cfg.seed()) : "")
                    .setRate(cfg.rate()).setWarmupMs(cfg.warmupMs()).setDurationMs(cfg.durationMs()).build();
            query(hub, subs, ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(plan).build(), 60_000);
            query(hub, pubs, ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(plan).build(), 60_000);

            if (cfg.warmupMs() > 0) {
                pubs.send(go(Phase.WARMUP));
                tick(hub, subs, cfg.warmupMs(), "warm-up", null);
                hub.await(pubs, cfg.warmupMs() + 60_000, "the warm-up", Envelope.BodyCase.PHASE_DONE);
            }
            query(hub, subs, kind(ScenarioQuery.Kind.RESET), 10_000);
            query(hub, pubs, kind(ScenarioQuery.Kind.RESET), 10_000);
            if (box != null) {
                box.reset(hub);
            }
            pubs.send(go(Phase.MEASURE));
            tick(hub, subs, cfg.durationMs(), "", o);
            PhaseDone done = hub.await(pubs, cfg.durationMs() + 60_000, "the measurement", Envelope.BodyCase.PHASE_DONE)
                    .getPhaseDone();
            o.sent = done.getSent();
            o.counters.putAll(done.getCountersMap());
            // Q9: publishers stopped; wait up to 5 s for in-flight messages
            long expected = cfg.scenario().expected(o.sent, cfg.subscribers());
            long t0 = System.nanoTime();
            long received = 0;
            while (true) {
                ScenarioReport p = query(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
                received = p.getCountersOrDefault("messages_received", 0);
                long waited = (System.nanoTime() - t0) / 1_000_000;
                if (received >= expected) {
                    break;
                }
                if (waited >= 5_000) {
                    o.inFlightTimedOut = true;
                    break;
                }
                Thread.sleep(100);
            }
            o.drainMs = (System.nanoTime() - t0) / 1_000_000;
            ScenarioReport fin = query(hub, subs, kind(ScenarioQuery.Kind.FINAL), 30_000);
            o.counters.putAll(fin.getCountersMap());
            o.latency = decode(fin.getLatencyHistogram());
            o.intended = decode(fin.getIntendedHistogram());
            ScenarioReport pubFin = query(hub, pubs, kind(ScenarioQuery.Kind.FINAL), 30_000);
            o.counters.putAll(pubFin.getCountersMap());
            if (box != null) {
                o.counters.putAll(box.measured(hub));
            }
            for (AgentLink l : box == null ? List.of(subs, pubs) : List.of(subs, pubs, box.link())) {
                l.send(Envelope.newBuilder().setBye(io.msgscope.proto.Bye.getDefaultInstance()).build());
            }
        } catch (AgentFailure e) {
            o.failure = e.getMessage();
            o.usage = e.usage();
        } catch (Exception e) {
            o.failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        if (progress != null) {
            progress.finish();
        }
        return o;
    }

    /** Polls the subscribers once a second for {@code ms}; records the series when {@code o} is given. */
    private void tick(ControlHub hub, AgentLink subs, long ms, String phase, Outcome o) throws Exception {
        long start = System.nanoTime();
        long total = (ms + 999) / 1000;
        for (long s = 1; s <= total; s++) {
            long due = start + s * 1_000_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            ScenarioReport r = query(hub, subs, kind(ScenarioQuery.Kind.PROGRESS), 10_000);
            Histogram h = decode(r.getLatencyHistogram());
            double secs = r.getIntervalNs() > 0 ? r.getIntervalNs() / 1e9 : 1.0;
            double rate = r.getMessages() / secs;
            long p99 = h.getTotalCount() == 0 ? -1 : h.getValueAtPercentile(99);
            if (o != null) {
                o.seconds.add(new ScenarioResult.Second(s, rate,
                        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 1e3, Math.max(0, p99) / 1e3));
            }
            if (progress != null) {
                progress.update(phase, s, total, rate, p99);
            }
        }
    }

    private static ScenarioReport query(ControlHub hub, AgentLink l, ScenarioQuery q, long timeoutMs) throws AgentFailure {
        l.send(Envelope.newBuilder().setScenarioQuery(q).build());
        return hub.await(l, timeoutMs, "scenario " + q.getKind(), Envelope.BodyCase.SCENARIO_REPORT).getScenarioReport();
    }

    private static ScenarioQuery kind(ScenarioQuery.Kind k) {
        return ScenarioQuery.newBuilder().setKind(k).build();
    }

    private static Envelope go(Phase p) {
        return Envelope.newBuilder().setGo(Go.newBuilder().setPhase(p)).build();
    }

    static Histogram decode(com.google.protobuf.ByteString b) throws java.util.zip.DataFormatException {
        if (b.isEmpty()) {
            return new Histogram(1_000, 10_000_000_000L, 3);
        }
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b.toByteArray()), 0);
    }
}

package io.msgscope.coordinator.trace;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.BacklogAnalysis;
import io.msgscope.analysis.PhaseAnalysis;
import io.msgscope.analysis.SeriesStats;
import io.msgscope.analysis.Trace;
import io.msgscope.coordinator.results.BacklogFiles;
import io.msgscope.coordinator.results.Json;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * summary.json's {@code backlog} and its console lines (issue 31 item 3): one object per backlog episode, a run of
 * phases with the consumers paused and what followed it until the next such run, as {@link BacklogAnalysis} measures
 * it; empty when no phase paused the consumers.
 */
final class BacklogSection {
    /** The file of the broker's reads beside the tool's count, and its plot script. */
    static final String BACKLOG_DAT = BacklogFiles.BACKLOG_DAT;
    static final String BACKLOG_GP = BacklogFiles.BACKLOG_GP;

    /** broker_view's {@code compared_with} where the publisher confirms: a read agrees between the two. */
    static final String CONFIRMED = "confirmed - received .. sent - received";

    private final Timeline timeline;
    private final List<BacklogAnalysis.Episode> episodes;
    private final BrokerView broker; // null: the driver cannot read the broker's backlog, or nothing was read

    /**
     * The broker's backlog reads with the tool's counts at each: times on the trace's clock, the timeline's origin;
     * {@code accepted} confirmed less received (null when the publisher does not confirm), {@code held} what the
     * paused consumer may hold that the broker does not count (-1: no bound).
     */
    record BrokerView(long origin, long[] timeNs, long[] depth, long[] inFlight, long[] accepted, long held,
                      int samples) {
    }

    private BacklogSection(Timeline timeline, List<BacklogAnalysis.Episode> episodes, BrokerView broker) {
        this.timeline = timeline;
        this.episodes = episodes;
        this.broker = broker;
    }

    static BacklogSection of(Timeline timeline, Trace trace, List<PhaseAnalysis.Figures> figures,
                             Map<io.msgscope.proto.Series, long[]> samples) {
        boolean[] paused = new boolean[timeline.phases().size()];
        for (int k = 0; k < paused.length; k++) {
            paused[k] = timeline.phases().get(k).consumersPaused();
        }
        if (!timeline.pausesConsumers()) {
            return new BacklogSection(timeline, List.of(), null);
        }
        long[] t = samples.get(io.msgscope.proto.Series.BACKLOG_SAMPLE_NS);
        long[] d = samples.get(io.msgscope.proto.Series.BACKLOG_DEPTH);
        long origin = BacklogAnalysis.origin(trace, figures);
        BrokerView view = t == null || d == null || origin == Trace.ABSENT ? null : view(trace, origin, t, d, samples);
        return new BacklogSection(timeline, BacklogAnalysis.analyse(trace, figures, paused), view);
    }

    private static BrokerView view(Trace trace, long origin, long[] t, long[] d,
                                   Map<io.msgscope.proto.Series, long[]> samples) {
        int n = Math.min(t.length, d.length);
        long[] ct = samples.get(io.msgscope.proto.Series.CONFIRM_SAMPLE_NS);
        long[] c = samples.get(io.msgscope.proto.Series.CONFIRMED);
        long[] accepted = ct == null || c == null ? null
                : BacklogAnalysis.acceptedInFlightAt(trace, ct, c, Math.min(ct.length, c.length), t, n);
        long[] held = samples.get(io.msgscope.proto.Series.BACKLOG_HELD_MAX);
        return new BrokerView(origin, t, d, BacklogAnalysis.inFlightAt(trace, t, n), accepted,
                held == null || held.length == 0 ? 0 : held[0], n);
    }

    /** Writes backlog.dat and backlog.gp when the broker's backlog was read; returns the files written. */
    List<java.nio.file.Path> write(java.nio.file.Path dir) throws java.io.IOException {
        if (broker == null) {
            return List.of();
        }
        return BacklogFiles.write(dir, broker.origin(), broker.timeNs(), broker.depth(), broker.inFlight(),
                broker.accepted(), broker.samples(), "sent less received by then, from the trace", "measured messages the system "
                + "had confirmed less received, at the last read of the confirmed count (every 10 ms) before the broker's "
                + "read");
    }

    boolean isEmpty() {
        return episodes.isEmpty();
    }

    List<Map<String, Object>> toList() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (BacklogAnalysis.Episode e : episodes) {
            Map<String, Object> m = BacklogFiles.episodeHead(timeline.phases().subList(e.firstPhase(),
                            e.lastPhase() + 1).stream().map(LoadPhase::name).toList(), e.pausedAtNs(), e.resumedAtNs(),
                    e.peakMessages(), e.peakAtNs(), e.drainedAtNs(), e.drainMsgPerSec(), e.catchUpBoundNs(),
                    e.catchUpNs(), e.lastAboveBoundNs(), e.sendMsgPerSec());
            m.put("drain_send_lag", q4(e.sendLagNs()));
            m.put("drain_latency_from_intended", q4(e.latencyIntended()));
            m.put("broker_view", brokerView(e));
            out.add(m);
        }
        return out;
    }

    /**
     * The broker's reads in the episode's window against the tool's counts ({@link BacklogAnalysis#agreement}); null
     * when nothing was read.
     */
    private Map<String, Object> brokerView(BacklogAnalysis.Episode e) {
        if (broker == null) {
            return null;
        }
        return BacklogFiles.brokerView(BacklogAnalysis.agreement(broker.origin(), broker.timeNs(), broker.depth(),
                broker.accepted(), broker.inFlight(), broker.samples(), e.pausedAtNs(), e.windowEndNs(),
                Math.max(0, broker.held())), e.peakMessages(), broker.accepted() != null ? CONFIRMED : "sent - received",
                broker.held() < 0 ? null : broker.held());
    }

    private static Map<String, Object> q4(SeriesStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        AnalysisResult.q4Fields(s).forEach((k, v) -> m.put(k, Json.finite(v)));
        return m;
    }

    /** One console line per episode: the peak, the drain and the catch-up. */
    List<String> consoleLines() {
        List<String> out = new ArrayList<>();
        for (BacklogAnalysis.Episode e : episodes) {
            out.add(String.format(Locale.ROOT, "  backlog %s: peak %,d messages  drained %s  at %s  caught up %s"
                            + "  last arrival above the bound %s",
                    timeline.phases().get(e.firstPhase()).name(), e.peakMessages(),
                    e.drainedAtNs() == null ? "never (messages lost)"
                            : String.format(Locale.ROOT, "%.3f s after the resume", Math.max(0,
                            e.drainedAtNs() - e.resumedAtNs()) / 1e9),
                    e.drainMsgPerSec() == null ? "-" : String.format(Locale.ROOT, "%,.0f msg/s", e.drainMsgPerSec()),
                    e.catchUpNs() == null ? "- (never, or no bound)"
                            : String.format(Locale.ROOT, "%.3f s after the resume (windows' median within the bound)",
                            e.catchUpNs() / 1e9),
                    e.lastAboveBoundNs() == null ? "- (a message lost, no bound, or nothing sent after the pause)"
                            : String.format(Locale.ROOT, "%.3f s after the resume", e.lastAboveBoundNs() / 1e9)));
        }
        return out;
    }
}

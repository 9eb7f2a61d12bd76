package io.msgscope.coordinator.scenario;

import io.msgscope.analysis.BacklogAnalysis;
import io.msgscope.analysis.WindowBacklog;
import io.msgscope.coordinator.results.BacklogFiles;
import io.msgscope.coordinator.results.LatencyFigures;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * summary.json's {@code backlog} in scenario mode (issue 31 item 3): each run of {@code /paused} phases, in which the
 * subscribers agents paused every subscription, with trace mode's fields where the poll windows give them
 * ({@link WindowBacklog}: at about one second's resolution), and the broker's own count as the subscribers agents read
 * it (backlog.dat, {@code broker_view}).
 */
final class ScenarioBacklog {
    /**
     * The broker's reads of every subscribers agent (epoch ns, messages), what each agent's paused subscriptions may hold
     * uncounted by the broker (-1: no bound), and why an agent read nothing.
     */
    record Reads(List<long[]> epochNs, List<long[]> depth, List<Long> held, List<String> notes) {
        /** {@code into} with one agent's final report's reads added (a new one when null). */
        static Reads add(Reads into, ScenarioReport fin) {
            Reads r = into != null ? into
                    : new Reads(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            if (fin.getBacklogEpochNsCount() > 0) {
                r.epochNs.add(fin.getBacklogEpochNsList().stream().mapToLong(Long::longValue).toArray());
                r.depth.add(fin.getBacklogDepthList().stream().mapToLong(Long::longValue).toArray());
                r.held.add(fin.getBacklogHeldMax());
            }
            if (!fin.getBacklogNote().isEmpty()) {
                r.notes.add(fin.getBacklogNote());
            }
            return r;
        }

        /**
         * The reads summed over the agents: at each read of the first agent, each other agent's latest read at or before
         * it (0 before its first); {time, depth}, or null without reads.
         */
        long[][] summed() {
            if (epochNs.isEmpty() || !notes.isEmpty()) {
                return null; // an agent that could not read its share would make the sum a part
            }
            long[] t = epochNs.get(0);
            long[] d = depth.get(0).clone();
            for (int a = 1; a < epochNs.size(); a++) {
                long[] ta = epochNs.get(a);
                int k = -1;
                for (int i = 0; i < t.length; i++) {
                    while (k + 1 < ta.length && ta[k + 1] <= t[i]) {
                        k++;
                    }
                    d[i] += k < 0 ? 0 : depth.get(a)[k];
                }
            }
            return new long[][] {t, d};
        }

        /**
         * The broker's count at each agent's last read, summed: the messages it still held for the subscriptions when
         * the reads ended (after the in-flight wait, before the agent lets paused subscriptions go); null without reads,
         * or when an agent read nothing (the sum would be a part).
         */
        Long lastSum() {
            if (depth.isEmpty() || !notes.isEmpty()) {
                return null;
            }
            long sum = 0;
            for (long[] d : depth) {
                sum += d[d.length - 1];
            }
            return sum;
        }

        /** What every agent's paused subscriptions may hold uncounted, summed; -1 when one has no bound. */
        long heldSum() {
            long h = 0;
            for (long x : held) {
                h = h < 0 || x < 0 ? -1 : h + x;
            }
            return h;
        }
    }

    /** The bracket a read is compared with when the publishers confirm (fan-out: each confirmed send expected N times). */
    static final String CONFIRMED = "expected of confirmed - received .. expected - received";

    private final Timeline timeline;
    private final List<WindowBacklog.Episode> episodes;
    private final List<ScenarioPhases.Window> windows;
    /** The broker's reads (ns from the origin), the tool's count at each; null when none. */
    private final long[] readNs;
    private final long[] depth;
    private final long[] inFlight;
    /** Deliveries expected of the confirmed sends less deliveries at each read; null when a publisher confirms nothing. */
    private final long[] accepted;
    /** What the paused subscriptions may hold uncounted by the broker; -1: no bound. */
    private final long held;
    private final List<String> notes;

    private ScenarioBacklog(Timeline timeline, List<WindowBacklog.Episode> episodes, List<ScenarioPhases.Window> windows,
                            long[][] reads, long held, List<String> notes) {
        this.timeline = timeline;
        this.episodes = episodes;
        this.windows = windows;
        this.readNs = reads == null ? null : reads[0];
        this.depth = reads == null ? null : reads[1];
        this.inFlight = reads == null ? null : reads[2];
        this.accepted = reads == null ? null : reads[3];
        this.held = held;
        this.notes = notes;
    }

    /** The episodes of {@code t} on {@code windows}; null when no phase pauses the consumers. */
    static ScenarioBacklog of(Timeline t, Scenario scenario, int subscribers, List<ScenarioPhases.Window> windows,
                              ScenarioPhases phases, Reads reads) {
        if (!t.pausesConsumers()) {
            return null;
        }
        WindowBacklog.Windows w = windows(t, scenario, subscribers, windows);
        int n = t.phases().size();
        long[] start = new long[n];
        long[] end = new long[n];
        boolean[] paused = new boolean[n];
        Double[] bound = new Double[n];
        for (int k = 0; k < n; k++) {
            start[k] = t.startNs(k);
            end[k] = t.endNs(k);
            paused[k] = t.phases().get(k).consumersPaused();
            Double p99 = phases.phases().get(k).intended().p99Us();
            bound[k] = p99 == null ? null : p99 * 1e3;
        }
        List<WindowBacklog.Episode> episodes = WindowBacklog.analyse(w, start, end, paused, bound);
        long[][] summed = reads == null || windows.isEmpty() ? null : reads.summed();
        List<String> notes = reads == null ? List.of() : List.copyOf(reads.notes());
        if (summed == null) {
            return new ScenarioBacklog(t, episodes, windows, null, 0, notes);
        }
        long originNs = windows.get(0).fromMs() * 1_000_000L;
        long[] at = new long[summed[0].length];
        for (int i = 0; i < at.length; i++) {
            at[i] = summed[0][i] - originNs;
        }
        WindowBacklog.Windows c = confirmedWindows(w, scenario, subscribers, windows);
        return new ScenarioBacklog(t, episodes, windows, new long[][] {at, summed[1],
                WindowBacklog.inFlightAt(w, at, at.length), c == null ? null : WindowBacklog.inFlightAt(c, at, at.length)},
                reads.heldSum(), notes);
    }

    /**
     * {@code w} with each window's expected deliveries those of the sends confirmed in it (of the confirmed count at its
     * end less that at the previous end), so that its in flight is the floor expected of confirmed − received at each
     * end; null when a window's confirmed count is unknown (a publisher confirms nothing).
     */
    static WindowBacklog.Windows confirmedWindows(WindowBacklog.Windows w, Scenario scenario, int subscribers,
                                                  List<ScenarioPhases.Window> windows) {
        long[] expected = new long[windows.size()];
        long before = 0;
        for (int k = 0; k < expected.length; k++) {
            Long c = windows.get(k).confirmedByEnd();
            if (c == null) {
                return null;
            }
            long e = scenario.expected(c, subscribers);
            expected[k] = e - before;
            before = e;
        }
        return new WindowBacklog.Windows(w.startNs(), w.endNs(), w.phase(), w.sent(), expected, w.received(),
                w.medianNs());
    }

    /** The windows as {@link WindowBacklog} reads them: ns from the first one's start, each in its phase. */
    static WindowBacklog.Windows windows(Timeline t, Scenario scenario, int subscribers,
                                         List<ScenarioPhases.Window> windows) {
        int m = windows.size();
        long origin = m == 0 ? 0 : windows.get(0).fromMs();
        long[] from = new long[m];
        long[] to = new long[m];
        long[] sent = new long[m];
        long[] expected = new long[m];
        long[] received = new long[m];
        Double[] median = new Double[m];
        for (int k = 0; k < m; k++) {
            ScenarioPhases.Window x = windows.get(k);
            from[k] = (x.fromMs() - origin) * 1_000_000L;
            to[k] = (x.toMs() - origin) * 1_000_000L;
            sent[k] = x.sent();
            expected[k] = scenario.expected(x.sent(), subscribers);
            received[k] = x.received();
            Histogram h = ScenarioPhases.merge(null, x.intended());
            median[k] = h == null || h.getTotalCount() == 0 ? null : (double) h.getValueAtPercentile(50);
        }
        return new WindowBacklog.Windows(from, to, ScenarioPhases.phaseOfWindows(t, windows), sent, expected, received,
                median);
    }

    /** summary.json's {@code backlog}: trace mode's fields, from the windows. */
    List<Map<String, Object>> toList() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (WindowBacklog.Episode e : episodes) {
            Map<String, Object> m = BacklogFiles.episodeHead(timeline.phases().subList(e.firstPhase(),
                            e.lastPhase() + 1).stream().map(LoadPhase::name).toList(), e.pausedAtNs(), e.resumedAtNs(),
                    e.peakMessages(), e.peakAtNs(), e.drainedAtNs(), e.drainMsgPerSec(), e.catchUpBoundNs(),
                    e.catchUpNs(), null, e.sendMsgPerSec()); // the last arrival above the bound: unknown from windows
            Map<String, Object> lag = new LinkedHashMap<>();
            LatencyFigures.of(null).putInto(lag, "latency_"); // the publishers report no send lag: unknown
            m.put("drain_send_lag", lag);
            Histogram drain = null;
            for (int k = e.drainFrom(); e.drainTo() >= 0 && k <= e.drainTo(); k++) {
                drain = ScenarioPhases.merge(drain, windows.get(k).intended());
            }
            Map<String, Object> lat = new LinkedHashMap<>();
            LatencyFigures.of(drain).putInto(lat, "latency_");
            m.put("drain_latency_from_intended", lat);
            m.put("broker_view", BacklogFiles.brokerView(readNs == null ? null : BacklogAnalysis.agreement(0, readNs,
                    depth, accepted, inFlight, readNs.length, e.pausedAtNs(), e.windowEndNs(), Math.max(0, held)),
                    e.peakMessages(), accepted != null ? CONFIRMED : "expected - received", held < 0 ? null : held));
            out.add(m);
        }
        return out;
    }

    /** Writes backlog.dat and backlog.gp when the broker's backlog was read; returns the files written. */
    List<Path> write(Path dir) throws IOException {
        if (readNs == null) {
            return List.of();
        }
        return BacklogFiles.write(dir, 0, readNs, depth, inFlight, accepted, readNs.length, "deliveries expected of the "
                + "sends less deliveries, at the last poll window's end by then (windows of about 1 s)", "deliveries "
                + "expected of the measured messages the system had confirmed by that window's end less deliveries");
    }

    /** Why the broker's count is missing, one line each (the subscribers agents' words). */
    List<String> notes() {
        return notes;
    }

    /** One console line per episode: the peak, the drain and the catch-up, at the windows' resolution. */
    List<String> consoleLines() {
        List<String> out = new ArrayList<>();
        for (WindowBacklog.Episode e : episodes) {
            out.add(String.format(Locale.ROOT, "  backlog %s: peak %s messages  drained %s  at %s  caught up %s",
                    timeline.phases().get(e.firstPhase()).name(),
                    e.peakMessages() == null ? "-" : String.format(Locale.ROOT, "%,d", e.peakMessages()),
                    e.drainedAtNs() == null ? "- (not within the windows)" : String.format(Locale.ROOT,
                            "%.3f s after the resume", Math.max(0, e.drainedAtNs() - e.resumedAtNs()) / 1e9),
                    e.drainMsgPerSec() == null ? "-" : String.format(Locale.ROOT, "%,.0f msg/s", e.drainMsgPerSec()),
                    e.catchUpNs() == null ? "- (never, or no bound; poll windows of ~1 s)"
                            : String.format(Locale.ROOT, "%.3f s after the resume (windows' median within the bound; "
                            + "poll windows of ~1 s)", e.catchUpNs() / 1e9)));
        }
        for (String n : notes) {
            out.add("  backlog: the broker's count was not read: " + n);
        }
        return out;
    }
}

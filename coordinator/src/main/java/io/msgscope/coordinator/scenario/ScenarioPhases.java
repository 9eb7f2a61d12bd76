package io.msgscope.coordinator.scenario;

import io.msgscope.analysis.output.HdrOutput;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.LatencyFigures;
import io.msgscope.coordinator.results.WordPhaseEnds;
import io.msgscope.core.SpecException;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario on load phases (issue 31): {@code --phases} gives the TOTAL publish rate over all publishers, which share
 * it (publisher g of P sends the timeline's messages g, g + P, …), and summary.json's {@code phases} reports each phase
 * from the coordinator's poll windows — the about-one-second intervals in which it asks every agent for its progress,
 * which is what scenario mode records over time. A window belongs to the phase its midpoint falls in (the last phase
 * keeps the windows past the timeline's end); a phase's figures are the sums and the merged histograms of its windows,
 * its rates those sums over the windows' length within the timeline. A phase no window's midpoint falls in (shorter
 * than a window) has null figures.
 */
public final class ScenarioPhases {
    /** Most messages per second one publisher may be asked for (as {@code --rate}). */
    static final double MAX_PER_PUBLISHER = 1_000_000;

    /**
     * One poll window of the measurement: its wall-clock span (ms since the epoch), the publishers' sends and the
     * subscribers' deliveries counted in it, and its latency from the actual and from the intended send time (ns,
     * HdrHistogram's compressed form), and each role's agents' process CPU over it (ns, summed over the role's agents;
     * null when unknown; issue 31 item 5), and the measured messages the system had confirmed by its end, over the whole
     * measurement and every publisher (null when a publisher confirms nothing: the backlog's floor, issue 31 item 3).
     */
    public record Window(long fromMs, long toMs, long sent, long received, byte[] latency, byte[] intended,
                         Long publishersCpuNs, Long subscribersCpuNs, Long confirmedByEnd) {
        /** A window without CPU figures or confirms. */
        public Window(long fromMs, long toMs, long sent, long received, byte[] latency, byte[] intended) {
            this(fromMs, toMs, sent, received, latency, intended, null, null, null);
        }
    }

    /**
     * What one phase measured over its windows; counts and figures null when no window fell in it.
     *
     * @param windows      the poll windows in the phase
     * @param spanS        their length within the timeline, s
     * @param lost         deliveries expected of the windows' sends minus those received in them (signed: a message
     *                     sent in one window and delivered in the next counts in both phases' windows)
     * @param publishersCpuNsPerMessage  the publishers agents' process CPU over the windows per message sent in them
     *                     (work and the pacers' waiting alike); null when unknown or nothing was sent
     * @param subscribersCpuNsPerMessage the subscribers agents' per delivery; null as the publishers'
     */
    public record Phase(int index, LoadPhase phase, double startS, double endS, long scheduled, int windows,
                        double spanS, Long sent, Long received, Long expected, Long lost, Double sentMsgPerS,
                        Double receivedMsgPerS, LatencyFigures latency, LatencyFigures intended,
                        Double publishersCpuNsPerMessage, Double subscribersCpuNsPerMessage) {
    }

    private final List<Phase> phases;
    private final ScenarioBacklog backlog;
    /** The timeline as run: how each phase that ended on a word ended. */
    private final Timeline timeline;

    private ScenarioPhases(List<Phase> phases, ScenarioBacklog backlog, Timeline timeline) {
        this.phases = List.copyOf(phases);
        this.backlog = backlog;
        this.timeline = timeline;
    }

    /** The same phases with the backlog episodes measured on them (issue 31 item 3; null: no phase paused). */
    ScenarioPhases withBacklog(ScenarioBacklog b) {
        return new ScenarioPhases(phases, b, timeline);
    }

    /** The backlog episodes, or null when no phase paused the subscribers. */
    ScenarioBacklog backlog() {
        return backlog;
    }

    /** The usage checks of {@code --phases} in scenario mode, beyond the timeline's own. */
    public static void check(Timeline t, int publishers) {
        for (LoadPhase p : t.phases()) {
            double most = Math.max(p.fromRate(), p.toRate());
            if (most / publishers > MAX_PER_PUBLISHER) {
                throw new SpecException("--phases", "phase '" + p.name() + "' asks " + Json.finite(most).longValue()
                        + " msg/s in all, above 1000000 msg/s for each of the " + publishers + " publishers");
            }
        }
        if (t.durationNs() < 1_000_000_000L || t.durationNs() > 86_400_000_000_000L) {
            throw new SpecException("--phases", "the phases must last between 1 and 86400 s in all (as --duration), got "
                    + t.durationNs() / 1e9 + " s");
        }
    }

    /**
     * Backlog phases (issue 31 item 3): the subscribers agents pause every subscription through the driver, which must
     * be able to leave the messages with the broker for these options ({@code opts}: as the subscribers get them).
     */
    public static void checkBacklog(Timeline t, io.msgscope.core.driver.Driver driver, Map<String, String> opts) {
        if (t == null || !t.pausesConsumers()) {
            return;
        }
        String why = driver.whyConsumersCannotPause(opts);
        if (why != null) {
            throw new SpecException("--phases", "/paused cannot pause the subscribers with the " + driver.name()
                    + " driver: " + why);
        }
        for (LoadPhase p : t.phases()) {
            String unread = p.untilBacklog() ? driver.whyBacklogCannotBeRead(opts) : null;
            if (unread != null) {
                throw new SpecException("--phases", "phase '" + p.name() + "' ends on the broker's count of the "
                        + "backlog, which the " + driver.name() + " driver cannot read: " + unread);
            }
        }
    }

    /** The plan's phases: the config's timeline of the total rate, none for one rate. */
    static List<io.msgscope.proto.LoadPhase> proto(ScenarioConfig cfg) {
        return io.msgscope.control.RunSpecs.phases(cfg.timeline());
    }

    /** The warm-up's rate per publisher on load phases: the timeline's first rate above 0, shared by the publishers. */
    static double warmupRate(Timeline t, int publishers) {
        for (LoadPhase p : t.phases()) {
            for (double r : new double[] {p.fromRate(), p.toRate()}) {
                if (r > 0) {
                    return r / publishers;
                }
            }
        }
        throw new IllegalArgumentException("a timeline without a rate above 0: " + t);
    }

    /** Each window's phase index, by its midpoint from the first window's start; past the timeline, the last. */
    static int[] phaseOfWindows(Timeline t, List<Window> windows) {
        int[] out = new int[windows.size()];
        if (windows.isEmpty()) {
            return out;
        }
        long origin = windows.get(0).fromMs();
        int n = t.phases().size();
        for (int w = 0; w < windows.size(); w++) {
            Window x = windows.get(w);
            double midNs = ((x.fromMs() - origin) + (x.toMs() - origin)) / 2.0 * 1e6;
            int k = 0;
            while (k < n - 1 && midNs >= t.endNs(k)) {
                k++;
            }
            out[w] = k;
        }
        return out;
    }

    /** The phases of {@code t} measured by {@code windows} (the drain's arrivals are not in any). */
    static ScenarioPhases of(Timeline t, Scenario scenario, int subscribers, List<Window> windows) {
        int[] phaseOf = phaseOfWindows(t, windows);
        long origin = windows.isEmpty() ? 0 : windows.get(0).fromMs();
        double endMs = t.durationNs() / 1e6;
        List<Phase> out = new ArrayList<>();
        int n = t.phases().size();
        for (int k = 0; k < n; k++) {
            int count = 0;
            double spanMs = 0;
            long sent = 0;
            long received = 0;
            Histogram latency = null;
            Histogram intended = null;
            long[] cpu = {0, 0}; // -1 once a window's is unknown
            for (int w = 0; w < windows.size(); w++) {
                if (phaseOf[w] != k) {
                    continue;
                }
                Window x = windows.get(w);
                cpu[0] = cpu[0] < 0 || x.publishersCpuNs() == null ? -1 : cpu[0] + x.publishersCpuNs();
                cpu[1] = cpu[1] < 0 || x.subscribersCpuNs() == null ? -1 : cpu[1] + x.subscribersCpuNs();
                count++;
                spanMs += Math.max(0, Math.min(x.toMs() - origin, endMs) - Math.max(x.fromMs() - origin, 0));
                sent += x.sent();
                received += x.received();
                latency = merge(latency, x.latency());
                intended = merge(intended, x.intended());
            }
            long scheduled = (k + 1 < n ? t.firstMessage(k + 1) : t.messages()) - t.firstMessage(k);
            boolean any = count > 0;
            long expected = scenario.expected(sent, subscribers);
            double spanS = spanMs / 1e3;
            out.add(new Phase(k, t.phases().get(k), t.startNs(k) / 1e9, t.endNs(k) / 1e9, scheduled, count, spanS,
                    any ? sent : null, any ? received : null, any ? expected : null, any ? expected - received : null,
                    any && spanS > 0 ? sent / spanS : null, any && spanS > 0 ? received / spanS : null,
                    LatencyFigures.of(latency), LatencyFigures.of(intended), perMessage(any, cpu[0], sent),
                    perMessage(any, cpu[1], received)));
        }
        return new ScenarioPhases(out, null, t);
    }

    /** CPU ns per message, null when no window, an unknown CPU figure or no message. */
    static Double perMessage(boolean any, long cpuNs, long messages) {
        return !any || cpuNs < 0 || messages == 0 ? null : (double) cpuNs / messages;
    }

    static Histogram merge(Histogram into, byte[] compressed) {
        if (compressed == null || compressed.length == 0) {
            return into;
        }
        return ScenarioLinks.merge(into, ScenarioLinks.decoded(compressed, "a poll window's histogram"));
    }

    public List<Phase> phases() {
        return phases;
    }

    /**
     * The latency log's intervals with each poll window's tagged {@code phaseK-NAME} (as trace mode's,
     * {@link HdrOutput#phaseTag}); the windows come first in {@code intervals}, in order, the drain's after them.
     */
    static List<ScenarioResult.Interval> tagged(Timeline t, List<Window> windows,
                                                List<ScenarioResult.Interval> intervals) {
        int[] phaseOf = phaseOfWindows(t, windows);
        List<ScenarioResult.Interval> out = new ArrayList<>();
        for (int i = 0; i < intervals.size(); i++) {
            ScenarioResult.Interval x = intervals.get(i);
            out.add(i < phaseOf.length && x.tag() == null ? new ScenarioResult.Interval(x.startEpochMs(), x.endEpochMs(),
                    HdrOutput.phaseTag(phaseOf[i], t.phases().get(phaseOf[i]).name()), x.histogram()) : x);
        }
        return out;
    }

    /** summary.json's {@code phases}, one object per phase in order. */
    public List<Map<String, Object>> toList() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Phase f : phases) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", f.index());
            m.put("name", f.phase().name());
            m.put("kind", f.phase().kind().name().toLowerCase(Locale.ROOT));
            m.put("start_s", f.startS());
            m.put("end_s", f.endS());
            m.put("consumers_paused", f.phase().consumersPaused()); // subscribers paused: a backlog (issue 31 item 3)
            m.put("until_drained", f.phase().untilDrained()
                    ? WordPhaseEnds.untilDrained(f.phase(), timeline.wordEnd(f.index())) : null);
            m.put("until_backlog", f.phase().untilBacklog()
                    ? WordPhaseEnds.untilBacklog(f.phase(), timeline.wordEnd(f.index())) : null);
            m.put("rate_asked_from_msg_s", f.phase().fromRate());
            m.put("rate_asked_to_msg_s", f.phase().toRate());
            m.put("messages_scheduled", f.scheduled());
            m.put("windows", f.windows());
            m.put("windows_s", f.spanS());
            m.put("messages_sent", f.sent());
            m.put("messages_received", f.received());
            m.put("expected_messages", f.expected());
            m.put("messages_lost", f.lost());
            m.put("sent_msg_s", f.sentMsgPerS());
            m.put("received_msg_s", f.receivedMsgPerS());
            Map<String, Object> latency = new LinkedHashMap<>();
            f.latency().putInto(latency, "latency_");
            m.put("latency", latency);
            Map<String, Object> intended = new LinkedHashMap<>();
            f.intended().putInto(intended, "latency_");
            m.put("latency_from_intended", intended);
            if (f.publishersCpuNsPerMessage() != null || f.subscribersCpuNsPerMessage() != null) {
                Map<String, Object> cpu = new LinkedHashMap<>(); // as trace mode's phases, by role (issue 31 item 5)
                cpu.put("publishers_process", f.publishersCpuNsPerMessage());
                cpu.put("subscribers_process", f.subscribersCpuNsPerMessage());
                m.put("cpu_ns_per_message", cpu);
            }
            out.add(m);
        }
        return out;
    }

    /** One console line per phase: what was asked, sent and received over its windows, p99 from the intended time. */
    public List<String> consoleLines() {
        List<String> out = new ArrayList<>();
        for (Phase f : phases) {
            Double p99 = f.intended().p99Us();
            out.add(String.format(Locale.ROOT, "  phase %d %-10s %.3f-%.3f s  asked %s  sent %s  received %s msg/s  "
                            + "p99 from intended %s", f.index(), f.phase().name(), f.startS(), f.endS(), asked(f.phase()),
                    rate(f.sentMsgPerS()), rate(f.receivedMsgPerS()),
                    p99 == null ? "-" : String.format(Locale.ROOT, "%,.1f us", p99)));
            Timeline.WordEnd e = timeline.wordEnd(f.index());
            if (e != null) {
                out.add("    " + WordPhaseEnds.line(timeline, e));
            }
        }
        return out;
    }

    private static String rate(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String asked(LoadPhase p) {
        return switch (p.kind()) {
            case PAUSE -> "pause";
            case CONSTANT -> String.format(Locale.ROOT, "%,.0f msg/s", p.fromRate());
            case RAMP -> String.format(Locale.ROOT, "%,.0f..%,.0f msg/s", p.fromRate(), p.toRate());
        };
    }

    /** gnuplot commands drawing the phases as bands behind timeseries.gp's plot (x: seconds of the measurement). */
    String bands() {
        StringBuilder s = new StringBuilder("# load phases (issue 31): every other phase shaded, each named at the top\n");
        for (Phase f : phases) {
            if (f.index() % 2 == 0) {
                s.append(String.format(Locale.ROOT, "set object rect from first %s, graph 0 to first %s, graph 1 "
                        + "fc rgb \"#d9d9d9\" fs solid 0.35 noborder behind%n", num(f.startS()), num(f.endS())));
            }
            String name = f.phase().name() + (f.phase().kind() == LoadPhase.Kind.PAUSE ? " (pause)" : "");
            s.append(String.format(Locale.ROOT, "set label \"%s\" at first %s, graph 0.97 left offset 0.3,0 "
                    + "font \",9\" tc rgb \"#525252\" front%n", name, num(f.startS())));
        }
        return s.toString();
    }

    private static String num(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}

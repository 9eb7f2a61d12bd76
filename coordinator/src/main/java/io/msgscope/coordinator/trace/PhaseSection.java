package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.results.WordPhaseEnds;

import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.PhaseAnalysis;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.CpuWindows;
import io.msgscope.coordinator.results.Json;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.Series;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * summary.json's {@code phases} and the console's lines for a run on a timeline (issue 31): the timeline's phases as
 * the analysis frames them, and what each measured.
 */
public final class PhaseSection {
    private final Timeline timeline;
    private final List<PhaseAnalysis.Figures> figures;
    private final List<Map<String, Object>> cpu;
    private final BacklogSection backlog;

    private PhaseSection(Timeline timeline, List<PhaseAnalysis.Figures> figures, List<Map<String, Object>> cpu,
                         BacklogSection backlog) {
        this.timeline = timeline;
        this.figures = figures;
        this.cpu = cpu;
        this.backlog = backlog;
    }

    /** The phases of {@code timeline} analysed on {@code trace}, which must carry intended times; no CPU figures. */
    public static PhaseSection of(Timeline timeline, Trace trace) {
        return of(timeline, trace, Map.of(), 0);
    }

    /**
     * As {@link #of(Timeline, Trace)}, with each phase's CPU per message from the every-Nth-message samples
     * ({@code every} 0: none): the sender's thread as work and as waiting for the send times, the receiver's thread,
     * the relay's forwarding thread (its stamps); each null when fewer than two samples fall in the phase.
     */
    public static PhaseSection of(Timeline timeline, Trace trace, Map<Series, long[]> samples, int every) {
        List<PhaseAnalysis.Figures> figures = PhaseAnalysis.analyse(trace, frames(timeline));
        List<Map<String, Object>> cpu = new ArrayList<>();
        for (PhaseAnalysis.Figures f : figures) {
            long from = f.frame().firstSeq();
            long to = f.frame().endSeq();
            Map<String, Object> m = new LinkedHashMap<>();
            Double all = perMessage(samples, Series.SENDER_SAMPLE_NS, Series.SENDER_THREAD_CPU_NS, every, trace, from, to);
            Double waiting = perMessage(samples, Series.SENDER_SAMPLE_NS, Series.SENDER_WAIT_CPU_NS, every, trace, from,
                    to);
            m.put("sender_work", all == null || waiting == null ? null : all - waiting);
            m.put("sender_waiting", waiting);
            m.put("receiver", perMessage(samples, Series.RECEIVER_SAMPLE_NS, Series.RECEIVER_THREAD_CPU_NS, every,
                    trace, from, to));
            m.put("relay_thread", perMessage(samples, Series.BROKER_SAMPLE_NS, Series.BROKER_CPU_NS, every, trace,
                    from, to));
            cpu.add(m);
        }
        return new PhaseSection(timeline, figures, cpu, BacklogSection.of(timeline, trace, figures, samples));
    }

    private static Double perMessage(Map<Series, long[]> samples, Series time, Series counter, int every, Trace trace,
                                     long from, long to) {
        long[] t = samples.get(time);
        long[] u = samples.get(counter);
        if (every <= 0 || t == null || u == null || to <= from) {
            return null;
        }
        return Json.finite(CpuWindows.perMessageOver(t, u, every, trace.count(), from, to));
    }

    /** The timeline's phases as the analysis frames them: span, messages, when the first is due. */
    static List<PhaseAnalysis.Frame> frames(Timeline t) {
        List<PhaseAnalysis.Frame> out = new ArrayList<>();
        int n = t.phases().size();
        for (int k = 0; k < n; k++) {
            long first = t.firstMessage(k);
            long end = k + 1 < n ? t.firstMessage(k + 1) : t.messages();
            long due = first < end ? t.dueNs(first) : t.startNs(k);
            out.add(new PhaseAnalysis.Frame(t.phases().get(k).name(), t.startNs(k), t.endNs(k), first, end, due));
        }
        return out;
    }

    /** The phases as the per-message plots draw them: each one's messages. */
    public List<io.msgscope.analysis.output.GnuplotScripts.PhaseBand> bands() {
        return figures.stream().map(f -> new io.msgscope.analysis.output.GnuplotScripts.PhaseBand(f.frame().name(),
                f.frame().firstSeq(), f.frame().endSeq())).toList();
    }

    public List<PhaseAnalysis.Figures> figures() {
        return figures;
    }

    /** The {@code phases} array, one object per phase in order. */
    public List<Map<String, Object>> toList() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int k = 0; k < figures.size(); k++) {
            PhaseAnalysis.Figures f = figures.get(k);
            LoadPhase p = timeline.phases().get(k);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", k);
            m.put("name", p.name());
            m.put("kind", p.kind().name().toLowerCase(Locale.ROOT));
            m.put("start_s", f.frame().startNs() / 1e9);
            m.put("end_s", f.frame().endNs() / 1e9);
            m.put("consumers_paused", p.consumersPaused());
            m.put("until_drained", p.untilDrained() ? WordPhaseEnds.untilDrained(p, timeline.wordEnd(k)) : null);
            m.put("until_backlog", p.untilBacklog() ? WordPhaseEnds.untilBacklog(p, timeline.wordEnd(k)) : null);
            m.put("rate_asked_from_msg_s", p.fromRate());
            m.put("rate_asked_to_msg_s", p.toRate());
            m.put("messages_scheduled", f.scheduled());
            m.put("messages_sent", f.sent());
            m.put("messages_received", f.received());
            m.put("messages_lost", f.lost());
            m.put("sent_in_span_msg_s", Json.finite(f.sentMsgPerSec()));
            m.put("received_in_span_msg_s", Json.finite(f.receivedMsgPerSec()));
            m.put("first_send_lag_us", f.firstSendLagNs() == null ? null : f.firstSendLagNs() / 1e3);
            m.put("latency", finite(AnalysisResult.q4Fields(f.latencyNs())));
            m.put("latency_from_intended", finite(AnalysisResult.q4Fields(f.latencyIntendedNs())));
            if (!cpu.get(k).values().stream().allMatch(java.util.Objects::isNull)) {
                m.put("cpu_ns_per_message", cpu.get(k));
            }
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> finite(Map<String, Double> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        fields.forEach((k, v) -> m.put(k, Json.finite(v)));
        return m;
    }

    /** Writes backlog.dat and its plot script when the broker's backlog was read (issue 31); the files written. */
    public List<java.nio.file.Path> writeBacklog(java.nio.file.Path dir) throws java.io.IOException {
        return backlog.write(dir);
    }

    /** summary.json's {@code backlog}, one object per backlog episode (issue 31 item 3); null when none paused. */
    public List<Map<String, Object>> backlogList() {
        return backlog.isEmpty() ? null : backlog.toList();
    }

    /** One console line per phase: what was asked, what was sent and received in its span, p99 from intended. */
    public List<String> consoleLines() {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < figures.size(); k++) {
            PhaseAnalysis.Figures f = figures.get(k);
            LoadPhase p = timeline.phases().get(k);
            double p99 = f.latencyIntendedNs().p99() / 1e3;
            out.add(String.format(Locale.ROOT, "  phase %d %-10s %.3f-%.3f s  asked %s  sent %,.0f  received %,.0f "
                            + "msg/s  p99 from intended %s", k, p.name(), f.frame().startNs() / 1e9,
                    f.frame().endNs() / 1e9, asked(p), f.sentMsgPerSec(), f.receivedMsgPerSec(),
                    Double.isNaN(p99) ? "-" : String.format(Locale.ROOT, "%,.1f us", p99)));
        }
        out.addAll(backlog.consoleLines());
        return out;
    }

    private static String asked(LoadPhase p) {
        return switch (p.kind()) {
            case PAUSE -> p.untilDrained() ? "until drained" : "pause";
            case CONSTANT -> String.format(Locale.ROOT, "%,.0f msg/s", p.fromRate())
                    + (p.untilDrained() ? " until drained" : "")
                    + (p.untilBacklog() ? String.format(Locale.ROOT, " until the broker holds %,d", p.backlogTarget()) : "");
            case RAMP -> String.format(Locale.ROOT, "%,.0f..%,.0f msg/s", p.fromRate(), p.toRate());
        };
    }
}

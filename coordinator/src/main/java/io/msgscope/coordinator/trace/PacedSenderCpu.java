package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.results.Json;
import io.msgscope.analysis.cpu.CpuWindows;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.core.RunSpec;
import io.msgscope.proto.Series;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A paced sender's CPU split into work and waiting (issue 27): at {@code --rate} the sending thread parks until
 * each send time and spins the last {@value #SPIN_US} µs, CPU that is no work of sending. It reads its CPU clock
 * around every wait and keeps the sum at each CPU sample ({@link Series#SENDER_WAIT_CPU_NS}); over the same span
 * as the whole, waiting = the CPU in the waits and work = all − waiting. At full speed nothing is waited.
 */
final class PacedSenderCpu {
    /** The paced sender's spin before each send (SenderRole.SPIN_NS), as the summary names it. */
    static final int SPIN_US = 50;

    private PacedSenderCpu() {
    }

    /** The split as summary.json's {@code cpu.sender.time_weighted} adds it; empty without the thread's figure. */
    static Map<String, Object> workAndWaiting(CpuWindows.TimeWeighted all, long[] sampleNs, long[] waiting,
                                              RunSpec spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (all.spanNs() == 0) {
            return m;
        }
        CpuWindows.TimeWeighted w = waiting == null ? null : CpuWindows.timeWeighted(sampleNs, waiting,
                spec.cpuEvery(), spec.count(), CpuWindows.PERCENT_OF_ONE_CORE);
        double waitPct = w == null ? 0 : w.rate();
        double waitPerMessage = w == null ? 0 : w.perMessage();
        m.put("work_pct", Json.finite(all.rate() - waitPct));
        m.put("work_ns_per_message", Json.finite(all.perMessage() - waitPerMessage));
        m.put("waiting_pct", Json.finite(waitPct));
        m.put("waiting_ns_per_message", Json.finite(waitPerMessage));
        m.put("waiting_method", waiting == null ? "full speed: no waiting, all of it is work"
                : "the thread's CPU clock read before and after each wait for a --rate send time (parking, then "
                + "spinning the last " + SPIN_US + " µs), summed; work = all - waiting");
        return m;
    }

    /** The console's line: CPU per message as work and as waiting; null at full speed or without CPU samples. */
    static String consoleLine(TraceResult out) {
        Map<Series, long[]> s = out.samples().series();
        long[] t = s.get(Series.SENDER_SAMPLE_NS);
        long[] u = s.get(Series.SENDER_THREAD_CPU_NS);
        long[] w = s.get(Series.SENDER_WAIT_CPU_NS);
        int every = out.spec().cpuEvery();
        if (t == null || u == null || w == null || every <= 0) {
            return null;
        }
        long count = out.spec().count();
        CpuWindows.TimeWeighted all = CpuWindows.timeWeighted(t, u, every, count, CpuWindows.PERCENT_OF_ONE_CORE);
        CpuWindows.TimeWeighted waiting = CpuWindows.timeWeighted(t, w, every, count, CpuWindows.PERCENT_OF_ONE_CORE);
        if (all.messages() <= 0 || waiting.messages() <= 0) {
            return null;
        }
        return "sender thread CPU per message: " + HumanFormat.duration(all.perMessage() - waiting.perMessage())
                + " work + " + HumanFormat.duration(waiting.perMessage()) + " waiting for the send times (--rate "
                + "pacing: parked, then spinning the last " + SPIN_US + " µs)";
    }
}

package io.msgscope.coordinator.trace;

import io.msgscope.control.ControlHub;
import io.msgscope.control.RunSpecs;
import io.msgscope.core.RunSpec;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.Envelope;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A trace run's timeline as run (issue 31): the sender tells the coordinator how each phase that lasted until drained
 * ended, in the frames it sends the receiver through the hub; the analysis then frames the phases on the lengths they
 * took, and a drain that published and ended before its cap leaves the run fewer messages than asked.
 */
final class WordsAsRun {
    private WordsAsRun() {
    }

    /** The drains' ends the sender told through the hub, in order (the receiver's words carry no length). */
    static List<Timeline.WordEnd> ends(ControlHub hub) {
        List<Timeline.WordEnd> ends = new ArrayList<>();
        for (Envelope e : hub.forwarded()) {
            if (e.hasPhaseEnd() && e.getPhaseEnd().getDurationNs() > 0) {
                ends.add(RunSpecs.wordEnd(e.getPhaseEnd()));
            }
        }
        return ends;
    }

    /**
     * One log line per drain, and {@code out}'s spec on the timeline as run: each drain that ended gets the length it
     * took (a drain the run did not reach keeps its cap) and the run the messages it held. A {@code --window} no longer
     * below that count is narrowed to it, with a warning.
     */
    static void apply(List<Timeline.WordEnd> ends, RunSpec spec, TraceCollector out, PrintStream log) {
        for (Timeline.WordEnd e : ends) {
            log.println(io.msgscope.coordinator.results.WordPhaseEnds.line(spec.timeline(), e));
        }
        if (ends.isEmpty()) {
            return;
        }
        Timeline run = spec.timeline().asRun(ends);
        RunSpec.Builder b = spec.toBuilder().timeline(run);
        if (spec.window() >= run.messages()) {
            int window = (int) Math.max(1, run.messages() - 1);
            b.window(window);
            out.warnings.add("--window " + spec.window() + " is not below the " + run.messages() + " messages the run "
                    + "held once its drain ended: its windows are " + window + " messages");
        }
        out.spec = b.build();
    }
}

package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.core.NanoClock;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.PhaseEnd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BooleanSupplier;

/**
 * Where the sender waits out a phase that lasts until drained (issue 31). Such a phase schedules no message, so the
 * sender reaches it when it is due to send the first message after it; it waits there until the receiver's word that
 * the backlog drained comes through the coordinator (stamped on the sender's clock as it arrives), or until the phase's
 * cap ran out, whichever is first. The phase then lasted from its start to that stamp: the timeline as run gives it that
 * length, every later message is due that much earlier than the cap would have it, and the receiver is told the
 * length so that it follows the later phases on the same timeline.
 *
 * <p>Thread use: {@link #heard} on the control channel's event loop, the rest on the sending thread.
 */
final class DrainGate {
    /** What the receiver said, stamped when it arrived here. */
    private record Heard(PhaseEnd end, long atNs) {
    }

    private final NanoClock clock;
    private final AgentRole.PhaseListener listener;
    private final List<Integer> drains;
    private final LinkedBlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
    private final List<Timeline.DrainEnd> ended = new ArrayList<>();
    private final Timeline asked;
    private volatile Timeline timeline;
    private int next;

    DrainGate(Timeline timeline, NanoClock clock, AgentRole.PhaseListener listener) {
        this.asked = timeline;
        this.timeline = timeline;
        this.clock = clock;
        this.listener = listener;
        this.drains = timeline.drainPhases();
    }

    /** The timeline as run so far: the drains that ended have their length, the others their cap. */
    Timeline timeline() {
        return timeline;
    }

    /** The first message after the next drain not yet waited out; MAX_VALUE when none is left. */
    long nextMessage() {
        return next < drains.size() ? timeline.firstMessage(drains.get(next)) : Long.MAX_VALUE;
    }

    /** The receiver's word that drain phase {@code end.phase} ended, as it arrives (on the event loop). */
    void heard(PhaseEnd end) {
        heard.add(new Heard(end, clock.nanoTime()));
    }

    /**
     * Waits until the next drain ends, the timeline starting at {@code startNs} on the sender's clock; false when
     * {@code stopped} said so first (the run was stopped: nothing more is sent).
     */
    boolean await(long startNs, BooleanSupplier stopped) throws InterruptedException {
        final int k = drains.get(next);
        final long phaseStart = startNs + timeline.startNs(k);
        final long capEnd = startNs + timeline.endNs(k);
        final long cap = asked.phases().get(k).drainCapNs();
        Heard h = null;
        while (h == null) {
            if (stopped.getAsBoolean()) {
                return false;
            }
            long left = capEnd - clock.nanoTime();
            if (left <= 0) {
                break;
            }
            Heard c = clock.poll(heard, Math.min(left, 50_000_000L));
            if (c != null && c.end().getPhase() == k) {
                h = c; // a word for an earlier drain, which ended on its cap before it came, is dropped
            }
        }
        if (h != null && h.atNs() > capEnd) {
            h = null; // it came after the cap had ended the phase
        }
        long ns = h == null ? cap : Math.max(1_000_000L, Math.min(cap, h.atNs() - phaseStart));
        String by = h == null ? "cap" : h.end().getEndedBy();
        long missing = h == null ? -1 : h.end().getMissing();
        Timeline.DrainEnd e = new Timeline.DrainEnd(k, ns, by, missing < 0 ? null : missing);
        ended.add(e);
        timeline = asked.asRun(ended);
        next++;
        listener.phaseEnded(PhaseEnd.newBuilder().setPhase(k).setDurationNs(ns).setEndedBy(by).setMissing(missing)
                .build());
        return true;
    }
}

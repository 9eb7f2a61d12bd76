package io.msgscope.agent.sender;

import io.msgscope.control.AgentRole;
import io.msgscope.core.NanoClock;
import io.msgscope.core.timeline.LoadPhase;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.PhaseEnd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BooleanSupplier;

/**
 * Where the sender ends a phase that lasts until drained, or until the broker's count of the backlog reached a target
 * (issue 31): when the receiver's word that the backlog drained (or reached the target) comes through the coordinator
 * (stamped on the sender's clock as it arrives), or when the phase's cap ran out, whichever is first. The phase then lasted from its start to that stamp: the timeline as run gives it that length,
 * every later message is due that much earlier than the cap would have it, and the receiver is told the length so that
 * it follows the later phases on the same timeline.
 *
 * <p>A drain at {@code @0} schedules no message, so the sender reaches it when it is due to send the first message after
 * it and waits there ({@link #await}). A drain that publishes goes on sending at its rate while the consumers catch up,
 * as a backlog target does while the consumers are paused:
 * the sender waits for each of its messages' due time here ({@link #awaitDue}), so that the word is heard as it comes,
 * not a message later; the drain then holds exactly the messages sent before the word, and the next one is the first
 * of the next phase (the timeline as run numbers the later phases on from it, and the run holds fewer messages than
 * the cap allowed: {@link #timeline()}'s count). Its end is stamped no earlier than just after its last message's due
 * time, so every message of it lies inside it.
 *
 * <p>Thread use: {@link #heard} on the control channel's event loop, the rest on the sending thread.
 */
final class WordGate {
    /** What the receiver said, stamped when it arrived here. */
    private record Heard(PhaseEnd end, long atNs) {
    }

    /** How close to a message's due time the wait for the word stops polling, leaving the rest to the send's spin. */
    static final long POLL_MARGIN_NS = 50_000;

    private final NanoClock clock;
    private final AgentRole.PhaseListener listener;
    private final List<Integer> drains;
    private final LinkedBlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
    private final List<Timeline.WordEnd> ended = new ArrayList<>();
    private final Timeline asked;
    private volatile Timeline timeline;
    private int next;

    WordGate(Timeline timeline, NanoClock clock, AgentRole.PhaseListener listener) {
        this.asked = timeline;
        this.timeline = timeline;
        this.clock = clock;
        this.listener = listener;
        this.drains = timeline.wordPhases();
    }

    /** The timeline as run so far: the drains that ended have their length, the others their cap. */
    Timeline timeline() {
        return timeline;
    }

    /**
     * The message at which the next drain not yet ended is waited out: for a drain at {@code @0} the first message
     * after it, for one that publishes the first after its cap; MAX_VALUE when none is left.
     */
    long nextMessage() {
        if (next >= drains.size()) {
            return Long.MAX_VALUE;
        }
        int k = drains.get(next);
        return publishes(k) ? timeline.firstMessage(k + 1) : timeline.firstMessage(k);
    }

    /** The first message of the next drain when it publishes (its messages wait for their due time here); else MAX. */
    long publishingFrom() {
        return next < drains.size() && publishes(drains.get(next)) ? timeline.firstMessage(drains.get(next))
                : Long.MAX_VALUE;
    }

    private boolean publishes(int k) {
        return asked.phases().get(k).kind() != LoadPhase.Kind.PAUSE;
    }

    /** The receiver's word that drain phase {@code end.phase} ended, as it arrives (on the event loop). */
    void heard(PhaseEnd end) {
        heard.add(new Heard(end, clock.nanoTime()));
    }

    /**
     * Waits at message {@code seq} until the next drain ends, the timeline starting at {@code startNs} on the sender's
     * clock; false when {@code stopped} said so first (the run was stopped: nothing more is sent).
     */
    boolean await(long startNs, int seq, BooleanSupplier stopped) throws InterruptedException {
        final int k = drains.get(next);
        final long capEnd = startNs + timeline.endNs(k);
        Heard h = null;
        while (h == null) {
            if (stopped.getAsBoolean()) {
                return false;
            }
            long left = capEnd - clock.nanoTime();
            if (left <= 0) {
                break;
            }
            h = wordFor(k, Math.min(left, 50_000_000L));
        }
        end(k, startNs, seq, h != null && h.atNs() <= capEnd ? h : null); // a word after the cap came too late
        return true;
    }

    /**
     * Waits for message {@code seq} of a drain that publishes, due at {@code dueAt} on the sender's clock, up to
     * {@link #POLL_MARGIN_NS} before it; true when the receiver's word came first: the drain ended before this message,
     * which is now the next phase's first (its due time is the timeline as run's).
     */
    boolean awaitDue(long startNs, int seq, long dueAt) throws InterruptedException {
        final int k = drains.get(next);
        Heard h;
        do {
            h = wordFor(k, Math.max(0, dueAt - POLL_MARGIN_NS - clock.nanoTime()));
        } while (h == null && dueAt - POLL_MARGIN_NS - clock.nanoTime() > 0);
        if (h == null) {
            return false;
        }
        end(k, startNs, seq, h);
        return true;
    }

    /** The word for drain {@code k} if it comes within {@code ns} (0: only one already here); a late one is dropped. */
    private Heard wordFor(int k, long ns) throws InterruptedException {
        Heard c = ns > 0 ? clock.poll(heard, ns) : heard.poll();
        // a word for an earlier drain, which ended on its cap before it came, is dropped
        return c != null && c.end().getPhase() == k ? c : null;
    }

    /**
     * Ends drain {@code k} before message {@code seq}, on the word {@code h} (null: on its cap): its length from its
     * start to the word's stamp, or to just after its last message's due time when that is later, at least 1 ms and at
     * most the cap; the timeline as run takes it, and the coordinator (and through it the receiver) is told.
     */
    private void end(int k, long startNs, int seq, Heard h) {
        final long cap = asked.phases().get(k).wordCapNs();
        final long phaseStart = startNs + timeline.startNs(k);
        long ns = cap;
        if (h != null) {
            long at = h.atNs();
            if (seq > timeline.firstMessage(k)) { // it sent messages of its own: the last lies inside it
                at = Math.max(at, startNs + timeline.dueNs(seq - 1) + 1);
            }
            ns = Math.max(1_000_000L, Math.min(cap, at - phaseStart));
        }
        String by = h == null ? "cap" : h.end().getEndedBy();
        long missing = h == null ? -1 : h.end().getMissing();
        Long broker = h != null && h.end().hasBrokerMessages() ? h.end().getBrokerMessages() : null;
        Timeline.WordEnd e = new Timeline.WordEnd(k, ns, by, missing < 0 ? null : missing, seq, broker);
        ended.add(e);
        timeline = asked.asRun(ended);
        next++;
        PhaseEnd.Builder told = PhaseEnd.newBuilder().setPhase(k).setDurationNs(ns).setEndedBy(by).setMissing(missing)
                .setNextMessage(seq);
        if (broker != null) {
            told.setBrokerMessages(broker);
        }
        listener.phaseEnded(told.build());
    }
}

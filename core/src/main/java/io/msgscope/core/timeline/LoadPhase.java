package io.msgscope.core.timeline;

import java.util.Locale;

/**
 * One phase of a run's timeline (issue 31): a name, a length and the publishing rate over it, which runs linearly from
 * {@code fromRate} to {@code toRate} (equal: a constant rate; both 0: publishers paused), and whether the consumers
 * consume during it.
 *
 * @param name            what the results call it ({@code steady}, {@code ramp}, …); letters, digits, {@code -} and
 *                        {@code _}
 * @param durationNs      how long the phase lasts on the sender's clock, ns
 * @param fromRate        the rate at the phase's start, msg/s
 * @param toRate          the rate at its end, msg/s
 * @param consumersPaused the receiver does not consume during the phase: the broker holds what is sent (a backlog)
 * @param targetMessages  the phase ends when it has sent this many messages (its duration is derived from its constant
 *                        rate); 0 = the phase is given by its duration
 * @param wordCapNs      0 for a phase of a known length; for one that ends on the receiver's word — it lasts until the
 *                        backlog has drained ({@code /drained}: the consumers taking what the broker kept, publishing
 *                        stopped or going on at the phase's constant rate), or until the broker's own count of the
 *                        backlog reached {@code backlogTarget} — the most it may last, ns. Before the run its
 *                        {@code durationNs} is this cap; in the timeline as run ({@link Timeline#asRun}) it is how long
 *                        the phase took
 * @param backlogTarget   0, or for a phase with the consumers paused that ends when the broker says it holds this many
 *                        messages for them ({@code /backlog=N}), N
 */
public record LoadPhase(String name, long durationNs, double fromRate, double toRate, boolean consumersPaused,
                        long targetMessages, long wordCapNs, long backlogTarget) {
    /** What a phase does to the publishers. */
    public enum Kind { CONSTANT, RAMP, PAUSE }

    /** A phase whose consumers consume, given by its duration. */
    public LoadPhase(String name, long durationNs, double fromRate, double toRate) {
        this(name, durationNs, fromRate, toRate, false, 0, 0);
    }

    /** A phase given by its length or its message count, consumers paused or not (no drain). */
    public LoadPhase(String name, long durationNs, double fromRate, double toRate, boolean consumersPaused,
                     long targetMessages) {
        this(name, durationNs, fromRate, toRate, consumersPaused, targetMessages, 0);
    }

    /** A phase given by its length or its message count, or one that lasts until drained (no broker-read target). */
    public LoadPhase(String name, long durationNs, double fromRate, double toRate, boolean consumersPaused,
                     long targetMessages, long wordCapNs) {
        this(name, durationNs, fromRate, toRate, consumersPaused, targetMessages, wordCapNs, 0);
    }

    /** A phase that lasts until the backlog has drained, at most {@code capNs}, publishing stopped. */
    public static LoadPhase untilDrained(String name, long capNs) {
        return new LoadPhase(name, capNs, 0, 0, false, 0, capNs);
    }

    /** Whether the phase lasts until the backlog has drained ({@code /drained}) rather than a length known before. */
    public boolean untilDrained() {
        return wordCapNs > 0 && backlogTarget == 0;
    }

    /** Whether the phase lasts until the broker's count of the backlog reached {@link #backlogTarget} (at most its cap). */
    public boolean untilBacklog() {
        return backlogTarget > 0;
    }

    /**
     * Whether the phase ends on the receiver's word (until drained, or until the broker's backlog reached its target),
     * so that its length, and when it publishes its message count, are known only once it ended.
     */
    public boolean endsOnWord() {
        return wordCapNs > 0;
    }

    /** This phase as run: a drain that took {@code ns}. */
    LoadPhase lasting(long ns) {
        return new LoadPhase(name, ns, fromRate, toRate, consumersPaused, targetMessages, wordCapNs, backlogTarget);
    }

    /**
     * A phase of {@code messages} messages at a constant {@code rate}: it lasts {@code ceil(messages / rate)} s in ns,
     * so each of its messages is due inside it.
     */
    public static LoadPhase ofMessages(String name, long messages, double rate, boolean consumersPaused) {
        long ns = rate > 0 ? (long) Math.ceil(messages * 1e9 / rate) : 0;
        return new LoadPhase(name, ns, rate, rate, consumersPaused, messages);
    }

    public Kind kind() {
        if (fromRate == 0 && toRate == 0) {
            return Kind.PAUSE;
        }
        return fromRate == toRate ? Kind.CONSTANT : Kind.RAMP;
    }

    /** Messages the phase schedules: its target, or the rate integrated over its length (not rounded). */
    public double scheduledMessages() {
        return targetMessages > 0 ? targetMessages : (fromRate + toRate) / 2 * durationNs / 1e9;
    }

    /**
     * The phase as the shorthand writes it, e.g. {@code ramp:60s@5000..50000}, {@code fill:20000msg@5000/paused} or
     * {@code drain:60s@0/drained} or {@code fill:60s@10000/paused/backlog=20000} (a phase that ends on a word as asked,
     * its cap, even once run).
     */
    public String shorthand() {
        String rate = fromRate == toRate ? Timeline.number(fromRate)
                : Timeline.number(fromRate) + ".." + Timeline.number(toRate);
        String length = targetMessages > 0 ? targetMessages + "msg"
                : Timeline.duration(endsOnWord() ? wordCapNs : durationNs);
        return name + ":" + length + "@" + rate + (consumersPaused ? "/paused" : "")
                + (untilBacklog() ? "/backlog=" + backlogTarget : "") + (untilDrained() ? "/drained" : "");
    }

    @Override
    public String toString() {
        return shorthand().toLowerCase(Locale.ROOT);
    }
}

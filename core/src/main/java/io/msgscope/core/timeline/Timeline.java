package io.msgscope.core.timeline;

import io.msgscope.core.SpecException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run as a list of load phases one after the other (issue 31): the sender's schedule and the analysis's frame.
 *
 * <p>The rate {@code r(t)} is piecewise linear, and {@code N(t)}, its integral from the first phase's start, is the
 * number of messages scheduled by offset {@code t}. Message {@code i} (0-based) is due at the offset where
 * {@code N(t) = i}: at a constant rate {@code r} that is {@code i / r}, computed as a plain {@code --rate} run computes
 * it ({@code i × (1e9 / r)} ns, so a one-phase timeline and {@code --rate r} schedule to the same ns); in a
 * ramp from {@code a} to {@code b} over {@code D} it is the root of {@code a t + (b - a) t² / 2D = i - N(start)}; a
 * pause schedules none. The timeline holds {@code ceil(N(end))} messages, the last one due before the last phase ends.
 *
 * <p>The shorthand ({@code --phases}) is a comma-separated list of {@code [NAME:]DURATION@RATE[..RATE]}: a duration with
 * its unit ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}), a rate in msg/s with an optional decimal suffix
 * ({@code 5k} = 5,000, {@code 1.5m} = 1,500,000), {@code 0} for a pause, {@code FROM..TO} for a linear ramp. A missing
 * name is {@code phaseK}. Phases follow one another, so they cannot overlap.
 *
 * <p>Backlogs (issue 31 item 3): {@code /paused} after the rate pauses the consumers for the phase (the receiver stops
 * consuming, the broker keeps what is sent), e.g. {@code fill:10s@5k/paused}; publishing goes on at the phase's rate,
 * or stops at {@code @0}. Instead of a duration such a phase may give the backlog it builds, {@code N[k|m]msg}: it ends
 * when it has sent N messages ({@code fill:20kmsg@5k/paused} lasts 4 s), which is exact because its rate is constant.
 * The phase after it resumes the consumers, and the run's last phase must consume (else nothing drains the backlog).
 * The last phase may be a pause ({@code drain:10s@0}) only after a {@code /paused} phase: publishing stops and the
 * backlog drains "until drained" — the run ends when every message sent has arrived (or the drain timeout counts the
 * rest lost), whatever the phase's duration, which only frames the phase's own figures.
 *
 * <p>A {@code /paused} phase may instead end on the broker's own count of the backlog ({@code /backlog=N}, e.g.
 * {@code fill:60s@10k/paused/backlog=20k}): the receiver reads the broker's count as it does for the results, and
 * when a read says N or more the phase ends as a drain does (below), at the latest after its duration, the cap; it
 * publishes at one constant rate, so its message count too is known only once it ended.
 *
 * <p>A phase in the middle may last "until drained" ({@code /drained}, e.g. {@code drain:60s@0/drained}): the
 * consumers take what the broker kept, and the phase ends when every measured message scheduled before it has arrived
 * (or none of those arrived for the drain timeout: the rest are lost), at the latest after its duration, the cap.
 * Publishing stops ({@code @0}) or goes on at one constant rate ({@code drain:60s@2k/drained}: the consumers catch up
 * while producers keep sending). The receiver sees the end and the sender starts the next phase when it hears of it,
 * so the phases after a drain start earlier than their offsets here say: the timeline as run ({@link #asRun}) gives
 * each drain its length, and every due time after it moves by the difference. A drain at {@code @0} schedules no
 * message, so the number of messages does not change; a drain that publishes schedules its rate times its cap here
 * (the most the run can send), and as run exactly the messages sent before it ended ({@link WordEnd#nextMessage}),
 * the later phases' messages numbered on from there.
 */
public final class Timeline {
    /** Longest timeline: a week. */
    public static final long MAX_NS = 7L * 24 * 3600 * 1_000_000_000L;
    /** Highest rate a phase may ask, msg/s (as {@code --rate}). */
    public static final double MAX_RATE = 100_000_000;

    private static final Pattern PHASE = Pattern.compile(
            "(?:([A-Za-z][A-Za-z0-9_-]{0,31}):)?(?:([0-9]+(?:\\.[0-9]+)?[kKmM]?)msg|([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h))"
                    + "@([0-9]+(?:\\.[0-9]+)?[kKmM]?)(?:\\.\\.([0-9]+(?:\\.[0-9]+)?[kKmM]?))?(/paused)?"
                    + "(?:/backlog=([0-9]+(?:\\.[0-9]+)?[kKmM]?))?(/drained)?");

    private final List<LoadPhase> phases;
    private final long[] startNs;       // each phase's start offset; startNs[k + 1] is its end
    private final double[] startCount;  // N at each phase's start; startCount[k + 1] at its end
    private final double[] periodNs;    // a constant phase's 1e9 / rate, as --rate computes its period; else 0
    private final long messages;
    /** How each drain ended, by phase index, in the timeline as run; empty before the run. */
    private final java.util.Map<Integer, WordEnd> ends;

    /**
     * How a phase that ended on the receiver's word (until drained, or until the broker's backlog reached its target)
     * ended (issue 31): its length on the sender's clock, from its start to when the sender heard that the receiver
     * saw the end; and why it ended.
     *
     * @param phase      the phase's index
     * @param durationNs how long it lasted, ns (at least 1 ms, at most its cap)
     * @param endedBy    {@code drained} (every measured message scheduled before it arrived), {@code quiet} (nothing
     *                   arrived for the drain timeout with some still missing), {@code backlog} (the broker's count
     *                   reached the phase's target) or {@code cap} (its duration ran out)
     * @param missing    measured messages scheduled before it that had not arrived when it ended; null when unknown
     *                   (the cap: the receiver did not say)
     * @param nextMessage the first message after it: the phase's own messages (a drain that publishes, a backlog
     *                   target) are those from its first up to this one, exclusive; -1 when not told (a drain at
     *                   {@code @0} has none, so the next phase's first message is the drain's first)
     * @param brokerMessages a phase that ended on the broker's backlog ({@code backlog}): the broker's count that
     *                   ended it; else null
     */
    public record WordEnd(int phase, long durationNs, String endedBy, Long missing, long nextMessage,
                           Long brokerMessages) {
        /** A drain's end: no broker count. */
        public WordEnd(int phase, long durationNs, String endedBy, Long missing, long nextMessage) {
            this(phase, durationNs, endedBy, missing, nextMessage, null);
        }

        /** A drain's end without its message count: one at {@code @0}, which sends none. */
        public WordEnd(int phase, long durationNs, String endedBy, Long missing) {
            this(phase, durationNs, endedBy, missing, -1);
        }
    }

    public Timeline(List<LoadPhase> phases) {
        this(phases, "--phases", java.util.Map.of());
    }

    private Timeline(List<LoadPhase> phases, String option, java.util.Map<Integer, WordEnd> ends) {
        if (phases.isEmpty()) {
            throw new SpecException(option, "needs at least one phase, e.g. steady:30s@5k");
        }
        this.phases = List.copyOf(phases);
        this.ends = java.util.Map.copyOf(ends);
        int n = phases.size();
        startNs = new long[n + 1];
        startCount = new double[n + 1];
        periodNs = new double[n];
        for (int k = 0; k < n; k++) {
            LoadPhase p = phases.get(k);
            check(option, p, k == n - 1, k > 0 && phases.subList(0, k).stream().anyMatch(LoadPhase::consumersPaused));
            if (MAX_NS - startNs[k] < p.durationNs()) {
                throw new SpecException(option, "the phases last more than a week in all");
            }
            startNs[k + 1] = startNs[k] + p.durationNs();
            startCount[k + 1] = startCount[k] + p.scheduledMessages();
            periodNs[k] = p.kind() == LoadPhase.Kind.CONSTANT ? 1e9 / p.fromRate() : 0;
            WordEnd ended = this.ends.get(k);
            if (ended != null && ended.nextMessage() >= 0 && p.kind() != LoadPhase.Kind.PAUSE) {
                startCount[k + 1] = sentInDrain(k, ended); // a phase that ended on a word and published: what it sent
            }
        }
        messages = (long) Math.ceil(startCount[n] - 1e-6);
        if (messages < 1) {
            throw new SpecException(option, "schedules no message: give a phase a rate above 0");
        }
    }

    /**
     * Where a drain that published ended, as a message count: its {@link WordEnd#nextMessage}, which must lie between
     * its first message and the last its cap allows, every one of its messages due within the length it ran.
     */
    private double sentInDrain(int k, WordEnd e) {
        LoadPhase p = phases.get(k);
        long first = (long) Math.ceil(startCount[k] - 1e-6);
        long most = (long) Math.ceil(startCount[k] + p.fromRate() * p.wordCapNs() / 1e9 - 1e-6);
        if (e.nextMessage() < first || e.nextMessage() > most) {
            throw new IllegalArgumentException("drain phase " + k + " cannot end before message " + e.nextMessage()
                    + " (" + first + " to " + most + ")");
        }
        if (e.nextMessage() > first && (e.nextMessage() - 1 - startCount[k]) * periodNs[k] >= p.durationNs()) {
            throw new IllegalArgumentException("drain phase " + k + " lasted " + p.durationNs() + " ns, too short for "
                    + "its message " + (e.nextMessage() - 1));
        }
        return e.nextMessage();
    }

    private static void check(String option, LoadPhase p, boolean last, boolean afterBacklog) {
        String at = "phase '" + p.name() + "'";
        if (p.targetMessages() > 0 && !p.consumersPaused()) {
            throw new SpecException(option, at + " ends on a backlog of " + p.targetMessages() + " messages, which builds "
                    + "only while the consumers are paused: add /paused (e.g. fill:20kmsg@5k/paused) or give a duration");
        }
        if (p.untilBacklog() && (!p.consumersPaused() || p.kind() != LoadPhase.Kind.CONSTANT)) {
            throw new SpecException(option, at + " ends when the broker's backlog reaches " + p.backlogTarget()
                    + ", which builds only while the consumers are paused and messages are sent: give it /paused and "
                    + "one constant rate above 0 (e.g. fill:60s@10k/paused/backlog=20k)");
        }
        if (p.targetMessages() > 0 && p.kind() != LoadPhase.Kind.CONSTANT) {
            throw new SpecException(option, at + " ends on a backlog of " + p.targetMessages() + " messages: give it "
                    + "one constant rate above 0, so that its end is known (e.g. fill:20kmsg@5k/paused)");
        }
        if (p.durationNs() < 1_000_000) {
            throw new SpecException(option, at + " must last at least 1 ms");
        }
        for (double r : new double[] {p.fromRate(), p.toRate()}) {
            if (!(r >= 0) || r > MAX_RATE) {
                throw new SpecException(option, at + ": a rate must be between 0 and 100000000 msg/s, got "
                        + number(r));
            }
        }
        if (p.kind() == LoadPhase.Kind.RAMP && p.toRate() == 0) {
            throw new SpecException(option, at + " ramps to 0 msg/s: end the ramp above 0 and pause with a phase of "
                    + "its own (e.g. pause:10s@0)");
        }
        if (last && p.consumersPaused()) {
            throw new SpecException(option, at + " pauses the consumers at the end: nothing would drain the backlog; "
                    + "end with a phase that consumes (e.g. drain:10s@0 or drain:10s@5k)");
        }
        if (p.untilDrained() && p.kind() == LoadPhase.Kind.RAMP) {
            throw new SpecException(option, at + " lasts until drained: give it one rate, @0 to stop publishing or a "
                    + "constant rate to publish while the consumers catch up (e.g. drain:60s@2k/drained)");
        }
        if (p.untilDrained() && p.consumersPaused()) {
            throw new SpecException(option, at + " cannot both pause the consumers and wait for them to drain");
        }
        if (p.untilDrained() && !afterBacklog) {
            throw new SpecException(option, at + " lasts until drained, but no phase before it pauses the consumers: "
                    + "put it after a /paused phase (e.g. fill:20kmsg@5k/paused, drain:60s@0/drained)");
        }
        if (p.untilDrained() && last) {
            throw new SpecException(option, at + " lasts until drained at the end: the run itself ends when every "
                    + "message has arrived, so end with drain:60s@0 (/drained is for a phase that others follow)");
        }
        if (last && p.kind() == LoadPhase.Kind.PAUSE && !afterBacklog) {
            throw new SpecException(option, at + " is a pause at the end: a run ends with its last message, so a "
                    + "final pause would measure nothing (after a /paused phase it drains the backlog)");
        }
    }

    /** Parses the {@code --phases} shorthand; a bad element gets a one-line error naming {@code option} and it. */
    public static Timeline parse(String option, String text) {
        if (text == null || text.isBlank()) {
            throw new SpecException(option, "needs at least one phase, e.g. steady:30s@5k");
        }
        List<LoadPhase> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String t = part.trim();
            Matcher m = PHASE.matcher(t);
            if (!m.matches()) {
                throw new SpecException(option, "'" + t + "' is not a phase: write [NAME:]DURATION@RATE or "
                        + "[NAME:]DURATION@FROM..TO, optionally /paused (consumers paused) and N[k]msg for a duration or "
                        + "/backlog=N (until the broker holds N, at most DURATION), or /drained (until the backlog "
                        + "drained, at most DURATION), e.g. steady:30s@5k, ramp:60s@5k..50k, pause:10s@0, "
                        + "fill:20kmsg@5k/paused, fill:60s@5k/paused/backlog=20k, drain:60s@0/drained");
            }
            String name = m.group(1) != null ? m.group(1) : "phase" + (out.size() + 1);
            double from = rate(option, t, m.group(5));
            double to = m.group(6) == null ? from : rate(option, t, m.group(6));
            boolean paused = m.group(7) != null;
            if (m.group(8) != null) { // until the broker's count of the backlog reached N, at most DURATION
                long target = messages(option, t, m.group(8));
                if (m.group(2) != null || m.group(9) != null) {
                    throw new SpecException(option, "'" + t + "' ends when the broker's backlog reaches " + target
                            + ": give it a duration, the most it may last, and no message count or /drained "
                            + "(e.g. fill:60s@10k/paused/backlog=20k)");
                }
                long cap = durationNs(option, t, m.group(3), m.group(4));
                out.add(new LoadPhase(name, cap, from, to, paused, 0, cap, target));
            } else if (m.group(9) != null) {
                if (m.group(2) != null) {
                    throw new SpecException(option, "'" + t + "' lasts until drained: give it a duration, the most it "
                            + "may last, instead of a message count (e.g. drain:60s@0/drained)");
                }
                long cap = durationNs(option, t, m.group(3), m.group(4)); // rate and pause checked with the rest
                out.add(new LoadPhase(name, cap, from, to, paused, 0, cap));
            } else if (m.group(2) != null) {
                out.add(LoadPhase.ofMessages(name, messages(option, t, m.group(2)), from == to ? from : 0, paused));
            } else {
                out.add(new LoadPhase(name, durationNs(option, t, m.group(3), m.group(4)), from, to, paused, 0));
            }
        }
        return new Timeline(out, option, java.util.Map.of());
    }

    private static long durationNs(String option, String phase, String digits, String unit) {
        BigDecimal unitNs = switch (unit) {
            case "ms" -> BigDecimal.valueOf(1_000_000L);
            case "s" -> BigDecimal.valueOf(1_000_000_000L);
            case "m" -> BigDecimal.valueOf(60_000_000_000L);
            default -> BigDecimal.valueOf(3_600_000_000_000L);
        };
        try {
            BigDecimal ns = new BigDecimal(digits).multiply(unitNs);
            if (ns.compareTo(BigDecimal.valueOf(MAX_NS)) > 0) {
                throw new SpecException(option, "'" + phase + "': a phase lasts at most a week");
            }
            return ns.longValue();
        } catch (NumberFormatException e) {
            throw new SpecException(option, "'" + phase + "': '" + digits + unit + "' is not a duration");
        }
    }

    /** A phase's backlog target, {@code N[k|m]} messages: a whole number from 1 to a billion. */
    private static long messages(String option, String phase, String text) {
        double n = rate(option, phase, text);
        if (n != Math.rint(n) || n < 1 || n > 1e9) {
            throw new SpecException(option, "'" + phase + "': a phase's message count must be a whole number from 1 to "
                    + "1000000000, got " + text);
        }
        return (long) n;
    }

    private static double rate(String option, String phase, String text) {
        char last = Character.toLowerCase(text.charAt(text.length() - 1));
        double mult = last == 'k' ? 1e3 : last == 'm' ? 1e6 : 1;
        String digits = mult == 1 ? text : text.substring(0, text.length() - 1);
        try {
            return new BigDecimal(digits).doubleValue() * mult;
        } catch (NumberFormatException e) {
            throw new SpecException(option, "'" + phase + "': '" + text + "' is not a rate in msg/s");
        }
    }

    public List<LoadPhase> phases() {
        return phases;
    }

    /** Messages the timeline schedules, the measured count of a run that follows it. */
    public long messages() {
        return messages;
    }

    /** The timeline's length, ns. */
    public long durationNs() {
        return startNs[phases.size()];
    }

    /** Phase {@code k}'s start, ns from the timeline's start. */
    public long startNs(int k) {
        return startNs[k];
    }

    /** Phase {@code k}'s end, ns from the timeline's start. */
    public long endNs(int k) {
        return startNs[k + 1];
    }

    /** Messages scheduled before phase {@code k} starts: the first message of phase k (if it has any) is this one. */
    public long firstMessage(int k) {
        return (long) Math.ceil(startCount[k] - 1e-6);
    }

    /**
     * The first message of phase {@code k} due at or after offset {@code t} ns, so that the phase's messages due before
     * {@code t} are those from {@link #firstMessage firstMessage(k)} up to it (exclusive); the next phase's first when
     * every one of them is due before {@code t}, and {@code firstMessage(k)} for a pause, which has none.
     */
    public long firstDueFrom(int k, long t) {
        long lo = firstMessage(k);
        long hi = k + 1 < phases.size() ? firstMessage(k + 1) : messages;
        while (lo < hi) { // due times rise with the index within a phase
            long mid = (lo + hi) >>> 1;
            if (dueNs(mid) < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether a phase that ends on a word has not ended yet in this timeline (as run so far). */
    public boolean wordsPending() {
        for (int k : wordPhases()) {
            if (!ends.containsKey(k)) {
                return true;
            }
        }
        return false;
    }

    /** The phase message {@code i} is due in. */
    public int phaseOf(long i) {
        int lo = 0;
        int hi = phases.size() - 1;
        while (lo < hi) { // the last phase whose first message is at or before i (a pause owns none)
            int mid = (lo + hi + 1) >>> 1;
            if (firstMessage(mid) <= i) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        while (lo > 0 && phases.get(lo).kind() == LoadPhase.Kind.PAUSE) {
            lo--;
        }
        return lo;
    }

    /** When message {@code i} is due, ns from the timeline's start. */
    public long dueNs(long i) {
        if (i < 0 || i >= messages) {
            throw new IndexOutOfBoundsException("message " + i + " of " + messages);
        }
        int k = phaseOf(i);
        LoadPhase p = phases.get(k);
        double c = i - startCount[k];          // messages into the phase
        double a = p.fromRate() / 1e9;          // msg/ns at the phase's start
        double slope = (p.toRate() - p.fromRate()) / 1e9 / p.durationNs(); // msg/ns²
        double tau;
        if (c <= 0) {
            tau = 0;
        } else if (slope == 0) { // c periods, the product --rate takes (SenderRole.rateDueNs): the same ns
            tau = c * periodNs[k];
        } else { // slope/2 τ² + a τ - c = 0, written so that a ≈ 0 and slope ≈ 0 both stay exact
            tau = 2 * c / (a + Math.sqrt(a * a + 2 * slope * c));
        }
        return startNs[k] + Math.min((long) tau, p.durationNs() - 1);
    }

    /**
     * The longest time between two consecutive messages' due times, ns: a pause with the gaps around it, or the
     * widest gap of a slow phase (within a phase whose rate changes linearly the gaps change monotonically, so the
     * widest lies at one of its ends), or a run of phases whose consumers are paused, with the gap before it. A
     * receiver that hears nothing for this long is not stalled yet.
     */
    public long longestGapNs() {
        long widest = 0;
        for (int k = 0, from = -1; k < phases.size(); k++) {
            if (!phases.get(k).consumersPaused()) {
                from = -1;
                continue;
            }
            from = from < 0 ? k : from;
            long before = k > 0 && from > 0 ? Math.max(0, startNs[from] - lastDueBefore(from)) : 0;
            widest = Math.max(widest, startNs[k + 1] - startNs[from] + before);
        }
        for (int k = 0; k < phases.size(); k++) {
            long first = firstMessage(k);
            long end = k + 1 < phases.size() ? firstMessage(k + 1) : messages;
            if (first >= end) {
                continue; // a pause: the gap is measured across it from the next phase's first message
            }
            long[] around = {first - 1, first, end - 2, end - 1};
            for (long i : around) {
                if (i >= 0 && i + 1 < messages) {
                    widest = Math.max(widest, dueNs(i + 1) - dueNs(i));
                }
            }
        }
        return widest;
    }

    /** When the last message before phase {@code k} is due, or 0 when there is none. */
    private long lastDueBefore(int k) {
        long first = firstMessage(k);
        return first == 0 ? 0 : dueNs(first - 1);
    }

    /**
     * The indexes of the phases that end on the receiver's word — those that last until drained and those that last
     * until the broker's backlog reached a target — in order; empty when none does.
     */
    public List<Integer> wordPhases() {
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < phases.size(); k++) {
            if (phases.get(k).endsOnWord()) {
                out.add(k);
            }
        }
        return out;
    }

    /** How drain phase {@code k} ended in the timeline as run; null before the run or for another phase. */
    public WordEnd wordEnd(int k) {
        return ends.get(k);
    }

    /**
     * The timeline as run: each drain in {@code ends} given the length it took (the others keep their cap), so every
     * phase after it starts that much earlier than the cap would have it; the same phases and shorthand. A drain that
     * published holds the messages it sent ({@link WordEnd#nextMessage}; without it, its rate times its length), and
     * the later phases' messages are numbered on from there, so the timeline as run holds fewer messages than asked.
     * A drain's length is refused outside 1 ms to its cap, and its message count outside what it could send.
     */
    public Timeline asRun(java.util.Collection<WordEnd> ended) {
        List<LoadPhase> run = new ArrayList<>(phases);
        java.util.Map<Integer, WordEnd> byPhase = new java.util.HashMap<>(ends);
        for (WordEnd e : ended) {
            LoadPhase p = e.phase() >= 0 && e.phase() < phases.size() ? phases.get(e.phase()) : null;
            if (p == null || !p.endsOnWord()) {
                throw new IllegalArgumentException("phase " + e.phase() + " does not end on the receiver's word");
            }
            if (e.durationNs() < 1_000_000 || e.durationNs() > p.wordCapNs()) {
                throw new IllegalArgumentException("drain phase " + e.phase() + " cannot last " + e.durationNs()
                        + " ns (1 ms to " + p.wordCapNs() + ")");
            }
            run.set(e.phase(), p.lasting(e.durationNs()));
            byPhase.put(e.phase(), e);
        }
        return new Timeline(run, "--phases", byPhase);
    }

    /**
     * Whether a phase that lasts until drained publishes and has not ended yet: the run's message count is then at most
     * {@link #messages()}, known only once the drain ended.
     */
    public boolean messagesUnknown() {
        for (int k = 0; k < phases.size(); k++) {
            if (phases.get(k).endsOnWord() && phases.get(k).kind() != LoadPhase.Kind.PAUSE && !ends.containsKey(k)) {
                return true;
            }
        }
        return false;
    }

    /** Whether any phase pauses the consumers: the run builds a backlog. */
    public boolean pausesConsumers() {
        return phases.stream().anyMatch(LoadPhase::consumersPaused);
    }

    /** Whether the consumers are paused at offset {@code t} ns (the phase holding {@code t}; the last one after it). */
    public boolean consumersPausedAt(long t) {
        return phases.get(phaseAt(t)).consumersPaused();
    }

    /** The phase holding offset {@code t} ns: the last one for an offset at or past the end, the first before 0. */
    public int phaseAt(long t) {
        int k = 0;
        while (k < phases.size() - 1 && t >= startNs[k + 1]) {
            k++;
        }
        return k;
    }

    /**
     * {@link #phaseAt(long)} from a guess: one or two compares when {@code t} lies in phase {@code guess}, as the next
     * of a stream of nearly ordered times mostly does (a receiver's deliveries), the scan from phase 0 otherwise.
     */
    public int phaseAt(long t, int guess) {
        final int last = phases.size() - 1;
        if (guess >= 0 && guess <= last && (guess == 0 || t >= startNs[guess]) && (guess == last || t < startNs[guess + 1])) {
            return guess;
        }
        return phaseAt(t);
    }

    /** The rate asked at offset {@code t} ns, msg/s. */
    public double rateAt(long t) {
        for (int k = 0; k < phases.size(); k++) {
            if (t < startNs[k + 1] || k == phases.size() - 1) {
                LoadPhase p = phases.get(k);
                double f = Math.min(1, Math.max(0, (t - startNs[k]) / (double) p.durationNs()));
                return p.fromRate() + (p.toRate() - p.fromRate()) * f;
            }
        }
        throw new IllegalStateException();
    }

    /** The shorthand that parses back to this timeline. */
    public String shorthand() {
        StringBuilder b = new StringBuilder();
        for (LoadPhase p : phases) {
            b.append(b.length() == 0 ? "" : ", ").append(p.shorthand());
        }
        return b.toString();
    }

    static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    static String duration(long ns) {
        if (ns % 1_000_000_000L == 0) {
            return ns / 1_000_000_000L + "s";
        }
        return BigDecimal.valueOf(ns).movePointLeft(6).stripTrailingZeros().toPlainString() + "ms";
    }

    @Override
    public String toString() {
        return shorthand().toLowerCase(Locale.ROOT);
    }
}

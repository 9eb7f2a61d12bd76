package io.msgscope.control;

import io.msgscope.core.NanoClock;
import io.msgscope.proto.Envelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's view of all agents of a run: one inbox for every agent's frames, and
 * {@link #await} that waits for a given frame from a given agent while treating an error frame,
 * a lost connection or a dead process of ANY agent as the run's failure (the coordinator must not
 * wait on a sender blocked by a receiver that died). Frames that arrive early are kept for later.
 *
 * <p>What it keeps is bounded (issue 14: an impostor's 40 frames of 8 MiB took a coordinator from 84
 * to 474 MB): when an agent's frames not yet taken exceed {@link #HIGH_WATER} bytes, reading from it
 * stops until they fall under {@link #LOW_WATER} (a legitimate trace upload just waits), and an agent
 * that sends more than {@link #EARLY_MAX_FRAMES} frames or {@link #EARLY_MAX_BYTES} bytes nothing
 * asked for fails its link and the run.
 */
public final class ControlHub implements AutoCloseable {
    private record Inbound(AgentLink from, Envelope env) {
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final LinkedBlockingQueue<Inbound> inbox = new LinkedBlockingQueue<>();
    private final List<Inbound> early = new ArrayList<>();
    private final List<AgentLink> links = new CopyOnWriteArrayList<>();
    /** Links whose connection closed; waiting on them again fails at once instead of timing out. */
    private final java.util.Set<AgentLink> closed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    public static final long HIGH_WATER = 32L << 20;
    public static final long LOW_WATER = 8L << 20;
    public static final int EARLY_MAX_FRAMES = 1024;
    public static final long EARLY_MAX_BYTES = 16L << 20;

    private final int maxFrame;
    private final ControlCredentials credentials;
    /** What the deadlines of {@link #await} and the links' progress stamps are read on, and the inbox polled with. */
    private final NanoClock clock;
    private final java.util.concurrent.atomic.AtomicLong maxQueued = new java.util.concurrent.atomic.AtomicLong();

    public ControlHub(int maxFrame) {
        this(maxFrame, ControlCredentials.NONE);
    }

    /** With a shared secret, every agent link authenticates before its handshake. */
    public ControlHub(int maxFrame, SharedSecret secret) {
        this(maxFrame, ControlCredentials.of(secret, null));
    }

    /** With credentials, every agent link is secured and authenticated before its handshake (issue 14). */
    public ControlHub(int maxFrame, ControlCredentials credentials) {
        this(maxFrame, credentials, NanoClock.SYSTEM);
    }

    /** On {@code clock} (tests: a fake one, so that a deadline passes without waiting for it). */
    ControlHub(int maxFrame, ControlCredentials credentials, NanoClock clock) {
        this.maxFrame = maxFrame;
        this.credentials = credentials == null ? ControlCredentials.NONE : credentials;
        this.clock = clock;
    }

    ControlCredentials credentials() {
        return credentials;
    }

    /** The most bytes of one agent's frames this hub ever held at once (tests: it stays bounded). */
    public long maxQueuedBytes() {
        return maxQueued.get();
    }

    NanoClock clock() {
        return clock;
    }

    EventLoopGroup group() {
        return group;
    }

    int maxFrame() {
        return maxFrame;
    }

    void register(AgentLink link) {
        links.add(link);
    }

    /** A link whose handshake failed and is tried again: it is no agent of the run (its frames were nothing). */
    void forget(AgentLink link) {
        links.remove(link);
        closed.remove(link);
        dropAll(link);
    }

    /** Frames of one kind from one link that go straight on to another. */
    private record Forward(AgentLink from, Envelope.BodyCase kind, AgentLink to) {
    }

    private final List<Forward> forwards = new CopyOnWriteArrayList<>();
    private final List<Envelope> forwarded = new CopyOnWriteArrayList<>();

    /**
     * From now on every {@code kind} frame from {@code from} is written to {@code to} as it arrives, on the event loop,
     * instead of waiting in the inbox for an {@link #await} (issue 31: a drain's end, which one agent sees and the
     * other acts on while the coordinator waits for the measurement's end); {@link #forwarded} keeps a copy of each.
     */
    public void forward(AgentLink from, Envelope.BodyCase kind, AgentLink to) {
        forwards.add(new Forward(from, kind, to));
    }

    /** Every frame {@link #forward} passed on, in the order they arrived. */
    public List<Envelope> forwarded() {
        return List.copyOf(forwarded);
    }

    /** Called on the event loop; {@code env == null} means the connection closed. */
    void deliver(AgentLink from, Envelope env) {
        if (env != null) {
            for (Forward f : forwards) {
                if (f.from() == from && f.kind() == env.getBodyCase()) {
                    forwarded.add(env);
                    f.to().send(env);
                    return;
                }
            }
            long q = from.queued.addAndGet(env.getSerializedSize());
            maxQueued.accumulateAndGet(q, Math::max);
            if (q > HIGH_WATER && !from.paused) {
                from.autoRead(false); // on the event loop: no more reads from this agent until taken
            }
        }
        inbox.add(new Inbound(from, env));
    }

    /** A frame was taken off the hub: count it out, and resume reading once enough is taken. */
    private void taken(Inbound in) {
        if (in.env() == null) {
            return;
        }
        AgentLink l = in.from();
        long q = l.queued.addAndGet(-in.env().getSerializedSize());
        if (l.paused && q < LOW_WATER) {
            l.resumeReading();
        }
    }

    /** Work for the waiting thread between its looks at the inbox (issue 33: clock probes while a trace run measures). */
    @FunctionalInterface
    public interface Between {
        void run() throws AgentFailure;
    }

    private Between between;
    private boolean inBetween;

    /**
     * From now on (until {@code null}) every wait runs {@code task} on its own thread at least every 100 ms; the task
     * decides whether anything is due. It may wait itself (a clock probe's ping-pong): frames that come meanwhile are
     * kept, and the outer wait looks for its own among them afterwards. Its failure ends the wait.
     */
    public void between(Between task) {
        this.between = task;
    }

    /** Waits up to {@code timeoutMs} for a frame of one of the given kinds from {@code from}. */
    public Envelope await(AgentLink from, long timeoutMs, String what, Envelope.BodyCase... expected)
            throws AgentFailure {
        return await(from, timeoutMs, what, null, null, null, expected);
    }

    /**
     * Like {@link #await}, with no fixed deadline but a stall limit (issue 18): the wait goes on while
     * {@code watched}'s reported progress keeps changing, and fails once it has not changed for {@code stallMs}
     * (from the call, or from the last change), naming how far it got. A slow but steady system is waited for;
     * a stuck one is failed within {@code stallMs}.
     */
    public Envelope awaitProgressing(AgentLink from, AgentLink watched, long stallMs, String what,
                                     Envelope.BodyCase... expected) throws AgentFailure {
        watched.progressWatchFromNow();
        return await(from, stallMs, what, null, null, watched, expected);
    }

    /**
     * Like {@link #await}, but only {@code from} matters (issue 16: the survivors' uploads after a fault): another
     * agent's ERROR frames and its death are set aside, handed to {@code setAside} as one line each, instead of
     * ending the wait, and so is an ERROR frame of {@code from} itself that {@code stale} accepts — one it sent
     * before it was asked, such as its measurement's failure before an upload request.
     */
    public Envelope awaitOnly(AgentLink from, long timeoutMs, String what,
                              java.util.function.Predicate<String> stale,
                              java.util.function.Consumer<String> setAside, Envelope.BodyCase... expected)
            throws AgentFailure {
        return await(from, timeoutMs, what, stale, setAside, null, expected);
    }

    /** @param watched null: a fixed deadline of {@code timeoutMs}; else the deadline is {@code timeoutMs} after its progress last changed */
    private Envelope await(AgentLink from, long timeoutMs, String what, java.util.function.Predicate<String> stale,
                           java.util.function.Consumer<String> setAside, AgentLink watched, Envelope.BodyCase... expected)
            throws AgentFailure {
        boolean onlyFrom = setAside != null;
        Set<Envelope.BodyCase> kinds = EnumSet.noneOf(Envelope.BodyCase.class);
        kinds.addAll(List.of(expected));
        Envelope kept = takeEarly(from, kinds);
        if (kept != null) {
            return kept;
        }
        if (closed.contains(from)) {
            throw new AgentFailure(from.name(), from.lossReason() + " (before " + what + ")", false);
        }
        long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long left = deadline - clock.nanoTime();
            if (left <= 0 && watched != null) {
                deadline = watched.progressChangedNs() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
                left = deadline - clock.nanoTime();
                if (left <= 0) {
                    throw new AgentFailure(from.name(), "no progress for " + timeoutMs + " ms during " + what + " ("
                            + watched.name() + " at " + watched.progress() + " messages)", false);
                }
            }
            if (left <= 0) {
                throw new AgentFailure(from.name(), "no answer within " + timeoutMs + " ms during " + what, false);
            }
            if (between != null && !inBetween) {
                inBetween = true;
                try {
                    between.run();
                } finally {
                    inBetween = false;
                }
                kept = takeEarly(from, kinds); // the task's own waits keep what they were not waiting for
                if (kept != null) {
                    return kept;
                }
            }
            Inbound in;
            try {
                in = clock.poll(inbox, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AgentFailure(from.name(), "interrupted during " + what, false);
            }
            if (in == null) {
                for (AgentLink l : onlyFrom ? List.of(from) : links) {
                    String dead = l.closing() ? null : l.deathReason();
                    if (dead != null) {
                        throw new AgentFailure(l.name(), dead + " during " + what, false);
                    }
                }
                continue;
            }
            if (in.env() == null) {
                closed.add(in.from());
                if (in.from().closing()) {
                    continue;
                }
                if (onlyFrom && in.from() != from) {
                    setAside.accept(in.from().name() + ": " + in.from().lossReason());
                    continue;
                }
                throw new AgentFailure(in.from().name(), in.from().lossReason() + " during " + what, false);
            }
            Envelope env = in.env();
            if ((in.from() != from || !kinds.contains(env.getBodyCase()))
                    && env.getBodyCase() != Envelope.BodyCase.ERROR) {
                AgentLink l = in.from();
                if (l.earlyFrames + 1 > EARLY_MAX_FRAMES || l.earlyBytes + env.getSerializedSize() > EARLY_MAX_BYTES) {
                    String why = flooded(env.getBodyCase());
                    l.fail(why);
                    dropAll(l);
                    throw new AgentFailure(l.name(), why, false);
                }
                l.earlyFrames++;
                l.earlyBytes += env.getSerializedSize();
                early.add(in);
                continue;
            }
            taken(in);
            if (env.getBodyCase() == Envelope.BodyCase.ERROR) {
                // the peer's words, made safe to print (issue 28)
                String text = Frames.peerText(env.getError().getMessage());
                if (!in.from().authenticated()) {
                    // anyone can say anything before authenticating: quoted, and the coordinator picks the exit code
                    throw new AgentFailure(in.from().name(), "refused the connection before authenticating, saying \""
                            + text + "\"", true);
                }
                if (onlyFrom && (in.from() != from || stale.test(env.getError().getMessage()))) {
                    setAside.accept(in.from().name() + ": " + text);
                    continue;
                }
                throw new AgentFailure(in.from().name(), text, env.getError().getUsage(), env.getError().getKind());
            }
            return env; // the frame asked for
        }
    }

    /** The first kept frame of one of {@code kinds} from {@code from}, taken off the hub; null when none. */
    private Envelope takeEarly(AgentLink from, Set<Envelope.BodyCase> kinds) {
        for (Iterator<Inbound> it = early.iterator(); it.hasNext(); ) {
            Inbound in = it.next();
            if (in.from() == from && kinds.contains(in.env().getBodyCase())) {
                it.remove();
                in.from().earlyFrames--;
                in.from().earlyBytes -= in.env().getSerializedSize();
                taken(in);
                return in.env();
            }
        }
        return null;
    }

    /** Why a link that sent too much nothing asked for is closed; {@code last} is the frame over the cap. */
    static String flooded(Envelope.BodyCase last) {
        return "sent more than " + EARLY_MAX_FRAMES + " frames or " + (EARLY_MAX_BYTES >> 20)
                + " MiB that nothing asked for (last: " + last + "); link closed";
    }

    /** Forgets a failed link's kept frames. */
    private void dropAll(AgentLink l) {
        early.removeIf(in -> in.from() == l);
        inbox.removeIf(in -> in.from() == l && in.env() != null);
        l.queued.set(0);
        l.earlyFrames = 0;
        l.earlyBytes = 0;
    }

    public List<AgentLink> links() {
        return links;
    }

    @Override
    public void close() {
        for (AgentLink l : links) {
            l.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}

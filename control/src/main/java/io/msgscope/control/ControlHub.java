package io.msgscope.control;

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
    private final int maxFrame;
    private final SharedSecret secret;

    public ControlHub(int maxFrame) {
        this(maxFrame, null);
    }

    /** With a shared secret, every agent link authenticates before its handshake. */
    public ControlHub(int maxFrame, SharedSecret secret) {
        this.maxFrame = maxFrame;
        this.secret = secret;
    }

    SharedSecret secret() {
        return secret;
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

    /** Called on the event loop; {@code env == null} means the connection closed. */
    void deliver(AgentLink from, Envelope env) {
        inbox.add(new Inbound(from, env));
    }

    /** Waits up to {@code timeoutMs} for a frame of one of the given kinds from {@code from}. */
    public Envelope await(AgentLink from, long timeoutMs, String what, Envelope.BodyCase... expected)
            throws AgentFailure {
        Set<Envelope.BodyCase> kinds = EnumSet.noneOf(Envelope.BodyCase.class);
        kinds.addAll(List.of(expected));
        for (Iterator<Inbound> it = early.iterator(); it.hasNext(); ) {
            Inbound in = it.next();
            if (in.from() == from && kinds.contains(in.env().getBodyCase())) {
                it.remove();
                return in.env();
            }
        }
        if (closed.contains(from)) {
            throw new AgentFailure(from.name(), from.lossReason() + " (before " + what + ")", false);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AgentFailure(from.name(), "no answer within " + timeoutMs + " ms during " + what, false);
            }
            Inbound in;
            try {
                in = inbox.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AgentFailure(from.name(), "interrupted during " + what, false);
            }
            if (in == null) {
                for (AgentLink l : links) {
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
                throw new AgentFailure(in.from().name(), in.from().lossReason() + " during " + what, false);
            }
            Envelope env = in.env();
            if (env.getBodyCase() == Envelope.BodyCase.ERROR) {
                throw new AgentFailure(in.from().name(), env.getError().getMessage(), env.getError().getUsage(),
                        env.getError().getKind());
            }
            if (env.getBodyCase() == Envelope.BodyCase.HEARTBEAT) {
                continue;
            }
            if (in.from() == from && kinds.contains(env.getBodyCase())) {
                return env;
            }
            early.add(in);
        }
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

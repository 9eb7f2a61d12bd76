package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.nats.NatsSettings;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Which server of the URI list the lean engine dials ({@code nats://a:4222,nats://b:4222}), at the start and, with
 * {@code --opt reconnect=true} (issue 32 item 3), after a lost connection.
 *
 * <p>At the start each server is tried once, in the order given, and the first that takes the connection is kept
 * (a refusal, e.g. bad credentials, ends the attempts at once: the next server would refuse as well); with
 * {@code --opt spread=true} the order starts at the next server in turn for each connection the agent opens
 * ({@link #NEXT_FIRST}), so N connections over S servers put N/S on each, give or take one, while all answer. After a loss
 * {@link #reconnect} dials the servers round-robin from the one after the lost one, {@link NatsSettings#RECONNECT_WAIT}
 * (100 ms) between two attempts, as jnats does with the option, until one takes the connection, the owner closes or
 * {@link #GIVE_UP_NS} have passed (the run then fails as without the option, naming the last attempt's failure).
 * The owner subscribes again itself; nothing here is counted.
 */
final class NatsReconnect {
    /** How long attempts go on before the connection is given up (as the netty MQTT engine). */
    static final long GIVE_UP_NS = 30_000_000_000L;
    /** With {@code spread}: the server the agent's next connection tries first (one count for the whole process). */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_FIRST = new java.util.concurrent.atomic.AtomicInteger();

    private NatsReconnect() {
    }

    /** The first server of the list that takes the connection; the last failure when none does. */
    static NettyNatsConnection connect(NatsSettings s, ClientContext context, String role,
            NettyNatsConnection.Owner owner) throws IOException {
        int n = s.servers().size();
        int first = s.spread() ? Math.floorMod(NEXT_FIRST.getAndIncrement(), n) : 0;
        for (int i = 0; ; i++) {
            try {
                return NettyNatsConnection.open(n == 1 ? s : s.onServer((first + i) % n), context, role, owner);
            } catch (Fault f) {
                if (f.kind() == Fault.Kind.REFUSED || i == n - 1) {
                    throw f;
                }
            }
        }
    }

    /**
     * Dials {@code lost}'s successors round-robin until one is connected (CONNECT taken: its PONG came). A refusal
     * ends the attempts at once, as does {@code closing}; running out of time is a {@link Fault.Kind#CONNECTION_LOST}
     * naming the lost connection's reason and the last attempt's.
     */
    static NettyNatsConnection reconnect(NettyNatsConnection lost, ClientContext context, String role,
            NettyNatsConnection.Owner owner, BooleanSupplier closing) throws IOException {
        final NatsSettings all = lost.settings;
        final int n = all.servers().size();
        int next = (Math.max(0, all.servers().indexOf(all.url())) + 1) % n;
        final long deadline = System.nanoTime() + GIVE_UP_NS;
        String last = null;
        while (!closing.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                return NettyNatsConnection.open(all.onServer(next), context, role, owner);
            } catch (Fault f) {
                if (f.kind() == Fault.Kind.REFUSED) {
                    throw f;
                }
                last = f.getMessage();
            }
            next = (next + 1) % n;
            LockSupport.parkNanos(NatsSettings.RECONNECT_WAIT.toNanos());
        }
        throw new Fault(Fault.Kind.CONNECTION_LOST, lost.lostReason() + " and not got back"
                + (closing.getAsBoolean() ? " before the end" : " within " + GIVE_UP_NS / 1_000_000_000L
                + " s (--opt reconnect=true): " + last));
    }

    /** Whether a lost connection is one to get back: lost (not refused, not closed by us) with the option on. */
    static boolean worthGettingBack(NettyNatsConnection c) {
        return c.settings.reconnect() && c.lostWhy() != null && !c.closedByUs()
                && c.lostKind() == Fault.Kind.CONNECTION_LOST;
    }
}

package io.msgscope.driver.amqp10;

import io.msgscope.core.driver.Reconnects;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.ReconnectOptions;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientIOException;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * {@code --opt reconnect=true} for AMQP 1.0 (issue 32 item 3), done by ProtonJ2's own reconnect
 * ({@link ReconnectOptions}), which does what msgscope needs and shows each step: on a lost connection it connects
 * again (here every {@value #WAIT_MS} ms, no back-off, to the next node of the {@code --uri} list, round the list),
 * opens the session and every link again with the same options (so a receiver's source and a sender's target name
 * the same node as before), and fails the settlement of every transfer the lost link left unsettled with a
 * {@link ClientIOException} ("send result is unknown") rather than forgetting it. Its connection events are counted
 * here ({@link Events}); the publisher sends those transfers again itself ({@link Amqp10Resend}). Unlike
 * amqp-client's automatic recovery (docs/drivers/amqp.md) nothing is hidden: the unsettled transfers fail visibly,
 * and a receiver's link comes back on the same named node.
 *
 * <p>The first connection is tried once, as without the option (a broker that is not there fails the run at
 * once); after a loss ProtonJ2 tries {@value #ATTEMPTS} times, about {@value #GIVE_UP_MS} ms at one attempt every
 * {@value #WAIT_MS} ms against a refusing port (longer when each attempt waits for its connect time-out), then the
 * connection fails and the run with it, as without the option.
 */
final class Amqp10Reconnect {
    /** The wait between two attempts, as the other drivers' reconnects. */
    static final int WAIT_MS = 100;
    /** How long a side keeps trying, as the AMQP 0-9-1 driver's. */
    static final long GIVE_UP_MS = 120_000;
    static final int ATTEMPTS = (int) (GIVE_UP_MS / WAIT_MS);
    /** How often a publisher waiting for its connection to come back looks again. */
    static final long LOOK_AGAIN_NS = 10_000_000;
    /** How often a publisher offers a new message again while its link has no credit. */
    static final long NO_CREDIT_NS = 50_000;

    private Amqp10Reconnect() {
    }

    /**
     * One connection's events as ProtonJ2 reports them on its notification thread; read by the side's own thread.
     */
    static final class Events {
        private volatile boolean down;
        private volatile long reconnects;
        private volatile String gaveUp;

        /** The connection was lost (or an attempt to get it back failed); ProtonJ2 tries again. */
        void interrupted() {
            down = true;
        }

        /** The connection is back, its links open again. */
        void reconnected() {
            reconnects++; // one writer: the connection's notification thread, in the order of the events
            down = false;
        }

        /** ProtonJ2 gave up (or the connection failed in a way it does not reconnect from). */
        void disconnected(String why) {
            gaveUp = why == null ? "the connection failed" : why;
        }

        /** Whether the connection is lost and being got back. */
        boolean down() {
            return down;
        }

        /** Connections got back after a loss: {@link Reconnects#PUBLISHER_RECONNECTS} or {@code SUBSCRIBER_RECONNECTS}. */
        long reconnects() {
            return reconnects;
        }

        /** Why the connection is gone for good, or null while it is open or being got back. */
        String gaveUp() {
            return gaveUp;
        }
    }

    /**
     * Switches ProtonJ2's reconnect on in {@code c}: every {@link #WAIT_MS} ms, {@link #ATTEMPTS} attempts after a
     * loss, one for the first connection, the other nodes of {@code nodes} (the first is the one connected first) as
     * further locations; its events go to {@code events}.
     */
    static void configure(ConnectionOptions c, List<Amqp10Connections.Node> nodes, Events events) {
        ReconnectOptions r = c.reconnectOptions();
        r.reconnectEnabled(true);
        r.reconnectDelay(WAIT_MS);
        r.maxReconnectDelay(WAIT_MS);
        r.useReconnectBackOff(false);
        r.maxReconnectAttempts(ATTEMPTS);
        r.maxInitialConnectionAttempts(1);
        r.warnAfterReconnectAttempts(0);
        for (Amqp10Connections.Node n : nodes.subList(1, nodes.size())) {
            r.addReconnectLocation(n.host(), n.port());
        }
        c.interruptedHandler((connection, e) -> events.interrupted());
        c.reconnectedHandler((connection, e) -> events.reconnected());
        c.disconnectedHandler((connection, e) -> events.disconnected(
                e.failureCause() == null ? null : Amqp10Connections.describe(e.failureCause())));
    }

    /** The one line when {@code side} did not get its connection to {@code address} back: ProtonJ2 gave up, or time. */
    static io.msgscope.core.driver.Fault notBack(String side, String address, Events events) {
        String gone = events.gaveUp();
        return new io.msgscope.core.driver.Fault(io.msgscope.core.driver.Fault.Kind.CONNECTION_LOST, "amqp10: the "
                + side + " could not reconnect to " + address + ": " + (gone != null ? gone : "still down after "
                + GIVE_UP_MS / 1000 + " s"));
    }

    /**
     * Whether {@code e} is a lost connection that ProtonJ2 is getting back, while it has not given up: a
     * connection-level failure ({@link ClientIOException}), or a send that met the dead transport before ProtonJ2
     * noticed the loss (a plain ClientException caused by an I/O error: "Cannot send to a non-connected
     * transport"). A link the broker closed (a refused node) is not.
     */
    static boolean survivable(Throwable e, Events events) {
        if (events == null || events.gaveUp() != null) {
            return false;
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof ClientIOException || c instanceof java.io.IOException
                    || c instanceof java.io.UncheckedIOException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code t}'s transfer ended without an outcome because its connection was lost (see the class comment). */
    static boolean lost(Tracker t, Events events) {
        Future<Tracker> f = t.settlementFuture();
        if (!f.isDone()) {
            return false;
        }
        try {
            f.get();
            return false;
        } catch (ExecutionException e) {
            return survivable(e.getCause(), events);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (CancellationException e) {
            return false;
        }
    }
}

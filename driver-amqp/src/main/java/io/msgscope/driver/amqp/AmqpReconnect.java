package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * What both sides share to get a lost connection back with {@code --opt reconnect=true} (issue 32 item 3), done by
 * msgscope itself rather than by amqp-client's automatic recovery (docs/drivers/amqp.md says why): which losses are
 * survived, how often and how long a side tries again, and what it gets back.
 */
final class AmqpReconnect {
    /** The wait between two attempts to connect. */
    static final long WAIT_NS = 100_000_000L;
    /** A side gives up (the run then fails as without the option) after this long without a connection. */
    static final long GIVE_UP_NS = 120_000_000_000L;

    private AmqpReconnect() {
    }

    /** A connection with its one channel (and, NIO, its outgoing frame queue, else null). */
    record Link(Connection connection, Channel channel, AmqpShared.CountingWriteQueue writeQueue) {
    }

    /**
     * The nodes of {@code --uri} in turn: the first connection goes to the first, each later attempt to the next
     * one, round the list (one node: always the same). One side's, used by one thread at a time.
     */
    static final class Nodes {
        private final java.util.List<com.rabbitmq.client.Address> list;
        private int next;

        Nodes(java.util.List<com.rabbitmq.client.Address> list) {
            this.list = list;
        }

        /** The node to try now, or null with a single node (the factory's own). */
        com.rabbitmq.client.Address next() {
            if (list.size() < 2) {
                return null;
            }
            return list.get(next++ % list.size());
        }
    }

    /** Opens a side's connection and channel again, redeclaring what the side declared. */
    interface Opener {
        Link open() throws IOException;
    }

    /**
     * Whether {@code s} is a lost connection that reconnecting survives: the socket gone (a broker killed, a network
     * cut: no close method) or a broker that closed the connection as it shut down (320 CONNECTION_FORCED). A channel
     * closed by the broker for a cause of the run's own (a missing queue, a refused flag) is not: it would come again.
     */
    static boolean survivable(ShutdownSignalException s) {
        if (s == null || s.isInitiatedByApplication() || !s.isHardError()) {
            return false;
        }
        return s.getReason() == null || AmqpConnections.replyCode(s) == 320;
    }

    /**
     * Tries {@code opener} every {@link #WAIT_NS} until it succeeds or {@code deadlineNs} passes; then the last
     * failure, one line naming {@code side}, and how long it tried.
     */
    static Link reopen(Opener opener, long deadlineNs, String side) throws IOException {
        long started = System.nanoTime();
        while (true) {
            try {
                return opener.open();
            } catch (IOException | ShutdownSignalException e) {
                if (System.nanoTime() - deadlineNs > 0) {
                    throw new IOException("amqp: the " + side + " could not reconnect within "
                            + (System.nanoTime() - started) / 1_000_000_000L + " s: "
                            + (e instanceof IOException io && io.getMessage() != null ? io.getMessage()
                            : AmqpConnections.describe(e)), e);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new IOException("amqp: interrupted while the " + side + " reconnected", e);
                }
                LockSupport.parkNanos(WAIT_NS);
            }
        }
    }

    /** Closes what is left of a lost connection without waiting for the broker. */
    static void abandon(Connection c) {
        if (c != null) {
            c.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
        }
    }
}

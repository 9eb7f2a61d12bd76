package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Command;
import com.rabbitmq.client.ShutdownSignalException;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A transactional {@link AmqpPublisher}'s commits ({@code --opt tx_size=N}): tx.commit after every {@code tx_size}
 * publishes, answered before the next publish ({@link #published}, send) or sent without waiting ({@link #offered},
 * the scenario runtime's offer, issue 13), whose answer {@link #answered} looks for: RabbitMQ closes a channel that
 * publishes while its tx.commit is under way (504 CHANNEL_ERROR). On the sending thread only.
 */
final class PublisherTransactions {
    private static final com.rabbitmq.client.Method COMMIT = new AMQP.Tx.Commit.Builder().build();

    private final int txSize;
    private int inTx;
    private long commits;
    private CompletableFuture<Command> pending;

    PublisherTransactions(int txSize) {
        this.txSize = txSize;
    }

    /** Transactions committed: {@code producer_tx_commits}. */
    long commits() {
        return commits;
    }

    /** One message published by send: every {@code tx_size}, a tx.commit waited for. */
    void published(Channel ch) throws IOException {
        if (txSize > 0 && ++inTx == txSize) {
            ch.txCommit();
            inTx = 0;
            commits++;
        }
    }

    /** One message published by offer: every {@code tx_size}, a tx.commit sent without waiting for its answer. */
    void offered(Channel ch) throws IOException {
        if (txSize > 0 && ++inTx == txSize) {
            pending = ch.asyncCompletableRpc(COMMIT);
            inTx = 0;
        }
    }

    /** True when no tx.commit sent by {@link #offered} is outstanding; a failed one is thrown. */
    boolean answered() throws IOException {
        CompletableFuture<Command> c = pending;
        if (c == null) {
            return true;
        }
        if (!c.isDone()) {
            return false;
        }
        pending = null;
        try {
            c.join();
            commits++;
            return true;
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            throw failure(e.getCause() != null ? e.getCause() : e);
        }
    }

    /**
     * At the end: waits for the commit {@link #offered} sent last, until {@code deadlineNs}, and commits what is left
     * open; false when that commit is still unanswered at the deadline.
     */
    boolean finish(Channel ch, long deadlineNs) throws IOException {
        if (pending != null) {
            try {
                pending.get(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                commits++;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                throw failure(e.getCause() != null ? e.getCause() : e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("amqp: interrupted while waiting for a tx.commit", e);
            } finally {
                pending = null;
            }
        }
        if (txSize > 0 && inTx > 0) {
            ch.txCommit();
            inTx = 0;
            commits++;
        }
        return true;
    }

    private static RuntimeException failure(Throwable t) throws IOException {
        if (t instanceof IOException io) {
            throw io;
        }
        if (t instanceof ShutdownSignalException s) {
            return s;
        }
        throw new IOException(AmqpConnections.describe(t), t);
    }
}

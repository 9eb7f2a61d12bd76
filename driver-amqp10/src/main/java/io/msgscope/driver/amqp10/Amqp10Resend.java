package io.msgscope.driver.amqp10;

import io.msgscope.core.driver.Confirmations;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.exceptions.ClientException;

import java.nio.ByteBuffer;

/**
 * What a publisher with {@code --opt reconnect=true} and unsettled transfers keeps (issue 32 item 3): per slot of its
 * window of {@code max_inflight} transfers, a copy of the message and its measured sequence, until the transfer's
 * disposition, so that a transfer the lost connection left without an outcome can be sent again; and which measured
 * sequences the broker accepted ({@link Confirmations}: {@code messages_confirmed}, {@code messages_unconfirmed},
 * {@code messages_republished}). An accepted transfer is AMQP 1.0's publisher confirm: RabbitMQ's plugin accepts an
 * unsettled transfer once its queues confirmed it.
 *
 * <p>The copies are allocated once ({@code max_inflight} x {@code --size} bytes, bounded by
 * {@link Amqp10Options#MAX_KEPT_BYTES}), each wrapped by a {@link Message} of its own: nothing per message.
 */
final class Amqp10Resend {
    private final byte[][] bodies;
    private final Message<byte[]>[] messages;
    private final long[] seqs;
    private final Confirmations confirmations = new Confirmations();

    @SuppressWarnings("unchecked")
    Amqp10Resend(int slots, int size, boolean durable) throws ClientException {
        bodies = new byte[slots][size];
        messages = new Message[slots];
        seqs = new long[slots];
        for (int k = 0; k < slots; k++) {
            messages[k] = Message.create(bodies[k]);
            messages[k].durable(durable);
        }
    }

    /**
     * Slot {@code k} takes the message at {@code off} of {@code buffer} (measured sequence {@code seq}, negative in
     * the warm-up): copied, noted as sent, and returned to be sent.
     */
    Message<byte[]> keep(int k, ByteBuffer buffer, int off, long seq) {
        byte[] body = bodies[k];
        if (buffer.hasArray()) {
            System.arraycopy(buffer.array(), buffer.arrayOffset() + off, body, 0, body.length);
        } else {
            buffer.get(off, body, 0, body.length);
        }
        seqs[k] = seq;
        confirmations.sent(seq);
        return messages[k];
    }

    /** Slot {@code k}'s message, to be sent again: counted {@code messages_republished}. */
    Message<byte[]> again(int k) {
        confirmations.republished();
        return messages[k];
    }

    /** Slot {@code k}'s transfer was accepted: its measured sequence is confirmed. */
    void accepted(int k) {
        confirmations.confirm(seqs[k]);
    }

    Confirmations confirmations() {
        return confirmations;
    }
}

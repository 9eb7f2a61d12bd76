package io.msgscope.driver.stomp;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Publisher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One publisher connection: a SEND frame per message ({@link StompSend}) to the subscriber's destination, framed on
 * the sending thread into a {@link SendBatch} that the event loop writes and flushes whole. With
 * {@code --opt receipts=N} every Nth SEND asks for a RECEIPT, counted as publisher confirms ({@link ReceiptWindow}:
 * {@code messages_acked}, {@code messages_confirmed}, {@code messages_unconfirmed}) and bounded by
 * {@code max_inflight}; without receipts nothing is confirmed and the bound is the socket's writability (Netty's
 * write buffer water marks) and {@link SendBatch#HIGH_WATER} bytes framed and not yet written.
 */
final class StompPublisher implements Publisher {
    private static final long WRITABLE_PARK_NS = 50_000;

    private final StompSettings settings;
    private final int messageSize;
    private final StompConnection connection;
    private final Channel channel;
    private final StompSend frame;
    private final AckCounts counts = new AckCounts();
    private final ReceiptWindow window;
    private final SendBatch batch = new SendBatch();
    private final Runnable writeTask = this::writeBatch;

    StompPublisher(StompSettings s, int messageSize, ClientContext context) throws IOException {
        this.settings = s;
        this.messageSize = messageSize;
        this.frame = new StompSend(s, messageSize);
        this.window = s.receipts() > 0 ? new ReceiptWindow(s.receipts(), s.maxInflight(), counts) : null;
        this.connection = new StompConnection(s, new StompConnection.Frames() {
            @Override
            public void onReceipt(String receiptId) {
                if (window != null) {
                    window.receipt(receiptId);
                }
            }
        });
        connection.connect(context, 0);
        this.channel = connection.channel();
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        for (int off = offset; off < offset + length; off += messageSize) {
            if (window != null ? !window.tryAcquire() : !writable()) {
                waitForRoom();
            }
            write(buffer, off);
        }
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        checkOpen();
        if (window != null ? !window.tryAcquire() : !writable()) {
            return false;
        }
        write(buffer, offset);
        return true;
    }

    private boolean writable() {
        return channel.isWritable() && !batch.full();
    }

    /** Waits for a receipt window slot (taking it) or, without receipts, for the socket to take more. */
    private void waitForRoom() throws IOException {
        try {
            if (window != null) {
                while (!window.acquire(1_000)) {
                    checkOpen();
                }
                return;
            }
            while (!writable()) {
                checkOpen();
                LockSupport.parkNanos(WRITABLE_PARK_NS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for STOMP receipts", e);
        }
    }

    /** Sending thread: frames one SEND into the batch, and schedules the event loop's write when none is on its way. */
    private void write(ByteBuffer buffer, int off) {
        long receipt = window == null ? -1 : window.sent(WireHeader.sequence(buffer, off));
        if (batch.append(frame, buffer, off, receipt)) {
            channel.eventLoop().execute(writeTask);
        }
    }

    /** Event loop: writes and flushes what the batch holds. */
    private void writeBatch() {
        ByteBuf out = batch.take(StompConnection.ALLOCATOR);
        if (out != null) {
            channel.writeAndFlush(out, channel.voidPromise());
        }
    }

    private void checkOpen() throws IOException {
        String why = connection.lostReason();
        if (why != null || !channel.isActive()) {
            throw new IOException(why != null ? why : "the connection to " + settings.address() + " is closed");
        }
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        channel.eventLoop().execute(writeTask);
        boolean flushed = channel.writeAndFlush(Unpooled.EMPTY_BUFFER).awaitUninterruptibly(timeoutMs);
        if (window == null) {
            if (!flushed) {
                throw new IOException("the socket to " + settings.address() + " took nothing for " + timeoutMs + " ms");
            }
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (window.waiting() > window.unreceipted()) {
            checkOpen();
            if (System.nanoTime() - deadline > 0) {
                throw new IOException((window.waiting() - window.unreceipted()) + " STOMP SENDs without their RECEIPT "
                        + "after " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = new HashMap<>(counts.counters(window != null, false));
        if (window != null) {
            m.putAll(window.confirmations().counters());
        }
        return Map.copyOf(m);
    }

    @Override
    public boolean confirms() {
        return settings.reliable();
    }

    @Override
    public long confirmedSoFar() {
        return window == null ? -1 : window.confirmations().confirmed();
    }

    @Override
    public long[] unconfirmed() {
        return window == null ? null : window.confirmations().unconfirmedRanges();
    }

    @Override
    public String firstError() {
        return counts.firstError() != null ? counts.firstError() : connection.lostReason();
    }

    @Override
    public void close() {
        if (channel.isActive()) {
            channel.eventLoop().submit(writeTask).awaitUninterruptibly(2_000);
        }
        connection.close();
    }
}

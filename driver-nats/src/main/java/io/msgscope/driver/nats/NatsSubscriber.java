package io.msgscope.driver.nats;

import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Receives through a jnats Dispatcher, whose thread runs the handler first thing: jnats hands over a
 * byte[] per message (its allocation), which is copied into one preallocated little-endian buffer so
 * the handler gets the usual ByteBuffer view without a wrapper object per message. Core NATS: the
 * subscription is flushed to the server before the subject is reported. JetStream: a stream named
 * after the subject is created (and deleted on close) and read with an ordered push consumer.
 * Payloads shorter than the header: {@code errors} and {@code short_payloads}; slow-consumer events
 * (messages the client dropped): {@code errors} and {@code slow_consumer_events}.
 */
final class NatsSubscriber implements Subscriber {
    private final NatsSettings settings;
    private final Connection conn;
    private final DeliveryCount count = new DeliveryCount();
    private final AtomicLong slowConsumer = new AtomicLong();
    private final AtomicLong asyncErrors = new AtomicLong();
    private final String stream;
    private ByteBuffer rx; // delivery thread only
    private volatile MessageHandler handler;
    private volatile boolean closed;
    private long shortPayloads; // delivery thread only

    NatsSubscriber(NatsSettings s, int size) throws IOException {
        this.settings = s;
        this.rx = ByteBuffer.allocate(Math.max(size, WireHeader.SIZE)).order(ByteOrder.LITTLE_ENDIAN);
        this.conn = s.connect("sub", count, new ErrorListener() {
            @Override
            public void slowConsumerDetected(Connection conn, Consumer consumer) {
                slowConsumer.incrementAndGet();
            }

            @Override
            public void errorOccurred(Connection conn, String error) {
                asyncErrors.incrementAndGet();
            }
        });
        String streamName = null;
        try {
            Dispatcher d = conn.createDispatcher();
            io.nats.client.MessageHandler mh = this::onMessage;
            if (s.jetStream()) {
                streamName = "MSGSCOPE_" + s.subject().replaceAll("[^A-Za-z0-9_-]", "_");
                JetStreamManagement jsm = conn.jetStreamManagement();
                jsm.addStream(StreamConfiguration.builder().name(streamName).subjects(s.subject())
                        .storageType(s.memory() ? StorageType.Memory : StorageType.File).build());
                conn.jetStream().subscribe(s.subject(), d, mh, false,
                        PushSubscribeOptions.builder().stream(streamName).ordered(true).build());
            } else {
                if (s.group().isEmpty()) {
                    d.subscribe(s.subject(), mh);
                } else {
                    d.subscribe(s.subject(), s.group(), mh);
                }
            }
            conn.flush(NatsSettings.CONNECT_TIMEOUT);
        } catch (JetStreamApiException e) {
            closeQuietly();
            throw new IOException("JetStream at " + s.address() + " refused the stream for '" + s.subject() + "': "
                    + e.getMessage(), e);
        } catch (TimeoutException e) {
            closeQuietly();
            throw new IOException("NATS at " + s.address() + " did not confirm the subscription to '" + s.subject()
                    + "' within " + NatsSettings.CONNECT_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            closeQuietly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while subscribing at " + s.address());
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw new IOException("cannot subscribe to '" + s.subject() + "' at " + s.address() + ": "
                    + NatsSettings.oneLine(e), e);
        }
        this.stream = streamName;
    }

    private void onMessage(Message m) {
        MessageHandler h = handler;
        if (h == null) {
            h = awaitHandler();
            if (h == null) {
                return;
            }
        }
        final byte[] data = m.getData();
        final int len = data == null ? 0 : data.length;
        if (len < WireHeader.SIZE) {
            shortPayloads++;
        } else {
            ByteBuffer b = rx;
            if (len > b.capacity()) { // larger than announced: grow once
                b = rx = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
            }
            b.put(0, data, 0, len);
            h.onMessage(b, 0);
        }
        count.delivered();
    }

    private MessageHandler awaitHandler() {
        MessageHandler h;
        while ((h = handler) == null && !closed) {
            LockSupport.parkNanos(100_000);
        }
        return h;
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        if (this.handler != handler) {
            this.handler = handler;
        }
        return count.await(timeoutMs);
    }

    @Override
    public String destination() {
        return settings.subject();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = shortPayloads;
        long slow = slowConsumer.get();
        return Map.of("errors", shorts + slow + asyncErrors.get(), "short_payloads", shorts,
                "slow_consumer_events", slow);
    }

    private void closeQuietly() {
        try {
            conn.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (stream != null) {
            try {
                conn.jetStreamManagement().deleteStream(stream);
            } catch (Exception e) {
                // the server may be gone already: nothing more to clean up from here
            }
        }
        closeQuietly();
    }
}

package io.msgscope.driver.rabbitstream;

import com.rabbitmq.stream.Consumer;
import com.rabbitmq.stream.ConsumerBuilder;
import com.rabbitmq.stream.OffsetSpecification;
import io.msgscope.core.driver.HandOver;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The consumer: the client's delivery thread hands each message's body to a {@link HandOver} (polled in trace mode,
 * pushed in scenario mode). With {@code single_active} the consumers of a stream share a name and only the active
 * one receives. Closing deletes the stream the run created.
 */
final class RabbitStreamSubscriber implements Subscriber {
    private final HandOver delivery = new HandOver();
    private final StreamEnvironments.Lease env;
    private final Consumer consumer;
    private final String stream;
    private final boolean own;

    RabbitStreamSubscriber(RabbitStreamOptions o, StreamEnvironments.Lease env, String stream, boolean own, String address) {
        this.env = env;
        this.stream = stream;
        this.own = own;
        ConsumerBuilder b = env.env().consumerBuilder().stream(stream).offset(offset(o))
                .messageHandler((ctx, m) -> {
                    delivery.deliver(ByteBuffer.wrap(m.getBodyAsBinary()).order(ByteOrder.LITTLE_ENDIAN));
                });
        if (o.credits() > 0) {
            b = b.flow().initialCredits(o.credits()).builder();
        }
        if (o.singleActive()) {
            b = b.name("msgscope-sac-" + stream).singleActiveConsumer().noTrackingStrategy();
        }
        this.consumer = b.build();
    }

    static OffsetSpecification offset(RabbitStreamOptions o) {
        return switch (o.offset()) {
            case "first" -> OffsetSpecification.first();
            case "last" -> OffsetSpecification.last();
            case "timestamp" -> OffsetSpecification.timestamp(o.timestampMs());
            default -> OffsetSpecification.next();
        };
    }

    @Override
    public String destination() {
        return stream;
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return delivery.poll(handler, timeoutMs);
    }

    @Override
    public void start(MessageHandler handler, java.util.function.Consumer<String> ended) {
        delivery.start(handler, ended);
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("short_payloads", delivery.shortPayloads());
        return c;
    }

    @Override
    public Map<String, String> serverInfo() {
        return Map.of("protocol", "RabbitMQ stream", "stream", stream);
    }

    @Override
    public void close() throws IOException {
        delivery.closing();
        try {
            consumer.close();
        } catch (RuntimeException e) {
            // closing anyway
        }
        if (own) {
            RabbitStreamDriver.delete(env.env(), stream);
        }
        env.release();
    }
}

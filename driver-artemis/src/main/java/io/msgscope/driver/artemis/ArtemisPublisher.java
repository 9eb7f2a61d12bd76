package io.msgscope.driver.artemis;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Publisher;
import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientProducer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * One publisher connection: a core producer to the subscriber's address, one message per payload, its routing type
 * (anycast or multicast) set on the message so that the address is made right if the publisher comes first. With
 * {@code confirm=block} every send waits for the broker's answer (blockOnDurableSend and blockOnNonDurableSend): a
 * send that returned is confirmed, counted as {@code messages_acked} and in {@link Confirmations}; a refused one
 * throws. With {@code confirm=none} sends do not wait and nothing is confirmed.
 *
 * <p>The Artemis client makes a {@link ClientMessage} per send (it keeps it until the broker has it): that allocation
 * is the client's API, reported by the agents' hot-thread allocation figures.
 */
final class ArtemisPublisher implements Publisher {
    private final ArtemisSettings settings;
    private final ArtemisSession session;
    private final ClientProducer producer;
    private final RoutingType routing;
    private final AckCounts counts = new AckCounts();
    private final Confirmations confirmations = new Confirmations();
    private final int messageSize;
    private byte[] body;

    ArtemisPublisher(ArtemisSettings settings, ArtemisSession session, int messageSize) throws IOException {
        this.settings = settings;
        this.session = session;
        this.messageSize = messageSize;
        this.body = new byte[Math.max(messageSize, WireHeader.SIZE)];
        this.routing = settings.multicast() ? RoutingType.MULTICAST : RoutingType.ANYCAST;
        try {
            this.producer = session.session.createProducer(SimpleString.of(settings.address()));
        } catch (ActiveMQException e) {
            throw new IOException("artemis: the producer to " + settings.address() + " was refused: "
                    + ArtemisSession.describe(e), e);
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        for (int off = offset; off < offset + length; off += messageSize) {
            sendOne(buffer, off);
        }
    }

    private void sendOne(ByteBuffer buffer, int off) throws IOException {
        long seq = WireHeader.sequence(buffer, off);
        if (body.length < messageSize) {
            body = new byte[messageSize];
        }
        int pos = buffer.position();
        buffer.get(off, body, 0, messageSize);
        buffer.position(pos);
        ClientMessage m = session.session.createMessage(settings.durable());
        m.setRoutingType(routing);
        m.getBodyBuffer().writeBytes(body, 0, messageSize);
        if (settings.block()) {
            confirmations.sent(seq);
        }
        try {
            producer.send(m);
        } catch (ActiveMQException e) {
            String why = "artemis: a send to " + settings.address() + " failed: " + ArtemisSession.describe(e);
            counts.error(why);
            throw new IOException(why, e);
        }
        if (settings.block()) {
            counts.acked(seq < 0);
            confirmations.confirm(seq);
        }
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        String why = session.lostReason();
        if (why != null) {
            throw new IOException(why);
        }
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = new HashMap<>(counts.counters(settings.block(), false));
        if (settings.block()) {
            m.putAll(confirmations.counters());
        }
        return Map.copyOf(m);
    }

    @Override
    public long[] unconfirmed() {
        return settings.block() ? confirmations.unconfirmedRanges() : null;
    }

    @Override
    public boolean confirms() {
        return settings.block();
    }

    @Override
    public long confirmedSoFar() {
        return settings.block() ? counts.measuredAcked() : -1;
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        try {
            producer.close();
        } catch (ActiveMQException | RuntimeException e) {
            // the session goes anyway
        }
        session.close();
    }
}

package io.msgscope.driver.nats.jnats;

import io.msgscope.core.driver.BacklogProbe;
import io.msgscope.driver.nats.NatsSettings;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;

import java.io.IOException;

/**
 * JetStream's count of what the run's consumer has not yet acknowledged (issue 31 item 3): the subject's stream keeps
 * a message only until every consumer acknowledged it (interest retention), so the stream's message count, from a
 * STREAM.INFO request on a connection of its own, is the consumer's pending plus its ack-pending messages.
 */
public final class JnatsBacklogProbe implements BacklogProbe {
    private final Connection conn;
    private final JetStreamManagement jsm;
    private final String stream;

    public JnatsBacklogProbe(NatsSettings s) throws IOException {
        this.conn = s.connect("backlog-probe", () -> { }, new ErrorListener() { });
        this.jsm = conn.jetStreamManagement();
        this.stream = JnatsSubscriber.streamName(s.subject());
    }

    @Override
    public long depth() throws IOException {
        try {
            return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
        } catch (JetStreamApiException e) {
            throw new IOException("JetStream STREAM.INFO of " + stream + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String source() {
        return "JetStream STREAM.INFO of stream " + stream + ": messages (interest retention: the consumer's pending "
                + "plus ack pending)";
    }

    @Override
    public void close() {
        JnatsSubscriber.close(conn);
    }
}

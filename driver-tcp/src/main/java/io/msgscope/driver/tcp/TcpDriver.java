package io.msgscope.driver.tcp;

import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.Endpoint;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;

/**
 * Raw TCP (M10's lower bound): fixed-size messages back to back on a stream, no framing bytes,
 * since every message of a run has the same size. Sender and receiver each open their own
 * connection to the middle box (M5.6).
 */
public final class TcpDriver implements Driver {
    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public Publisher openPublisher(Endpoint endpoint, int messageSize) throws IOException {
        return new TcpPublisher(TcpSockets.connect(endpoint.host(), endpoint.port(), endpoint.socketBuffer()));
    }

    @Override
    public Subscriber openSubscriber(Endpoint endpoint, int messageSize) throws IOException {
        return new TcpSubscriber(TcpSockets.connect(endpoint.host(), endpoint.port(), endpoint.socketBuffer()),
                messageSize);
    }
}

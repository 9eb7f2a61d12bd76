package io.msgscope.driver.tcp;

import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;

/**
 * Raw TCP (M10's lower bound) through the built-in relay: fixed-size messages back to back on a
 * stream, no framing bytes, since every message of a run has the same size. Sender and receiver
 * each open their own connection to the relay (M5.6). No options.
 */
public final class TcpDriver implements Driver {
    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean usesRelay() {
        return true;
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) throws IOException {
        spec.requireKnownOptions(name(), optionKeys());
        return new TcpPublisher(TcpSockets.connect(spec.host(), spec.port(), spec.socketBuffer()));
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) throws IOException {
        spec.requireKnownOptions(name(), optionKeys());
        return new TcpSubscriber(TcpSockets.connect(spec.host(), spec.port(), spec.socketBuffer()),
                spec.messageSize());
    }
}

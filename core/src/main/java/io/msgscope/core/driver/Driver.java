package io.msgscope.core.driver;

import java.io.IOException;

/**
 * One messaging system behind one interface (M10): raw TCP now; AMQP, MQTT, NATS and ZeroMQ plug in
 * the same way and never depend on each other. A driver opens the sender's and the receiver's
 * separate connections (M5.6) to the system under test at {@link Endpoint}.
 */
public interface Driver {
    /** Short name used in results and on the command line, e.g. "tcp". */
    String name();

    Publisher openPublisher(Endpoint endpoint, int messageSize) throws IOException;

    Subscriber openSubscriber(Endpoint endpoint, int messageSize) throws IOException;
}

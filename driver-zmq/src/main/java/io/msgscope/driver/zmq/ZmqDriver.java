package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

/**
 * ZeroMQ PUSH/PULL through JeroMQ (pure Java), brokerless: the subscriber binds a PULL socket on a free
 * port and reports {@code tcp://host:port} as its destination; the publisher connects a PUSH socket to
 * it. {@code --uri} is not used. Options ({@code --opt key=value}):
 * <ul>
 *   <li>{@code bind} the subscriber's bind address (default 127.0.0.1; {@code *} or 0.0.0.0 for all)</li>
 *   <li>{@code advertise} the host put into the destination (default the bind address; the local
 *       host's address when binding to all)</li>
 *   <li>{@code port} the subscriber's port, 0 = any free port (default 0)</li>
 *   <li>{@code hwm} SNDHWM/RCVHWM in messages, 0 = unlimited (default 0). JeroMQ's default of 1000
 *       would block PUSH (and make ROUTER drop silently); unlimited never blocks the sender and lets
 *       the queue grow instead.</li>
 * </ul>
 * TCP_NODELAY is set by JeroMQ on every TCP socket.
 */
public final class ZmqDriver implements Driver {
    static final Set<String> OPTIONS = Set.of("bind", "advertise", "port", "hwm");

    @Override
    public String name() {
        return "zmq";
    }

    @Override
    public Set<String> optionKeys() {
        return OPTIONS;
    }

    /** Keys, {@code port} (0-65535) and {@code hwm} (0 or more). */
    @Override
    public void checkOptions(DriverSpec spec) {
        spec.requireKnownOptions(name(), OPTIONS);
        spec.longOption("port", 0, 0, 65_535);
        hwm(spec);
    }

    /** Heap: JeroMQ sends from byte arrays. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec) throws IOException {
        spec.requireKnownOptions(name(), OPTIONS);
        return new ZmqSubscriber(spec.option("bind", "127.0.0.1"), spec.option("advertise", null),
                (int) spec.longOption("port", 0, 0, 65_535), hwm(spec), spec.messageSize());
    }

    @Override
    public Publisher openPublisher(DriverSpec spec) throws IOException {
        spec.requireKnownOptions(name(), OPTIONS);
        String dest = spec.destination();
        if (dest.isEmpty()) {
            throw new SpecException("--opt port", "the publisher has no destination: the subscriber reports its "
                    + "tcp://host:port");
        }
        return new ZmqPublisher(dest, hwm(spec), spec.messageSize());
    }

    private static int hwm(DriverSpec spec) {
        return (int) spec.longOption("hwm", 0, 0, Integer.MAX_VALUE);
    }
}

package io.msgscope.agent.sender;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Test driver: a publisher that keeps every byte it is handed and the length of every write, so a test
 * can read the sender's stream back exactly as a socket would carry it. One capture per test (static:
 * the role finds the driver through the ServiceLoader).
 */
public final class CaptureDriver implements Driver {
    static final ByteArrayOutputStream BYTES = new ByteArrayOutputStream();
    static final List<Integer> WRITES = new ArrayList<>();

    static synchronized void reset() {
        BYTES.reset();
        WRITES.clear();
    }

    @Override
    public String name() {
        return "capture";
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) {
        return new Publisher() {
            @Override
            public void send(ByteBuffer buffer, int offset, int length) {
                byte[] b = new byte[length];
                buffer.get(offset, b);
                synchronized (CaptureDriver.class) {
                    BYTES.write(b, 0, length);
                    WRITES.add(length);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
        throw new UnsupportedOperationException("send side only");
    }
}

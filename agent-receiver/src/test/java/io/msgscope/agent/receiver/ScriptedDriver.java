package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test driver: a pull subscriber that delivers exactly the sequence numbers the test queues, so a test
 * can play a system under test that drops messages. One instance per test class run (static queue).
 */
public final class ScriptedDriver implements Driver {
    static final LinkedBlockingQueue<Long> ARRIVALS = new LinkedBlockingQueue<>();
    /** How often the receiver paused and resumed the subscriber (issue 31's phases). */
    static final java.util.concurrent.atomic.AtomicInteger PAUSES = new java.util.concurrent.atomic.AtomicInteger();
    static final java.util.concurrent.atomic.AtomicInteger RESUMES = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
        final ByteBuffer buf = WireHeader.allocate(spec.messageSize());
        return new Subscriber() {
            @Override
            public int poll(MessageHandler handler, long timeoutMs) throws java.io.IOException {
                int n = 0;
                try {
                    Long seq = ARRIVALS.poll(timeoutMs, TimeUnit.MILLISECONDS);
                    while (seq != null) {
                        WireHeader.writeSequence(buf, 0, seq);
                        handler.onMessage(buf, 0);
                        n++;
                        seq = ARRIVALS.poll();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.IOException("interrupted");
                }
                return n;
            }

            /** Paused, the test queues nothing: the scripted broker keeps the backlog. */
            @Override
            public void pause() {
                PAUSES.incrementAndGet();
            }

            @Override
            public void resume() {
                RESUMES.incrementAndGet();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
        throw new UnsupportedOperationException("receive side only");
    }
}

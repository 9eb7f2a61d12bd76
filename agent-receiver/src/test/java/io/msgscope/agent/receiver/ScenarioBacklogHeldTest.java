package io.msgscope.agent.receiver;

import io.msgscope.core.driver.BacklogProbe;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.ScenarioReport;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scenario subscribers agent's {@code backlog_held_max} (issue 31 item 3): what its paused subscriptions may hold
 * delivered and unacknowledged, which the broker's count leaves out — each subscription its destination's bound
 * ({@link BacklogProbe#heldUncountedMax}), summed; -1 when one has none. And its last read of the broker's count,
 * taken before the final report resumes the subscriptions.
 */
class ScenarioBacklogHeldTest {
    private static Subscriber on(String destination) {
        return on(destination, new AtomicBoolean());
    }

    /** A subscription to {@code destination} that pauses and sets {@code resumed} when it resumes. */
    private static Subscriber on(String destination, AtomicBoolean resumed) {
        return new Subscriber() {
            @Override
            public int poll(MessageHandler handler, long timeoutMs) {
                return 0;
            }

            @Override
            public String destination() {
                return destination;
            }

            @Override
            public void pause() {
            }

            @Override
            public void resume() {
                resumed.set(true);
            }

            @Override
            public void close() {
            }
        };
    }

    /** A driver whose probe of each destination reads 0 and names {@code held} its bound. */
    private static Driver probing(Map<String, Long> held) {
        return probing(held, () -> 0);
    }

    /** A driver whose probe of each destination reads {@code depth} and names {@code held} its bound. */
    private static Driver probing(Map<String, Long> held, LongSupplier depth) {
        return new Driver() {
            @Override
            public String name() {
                return "probing";
            }

            @Override
            public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Publisher openPublisher(DriverSpec spec, ClientContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public BacklogProbe openBacklogProbe(DriverSpec spec, String destination) {
                return new BacklogProbe() {
                    @Override
                    public long depth() {
                        return depth.getAsLong();
                    }

                    @Override
                    public long heldUncountedMax() {
                        return held.get(destination);
                    }

                    @Override
                    public String source() {
                        return "test";
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    private static long heldReported(List<Subscriber> subs, Map<String, Long> held) {
        ScenarioBacklog b = new ScenarioBacklog(Timeline.parse("--phases", "a:1s@1k/paused, b:1s@1k"), () -> subs, 0);
        b.openProbes(probing(held), new DriverSpec("", 0, "", 64, 0, Map.of(), ""));
        b.start(0);
        ScenarioReport.Builder r = ScenarioReport.newBuilder();
        b.finish(r);
        return r.getBacklogHeldMax();
    }

    @Test
    void eachSubscriptionHoldsUpToItsDestinationsBound() {
        // two subscriptions on q1 (100 each, AMQP's prefetch is per consumer) and one on q2 (50): 250
        assertEquals(250, heldReported(List.of(on("q1"), on("q1"), on("q2")), Map.of("q1", 100L, "q2", 50L)));
        assertEquals(0, heldReported(List.of(on("q1"), on("q2")), Map.of("q1", 0L, "q2", 0L))); // counted by the broker
    }

    @Test
    void oneUnboundedSubscriptionMakesTheSumUnbounded() {
        assertEquals(-1, heldReported(List.of(on("q1"), on("q2")), Map.of("q1", 100L, "q2", -1L)));
    }

    /**
     * The last read is the broker's count as the in-flight wait left it: taken before the final report lets the
     * subscriptions go. A broker that holds 500 messages until the subscription resumes (here it is still in its
     * 10 s paused phase) reads 500 last, not the 0 a read after that resume saw; the subscription is resumed after.
     */
    @Test
    void theLastReadComesBeforeTheFinalResume() {
        AtomicBoolean resumed = new AtomicBoolean();
        ScenarioBacklog b = new ScenarioBacklog(Timeline.parse("--phases", "a:10s@1k/paused, b:1s@1k"),
                () -> List.of(on("q1", resumed)), 0);
        b.openProbes(probing(Map.of("q1", 100L), () -> resumed.get() ? 0 : 500), new DriverSpec("", 0, "", 64, 0,
                Map.of(), ""));
        b.start(0);
        ScenarioReport.Builder r = ScenarioReport.newBuilder();
        b.finish(r);
        assertEquals(500, r.getBacklogDepth(r.getBacklogDepthCount() - 1), r.getBacklogDepthList()::toString);
        assertEquals("", r.getBacklogNote());
        assertTrue(resumed.get(), "nothing stays held after the final report");
    }
}

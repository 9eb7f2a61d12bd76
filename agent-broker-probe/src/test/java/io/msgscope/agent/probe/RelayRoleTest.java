package io.msgscope.agent.probe;

import io.msgscope.control.AgentRole;
import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.test.Await;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.RunSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay role without a network (issue 15): a driver's middle box, here an in-memory one that forwards a fixed
 * batch of messages, runs on the role's thread with the tap; the phase answers carry what it forwarded, its
 * counters and its CPU; a middle box that fails is reported as the phase's failure; a driver that runs through no
 * middle box is refused naming --driver.
 */
class RelayRoleTest {
    static final int SIZE = 32;
    static final int MESSAGES = 5;

    /** A middle box that forwards {@link #MESSAGES} messages through the tap, then fails or waits to be closed. */
    static final class Box implements MiddleBox {
        final boolean fail;
        final CountDownLatch closed = new CountDownLatch(1);
        volatile long forwarded;
        volatile String thread;

        Box(boolean fail) {
            this.fail = fail;
        }

        @Override
        public String name() {
            return "boxfake-proxy";
        }

        @Override
        public int ingressPort() {
            return 1111;
        }

        @Override
        public int egressPort() {
            return 2222;
        }

        @Override
        public void forward(Tap tap) throws IOException {
            thread = Thread.currentThread().getName();
            ByteBuffer buf = WireHeader.allocate(SIZE * MESSAGES);
            for (int i = 0; i < MESSAGES; i++) {
                WireHeader.writeSequence(buf, i * SIZE, i);
            }
            tap.onMessages(buf, 0, MESSAGES, SIZE, 0);
            forwarded = MESSAGES;
            if (fail) {
                throw new IOException("broken pipe after " + MESSAGES + " messages");
            }
            try {
                closed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public long forwarded() {
            return forwarded;
        }

        @Override
        public long helperCpuNs() {
            return 7;
        }

        @Override
        public Map<String, Long> counters() {
            return Map.of("box_messages", forwarded);
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    static final List<Box> BOXES = new ArrayList<>();

    /** The test's driver, found by the ServiceLoader: {@code --opt relay=no} runs through no middle box. */
    public static final class BoxDriver implements Driver {
        @Override
        public String name() {
            return "boxfake";
        }

        @Override
        public Set<String> optionKeys() {
            return Set.of("relay", "fail");
        }

        @Override
        public boolean usesRelay(Map<String, String> options) {
            return !"no".equals(options.get("relay"));
        }

        @Override
        public MiddleBox openMiddleBox(DriverSpec spec, String bindHost, int ingressPort, int egressPort) {
            Box b = new Box("true".equals(spec.options().get("fail")));
            synchronized (BOXES) {
                BOXES.add(b);
            }
            return b;
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }
    }

    /** Indexes and sequences the tap saw. */
    static final class Seen implements RelayTap {
        final List<long[]> messages = new ArrayList<>();

        @Override
        public synchronized void onMessage(ByteBuffer buffer, int offset, long index) {
            messages.add(new long[] {index, WireHeader.sequence(buffer, offset)});
        }

        synchronized int size() {
            return messages.size();
        }
    }

    private RelayRole role;

    @AfterEach
    void close() {
        if (role != null) {
            role.close();
        }
    }

    private static RunSpec spec(Map<String, String> options) {
        return RunSpec.newBuilder().setDriver("boxfake").setSize(SIZE).setCount(MESSAGES).setPinCpu(-1)
                .putAllDriverOptions(options).build();
    }

    private static CompletableFuture<Object> phase(RelayRole r, Phase p) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        r.start(p, new AgentRole.PhaseListener() {
            @Override
            public void done(PhaseDone done) {
                f.complete(done);
            }

            @Override
            public void failed(String message) {
                f.complete(message);
            }
        });
        return f;
    }

    @Test
    void theMiddleBoxForwardsOnTheRolesThreadThroughTheTapAndThePhaseSaysWhatItForwarded() throws Exception {
        Seen seen = new Seen();
        role = new RelayRole(seen);
        Ready ready = role.prepare(spec(Map.of()));
        assertEquals(1111, ready.getIngressPort());
        assertEquals(2222, ready.getEgressPort());
        Await.until(() -> seen.size() == MESSAGES && BOXES.get(BOXES.size() - 1).forwarded == MESSAGES, 10,
                "the tap to see every message");
        for (int i = 0; i < MESSAGES; i++) {
            assertEquals(i, seen.messages.get(i)[0], "index");
            assertEquals(i, seen.messages.get(i)[1], "sequence");
        }
        Box box = BOXES.get(BOXES.size() - 1);
        assertEquals("msgscope-boxfake-proxy", box.thread, "forwarding runs on the role's own thread, named after the box");
        PhaseDone done = (PhaseDone) phase(role, Phase.MEASURE).get(10, TimeUnit.SECONDS);
        assertEquals(MESSAGES, done.getReceived());
        assertEquals(MESSAGES, done.getSent());
        assertEquals((long) MESSAGES * SIZE, done.getBytes());
        assertEquals(MESSAGES, done.getCountersMap().get("box_messages"));
        assertTrue(done.getCountersMap().get("proxy_cpu_ns") >= 7, "the role thread's CPU plus the box's helpers");
        role.close();
        assertEquals(0, box.closed.getCount(), "closing the role closes the middle box");
    }

    @Test
    void aMiddleBoxThatFailsFailsThePhaseWithItsReason() throws Exception {
        role = new RelayRole(new Seen());
        role.prepare(spec(Map.of("fail", "true")));
        Box box = BOXES.get(BOXES.size() - 1);
        Await.until(() -> box.forwarded == MESSAGES, 10, "the box to forward and fail");
        Object answer = null;
        for (long end = System.nanoTime() + 10_000_000_000L; System.nanoTime() < end; ) {
            answer = phase(role, Phase.MEASURE).get(10, TimeUnit.SECONDS);
            if (answer instanceof String) {
                break; // the failure is recorded just after forward() throws
            }
            Thread.sleep(10);
        }
        assertEquals("broken pipe after 5 messages", answer);
    }

    @Test
    void aDriverThatRunsThroughNoMiddleBoxIsRefusedNamingTheDriverOption() {
        role = new RelayRole(new Seen());
        SpecException e = assertThrows(SpecException.class, () -> role.prepare(spec(Map.of("relay", "no"))));
        assertEquals("--driver", e.option());
    }
}

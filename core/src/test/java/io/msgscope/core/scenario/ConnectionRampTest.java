package io.msgscope.core.scenario;

import io.msgscope.core.driver.ConnectStats;
import io.msgscope.core.driver.Fault;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The connection ramp (issue 13): the connect rate, failures by kind, giving up, closing what it opened. */
class ConnectionRampTest {
    static final class Conn implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void aConnectRateSpacesTheConnectsAndEveryOneIsTimed() throws Exception {
        ConcurrentHashMap<Integer, Long> began = new ConcurrentHashMap<>();
        ConnectStats stats = new ConnectStats();
        ConnectionRamp<Conn> ramp = new ConnectionRamp<>(20, 200, stats, i -> {
            began.put(i, System.nanoTime());
            return new Conn();
        });
        long t0 = System.nanoTime();
        ramp.start();
        assertTrue(ramp.await(10_000));
        assertEquals(20, ramp.openCount());
        assertEquals(20, stats.times().getTotalCount());
        for (int i = 0; i < 20; i++) {
            assertTrue(began.get(i) - t0 >= i * 5_000_000L - 1_000_000L, "connection " + i + " began early");
            assertNotNull(ramp.get(i));
        }
        assertEquals(0, ramp.notAttempted());
        ramp.closeAll();
        assertNull(ramp.get(0));
    }

    @Test
    void refusalsAreCountedByKindAndTheRampGivesUp() throws Exception {
        ConnectStats stats = new ConnectStats();
        ConnectionRamp<Conn> ramp = new ConnectionRamp<>(2_000, 0, stats, i -> {
            if (i >= 100) {
                throw new Fault(Fault.Kind.REFUSED, "CONNACK 0x9F CONNECTION_RATE_EXCEEDED");
            }
            return new Conn();
        });
        ramp.start();
        assertTrue(ramp.await(10_000));
        assertTrue(ramp.done());
        assertEquals(100, ramp.openCount());
        assertTrue(ramp.failedCount() >= 20 && ramp.failedCount() < 40, "gives up after 1 % (20): "
                + ramp.failedCount());
        assertEquals(2_000 - 100 - ramp.failedCount(), ramp.notAttempted());
        assertEquals((long) ramp.failedCount(), stats.counters().get("connect_failed_refused"));
        assertEquals("refused x" + ramp.failedCount() + ": CONNACK 0x9F CONNECTION_RATE_EXCEEDED", stats.failureSummary());
    }

    @Test
    void closeAllClosesEveryOpenedConnectionOnce() throws Exception {
        Conn[] made = new Conn[50];
        ConnectionRamp<Conn> ramp = new ConnectionRamp<>(50, 0, new ConnectStats(), i -> made[i] = new Conn());
        ramp.start();
        assertTrue(ramp.await(10_000));
        ramp.closeAll();
        ramp.closeAll();
        for (Conn c : made) {
            assertEquals(1, c.closes.get());
        }
    }

    @Test
    void anOpenerErrorThatIsNoFaultCountsAsAConnectFailure() throws Exception {
        ConnectStats stats = new ConnectStats();
        ConnectionRamp<Conn> ramp = new ConnectionRamp<>(1, 0, stats, i -> {
            throw new java.io.IOException("Connection refused");
        });
        ramp.start();
        assertTrue(ramp.await(10_000));
        assertEquals(1L, stats.counters().get("connect_failed_connect_failed"));
        assertEquals(0, ramp.notAttempted());
    }
}

package io.msgscope.driver.kafka;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.scenario.Scenario;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kafka publisher with {@code --opt reconnect=true} (issue 32 item 3), over kafka-clients' {@code MockProducer}, whose
 * sends complete or fail one by one on command, oldest first: which records are sent again and in what order, and
 * every counter by hand. No broker: what a real one does is KafkaReconnect's benchmark (BENCHMARKS.md).
 */
class KafkaReconnectTest {
    private static final int SIZE = 32;
    private static final long NEVER_GIVE_UP = Long.MAX_VALUE;
    private final KafkaDriver driver = new KafkaDriver();
    private final MockProducer<byte[], byte[]> mock =
            new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());

    private static KafkaSettings settings(String... kv) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        o.putIfAbsent("topic", "t");
        return KafkaSettings.of(new DriverSpec("", 0, "", SIZE, 0, o, ""), true);
    }

    private KafkaPublisher publisher(long giveUpNs, String... kv) {
        return new KafkaPublisher(settings(kv), SIZE, mock, giveUpNs);
    }

    /** Sends the messages of these sequences one by one (negative: warm-up). */
    private void send(KafkaPublisher p, long... seqs) throws Exception {
        ByteBuffer buf = driver.allocatePayload(SIZE);
        for (long seq : seqs) {
            WireHeader.writeSendTime(buf, 0, 1_000 + seq);
            WireHeader.writeSequence(buf, 0, seq);
            p.send(buf, 0, SIZE);
        }
    }

    /** The sequence of each record handed to the producer, in the order handed. */
    private List<Long> sentSequences() {
        List<Long> out = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : mock.history()) {
            out.add(WireHeader.sequence(ByteBuffer.wrap(r.value()).order(java.nio.ByteOrder.LITTLE_ENDIAN), 0));
        }
        return out;
    }

    private void complete(int n) {
        for (int i = 0; i < n; i++) {
            assertTrue(mock.completeNext());
        }
    }

    @Test
    void aRecordTheClientGaveUpOnIsSentAgainBeforeTheNextOneAndCounted() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP, "reconnect", "true");
        send(p, -2, -1, 0, 1, 2, 3, 4, 5, 6);
        complete(5); // the warm-up and 0..2
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s): 20001 ms has passed"))); // 3
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 4
        complete(2); // 5, 6
        assertNull(p.firstError(), "a retriable failure is not the run's end");
        send(p, 7);
        assertEquals(List.of(-2L, -1L, 0L, 1L, 2L, 3L, 4L, 5L, 6L, 3L, 4L, 7L), sentSequences(),
                "3 and 4 again, oldest first, before 7");
        List<ProducerRecord<byte[], byte[]>> h = mock.history();
        assertArrayEquals(h.get(5).value(), h.get(9).value(), "the same bytes: sequence and send time");
        complete(3);
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(8, c.get(Reconnects.CONFIRMED));
        assertEquals(0, c.get(Reconnects.UNCONFIRMED));
        assertEquals(2, c.get(Reconnects.REPUBLISHED));
        assertEquals(8, c.get("messages_acked"), "measured records acknowledged, each once");
        assertFalse(c.containsKey(Reconnects.PUBLISHER_RECONNECTS), "kafka-clients reconnects unseen: unknown");
        assertTrue(p.confirms(), "acks=all is the default: a promise");
        assertArrayEquals(new long[0], p.unconfirmed());
        assertEquals(8, p.confirmedSoFar());
    }

    /**
     * Records that fail again are sent again at the next look, as often as they fail: the count of waiting records is
     * kept beside the queue (not walked), so it must follow every failure and every record taken out again.
     */
    @Test
    void aRecordFailingAgainIsSentAgainAtEachLook() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP, "reconnect", "true");
        send(p, 0, 1);
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 0
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 1
        send(p, 2); // 0 and 1 again, then 2
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 0 again
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 1 again
        complete(1); // 2
        send(p, 3); // 0 and 1 a third time, then 3
        send(p, 4); // nothing waits: 4 alone
        assertEquals(List.of(0L, 1L, 0L, 1L, 2L, 0L, 1L, 3L, 4L), sentSequences());
        complete(4);
        p.drain(1_000);
        Map<String, Long> c = p.counters();
        assertEquals(5, c.get(Reconnects.CONFIRMED));
        assertEquals(0, c.get(Reconnects.UNCONFIRMED));
        assertEquals(4, c.get(Reconnects.REPUBLISHED), "0 and 1 twice each");
    }

    @Test
    void whatTheDrainsDeadlineLeavesIsUnconfirmedNotAFailure() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP, "reconnect", "true");
        send(p, 0, 1, 2, 3, 4);
        complete(2);
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 2
        complete(1); // 3
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)"))); // 4
        long t0 = System.nanoTime();
        p.drain(300); // sends 2 and 4 again, which stay unanswered until the deadline
        assertTrue(System.nanoTime() - t0 >= 300_000_000L, "it waited for the deadline");
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 2L, 4L), sentSequences());
        Map<String, Long> c = p.counters();
        assertEquals(3, c.get(Reconnects.CONFIRMED));
        assertEquals(2, c.get(Reconnects.UNCONFIRMED));
        assertEquals(2, c.get(Reconnects.REPUBLISHED));
        assertArrayEquals(new long[] {2, 3, 4, 5}, p.unconfirmed(), "2 and 4, as [from, to) ranges");
    }

    @Test
    void aRefusalStillEndsTheRun() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP, "reconnect", "true");
        send(p, 0, 1);
        assertTrue(mock.errorNext(new RecordTooLargeException("too large")));
        Fault f = assertThrows(Fault.class, () -> send(p, 2));
        assertTrue(f.getMessage().contains("did not acknowledge a send") && f.getMessage().contains("too large"),
                f::getMessage);
        assertEquals(1, p.counters().get("publish_refused"));
    }

    @Test
    void withoutTheOptionTheFirstTimeoutEndsTheRunAsBefore() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP);
        send(p, 0, 1);
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)")));
        Fault f = assertThrows(Fault.class, () -> send(p, 2));
        assertTrue(f.getMessage().contains("Expiring"), f::getMessage);
        assertFalse(p.counters().containsKey(Reconnects.CONFIRMED));
        assertFalse(p.confirms());
        assertNull(p.unconfirmed());
    }

    @Test
    void nothingAcknowledgedForTooLongGivesUpNamingTheOption() throws Exception {
        KafkaPublisher p = publisher(0, "reconnect", "true");
        send(p, 0);
        assertTrue(mock.errorNext(new TimeoutException("Expiring 1 record(s)")));
        Fault f = assertThrows(Fault.class, () -> send(p, 1));
        assertTrue(f.getMessage().contains("acknowledged nothing") && f.getMessage().contains("--opt reconnect=true")
                && f.getMessage().contains("1 failed sends"), f::getMessage);
    }

    @Test
    void acksOneCountsButPromisesNothing() throws Exception {
        KafkaPublisher p = publisher(NEVER_GIVE_UP, "reconnect", "true", "acks", "1");
        send(p, 0, 1);
        complete(2);
        assertEquals(2, p.counters().get(Reconnects.CONFIRMED));
        assertFalse(p.confirms(), "a leader's failure may lose what acks=1 acknowledged, by Kafka's own rules");
        assertNull(p.unconfirmed());
    }

    @Test
    void theOptionIsReadStrictlyInRunAndScenarios() {
        assertTrue(settings("reconnect", "true").reconnect());
        assertFalse(settings().reconnect());
        SpecException e = assertThrows(SpecException.class, () -> settings("reconnect", "maybe"));
        assertTrue(e.getMessage().contains("--opt reconnect"), e::getMessage);
        // scenario mode takes it (issue 32 item 5), read as strictly before any agent starts
        assertEquals("true", KafkaScenarios.INSTANCE.options(Scenario.FAN_OUT, Map.of("reconnect", "true"))
                .get("reconnect"));
        e = assertThrows(SpecException.class,
                () -> KafkaScenarios.INSTANCE.options(Scenario.FAN_OUT, Map.of("reconnect", "maybe")));
        assertTrue(e.getMessage().contains("--opt reconnect"), e::getMessage);
        assertNull(driver.whyClientsCannotReconnect(Map.of("reconnect", "true")));
        assertTrue(driver.whyClientsCannotReconnect(Map.of()).contains("--opt reconnect=true"));
    }
}

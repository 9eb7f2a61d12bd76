package io.msgscope.driver.nats;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the NATS driver tells a scenario run's reader (issues 27, 30): JetStream's leftovers and pull batching. */
class NatsDriverNotesTest {
    private static final Map<String, String> PULL = Map.of("jetstream", "true", "consumer", "pull");
    private final NatsDriver nats = new NatsDriver();

    /** A JetStream pull consumer's latency is its fetch batch's fill time, capped by the fetch's wait. */
    @Test
    void aJetStreamPullConsumerNotesItsFetchBatch() {
        // 200 msg/s per subscriber: a batch of 256 fills in 1.28 s, so the fetch's 1 s wait ends it
        String note = nats.latencyCaveat(PULL, 200);
        assertTrue(note.startsWith("JetStream pull consumer: each subscriber fetches up to 256 messages per request "
                + "and a request waits up to 1 s") && note.contains("at 200 msg/s per subscriber a batch takes 1000 ms"),
                note);
        assertTrue(nats.latencyCaveat(PULL, 2_000).contains("takes 128 ms")); // 2,000 msg/s each
        assertTrue(nats.latencyCaveat(PULL, 0).contains("takes 1000 ms"), "nothing received: the whole wait");
        assertNull(nats.latencyCaveat(Map.of("jetstream", "true"), 200), "push consumer: no note");
        assertNull(nats.latencyCaveat(Map.of("consumer", "pull"), 200), "core NATS: no note");
    }

    /** A failed JetStream run may leave its streams behind; the note names them and the command that removes them. */
    @Test
    void aFailedJetStreamRunNamesTheCleanCommand() {
        assertEquals("JetStream streams this run made (MSGSCOPE_<subject>) are deleted at its end while the server "
                + "is there; if it went away, `msgscope clean --driver nats --uri URI` removes what is left",
                nats.failureNote(Map.of("jetstream", "TRUE")));
        assertNull(nats.failureNote(Map.of()), "core NATS makes nothing that outlives a run");
    }
}

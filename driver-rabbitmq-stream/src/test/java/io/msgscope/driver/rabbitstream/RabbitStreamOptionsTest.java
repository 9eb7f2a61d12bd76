package io.msgscope.driver.rabbitstream;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RabbitStreamOptionsTest {
    private static DriverSpec spec(Map<String, String> o) {
        return new DriverSpec("127.0.0.1", 0, "", 64, 0, o, "");
    }

    private static String refused(Map<String, String> o) {
        SpecException e = assertThrows(SpecException.class, () -> new RabbitStreamDriver().checkOptions(spec(o)));
        return e.getMessage();
    }

    @Test
    void defaults() {
        RabbitStreamOptions o = RabbitStreamOptions.of(spec(Map.of()));
        assertEquals("first", o.offset());
        assertEquals(-1, o.timestampMs());
        assertEquals(1, o.subEntrySize());
        assertEquals(RabbitStreamOptions.DEFAULT_BATCH_SIZE, o.batchSize());
        assertEquals(RabbitStreamOptions.DEFAULT_MAX_UNCONFIRMED, o.maxUnconfirmed());
        assertTrue(o.dynamicBatch());
        assertFalse(RabbitStreamOptions.of(spec(Map.of("dynamic_batch", "false"))).dynamicBatch());
        assertEquals(0, o.credits());
        assertEquals(50, RabbitStreamOptions.of(spec(Map.of("credits", "50"))).credits());
        assertFalse(o.singleActive());
        assertEquals("", o.stream());
    }

    @Test
    void offsets() {
        assertEquals("next", RabbitStreamOptions.of(spec(Map.of("offset", "next"))).offset());
        assertEquals("last", RabbitStreamOptions.of(spec(Map.of("offset", "last"))).offset());
        RabbitStreamOptions t = RabbitStreamOptions.of(spec(Map.of("offset", "timestamp:1700000000000")));
        assertEquals("timestamp", t.offset());
        assertEquals(1_700_000_000_000L, t.timestampMs());
    }

    @Test
    void badValuesNameTheOption() {
        assertTrue(refused(Map.of("offset", "middle")).contains("offset"));
        assertTrue(refused(Map.of("offset", "timestamp:yesterday")).contains("timestamp:EPOCH_MS"));
        assertTrue(refused(Map.of("offset", "timestamp:-5")).contains("timestamp:EPOCH_MS"));
        assertTrue(refused(Map.of("sub_entry_size", "0")).contains("sub_entry_size"));
        assertTrue(refused(Map.of("batch_size", "x")).contains("batch_size"));
        assertTrue(refused(Map.of("max_unconfirmed", "0")).contains("max_unconfirmed"));
        assertTrue(refused(Map.of("credits", "1001")).contains("credits"));
        assertTrue(refused(Map.of("dynamic_batch", "2")).contains("dynamic_batch"));
        assertTrue(refused(Map.of("single_active", "maybe")).contains("single_active"));
        assertTrue(refused(Map.of("stream", "")).contains("stream"));
        assertTrue(refused(Map.of("nonsense", "1")).contains("nonsense"));
        SpecException uri = assertThrows(SpecException.class, () -> new RabbitStreamDriver().checkOptions(
                new DriverSpec("", 0, "amqp://guest:secret@h:5672", 64, 0, Map.of(), "")));
        assertEquals("--uri", uri.option());
        assertFalse(uri.getMessage().contains("secret"));
    }

    @Test
    void scenarios() {
        RabbitStreamScenarios s = RabbitStreamScenarios.INSTANCE;
        assertEquals(Map.of(), s.options(Scenario.FAN_OUT, Map.of()));
        SpecException rr = assertThrows(SpecException.class, () -> s.options(Scenario.ROUND_ROBIN, Map.of()));
        assertEquals("--scenario", rr.option());
        assertThrows(SpecException.class, () -> s.options(Scenario.FAN_OUT, Map.of("stream", "x")));
        assertThrows(SpecException.class, () -> s.options(Scenario.FAN_OUT, Map.of("single_active", "true")));
        assertEquals("RabbitMQ stream, confirms, offset first, sub-entries of 10",
                s.qosLabel(Scenario.FAN_OUT, Map.of("sub_entry_size", "10")));
        assertEquals("msgscope.t.0", s.subscriber(spec(Map.of()), "msgscope.t.0", "").destination());
    }

    @Test
    void tlsOptionsNeedTheTlsSchemeAndDefaultToVerifying() {
        SpecException plain = assertThrows(SpecException.class, () -> new RabbitStreamDriver().checkOptions(
                new DriverSpec("", 0, "rabbitmq-stream://h:5552/%2f", 64, 0, Map.of("tls_verify", "true"), "")));
        assertEquals("--opt tls_verify", plain.option());
        assertTrue(plain.getMessage().contains("rabbitmq-stream+tls://"), plain.getMessage());
        DriverSpec tls = new DriverSpec("", 0, "rabbitmq-stream+tls://h/%2f", 64, 0, Map.of(), "");
        new RabbitStreamDriver().checkOptions(tls);
        assertTrue(RabbitStreamDriver.tls(tls).verify(), "the client's own default: verified");
        assertFalse(RabbitStreamDriver.tls(new DriverSpec("", 0, "rabbitmq-stream+tls://h/%2f", 64, 0,
                Map.of("tls_verify", "false"), "")).verify());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> new RabbitStreamDriver().checkOptions(
                new DriverSpec("", 0, "rabbitmq-stream+tls://h/%2f", 64, 0, Map.of("tls_ca", "/no/such.pem"), "")))
                .option());
    }
}

package io.msgscope.core;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Strict broker URIs (issue 14): what a client would reinterpret is refused, and no message shows the password. */
class BrokerUriTest {
    static final Map<String, Integer> AMQP = Map.of("amqp", 5672, "amqps", 5671);

    @Test
    void aWellFormedUriWithEncodedCredentials() {
        BrokerUri u = BrokerUri.parse("amqp://gu%40est:p%40ss%3Aw+rd@127.0.0.1:5673/%2f", AMQP);
        assertEquals("amqp", u.scheme());
        assertEquals("127.0.0.1", u.host());
        assertEquals(5673, u.port());
        assertEquals("gu@est", u.user());
        assertEquals("p@ss:w+rd", u.password());
        assertEquals("/%2f", u.path());
        assertEquals("127.0.0.1:5673", u.address());
        BrokerUri d = BrokerUri.parse("AMQPS://broker.example", AMQP);
        assertEquals(5671, d.port());
        assertNull(d.user());
        assertEquals("[::1]:5672", BrokerUri.parse("amqp://[::1]", AMQP).address());
    }

    @Test
    void whatAClientWouldReinterpretIsRefusedWithoutShowingThePassword() {
        String[][] cases = {
                {"amqp://guest:p@ss@127.0.0.1:5673/%2f", "raw '@'"},
                {"amqp://guest:p:ss@127.0.0.1/", "raw ':'"},
                {"amqp://guest:secret%zz@127.0.0.1/", "Malformed escape pair"},
                {"amqp://guest:secret@:5672/", "names no host"},
                {"amqp://guest:secret@host:99999/", "port must be 1-65535"},
                {"mqtt://guest:secret@host/", "must start with amqp://, amqps://"},
                {"guest:secret@host", "must be SCHEME://"},
                {"amqp://guest:secret@ho st/", "not a valid URI"}};
        for (String[] c : cases) {
            SpecException e = assertThrows(SpecException.class, () -> BrokerUri.parse(c[0], AMQP), c[0]);
            assertTrue(e.getMessage().startsWith("--uri: ") && e.getMessage().contains(c[1]), e.getMessage());
            assertFalse(e.getMessage().contains("secret") || e.getMessage().contains("p@ss") || e.getMessage().contains("ss@"),
                    "password shown: " + e.getMessage());
        }
    }

    @Test
    void maskingCoversRawReservedCharacters() {
        assertEquals("amqp://guest:****@127.0.0.1:5673/%2f", Secrets.uri("amqp://guest:p@ss@127.0.0.1:5673/%2f"));
        assertEquals("nats://u:****@h:4222", Secrets.uri("nats://u:a:b@h:4222"));
        assertEquals("tcp://h:1883/x@y", Secrets.uri("tcp://h:1883/x@y"));
        assertEquals("tcp://user@h:1883", Secrets.uri("tcp://user@h:1883"));
        assertEquals("no uri", Secrets.uri("no uri"));
    }
}

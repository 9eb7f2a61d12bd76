package io.msgscope.driver.nats;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --opt reconnect}, {@code --opt spread} and the URI list as the NATS driver reads them (issue 32 item 3). */
class NatsReconnectOptionTest {
    private static NatsSettings settings(String uri, Map<String, String> opts) {
        return NatsSettings.of(new DriverSpec("", 0, uri, 64, 0, opts, ""), false);
    }

    @Test
    void aCommaListIsEveryServerInOrder() {
        NatsSettings s = settings("nats://127.0.0.1:4222, nats://127.0.0.1:4223",
                Map.of("engine", "jnats", "reconnect", "true"));
        assertEquals(List.of("nats://127.0.0.1:4222", "nats://127.0.0.1:4223"), s.servers());
        assertEquals("127.0.0.1:4222", s.address());
        assertTrue(s.reconnect());
        assertFalse(settings("", Map.of()).reconnect());
        assertEquals(List.of("nats://127.0.0.1:4222"), settings("", Map.of()).servers());
    }

    @Test
    void bothEnginesTakeTheOptionAndTheList() {
        NatsSettings s = settings("nats://a:1, nats://[::1]:2", Map.of("reconnect", "true"));
        assertTrue(s.netty() && s.reconnect());
        // each server of the list as the netty engine dials it, everything else the same
        NatsSettings second = s.onServer(1);
        assertEquals("nats://[::1]:2", second.url());
        assertEquals("[::1]", second.host());
        assertEquals(2, second.port());
        assertEquals("[::1]:2", second.address());
        assertEquals(s.servers(), second.servers());
        assertEquals(s.subject(), second.subject());
        assertEquals(s, s.onServer(0)); // the first server is the settings as read
        SpecException e = assertThrows(SpecException.class, () -> settings("nats://a:1,tls://b:2", Map.of()));
        assertTrue(e.getMessage().contains("mixes"), e::getMessage);
        e = assertThrows(SpecException.class, () -> settings("", Map.of("reconnect", "maybe")));
        assertTrue(e.getMessage().contains("--opt reconnect"), e::getMessage);
    }

    @Test
    void spreadNeedsAList() {
        assertTrue(settings("nats://a:1,nats://b:2", Map.of("spread", "true")).spread());
        assertFalse(settings("nats://a:1,nats://b:2", Map.of()).spread());
        SpecException one = assertThrows(SpecException.class, () -> settings("nats://a:1", Map.of("spread", "true")));
        assertTrue(one.getMessage().startsWith("--opt spread") && one.getMessage().contains("more than one"),
                one::getMessage);
        assertTrue(settings("nats://a:1,nats://b:2", Map.of("spread", "true", "engine", "jnats")).spread(),
                "jnats spreads by its own shuffle");
    }

    @Test
    void killAndRestartNeedTheOption() {
        NatsDriver d = new NatsDriver();
        assertNull(d.whyClientsCannotReconnect(Map.of("reconnect", "true", "jetstream", "true")));
        assertNull(d.whyClientsCannotReconnect(Map.of("reconnect", "true"))); // the netty engine too
        assertTrue(d.whyClientsCannotReconnect(Map.of()).contains("--opt reconnect=true"));
    }

    /** issue 32: a partition is noticed only by a ping; jnats' interval is chosen by --opt ping_interval. */
    @Test
    void pingIntervalIsATimeForEitherEngine() {
        assertEquals(java.time.Duration.ofMillis(1_500),
                settings("", Map.of("engine", "jnats", "ping_interval", "1.5s")).pingInterval());
        assertEquals(java.time.Duration.ofMillis(250),
                settings("", Map.of("jetstream", "true", "ping_interval", "250ms")).pingInterval());
        assertEquals(java.time.Duration.ofMinutes(2),
                settings("", Map.of("engine", "jnats", "ping_interval", "2m")).pingInterval());
        assertNull(settings("", Map.of("engine", "jnats")).pingInterval()); // jnats' own default
        assertEquals(java.time.Duration.ofMillis(1_500), settings("nats://a:1,nats://b:2", Map.of("engine", "jnats",
                "ping_interval", "1.5s")).onServer(1).pingInterval());
        for (String bad : new String[] {"fast", "50ms", "11m", "1h", "-1s"}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> settings("", Map.of("engine", "jnats", "ping_interval", bad)));
            assertEquals("--opt ping_interval", e.option(), bad);
        }
        // the netty engine sends its own PINGs as well (NatsKeepAlive), and checks the time alike
        assertEquals(java.time.Duration.ofSeconds(1), settings("", Map.of("ping_interval", "1s")).pingInterval());
        assertThrows(SpecException.class, () -> settings("", Map.of("ping_interval", "50ms")));
    }
}

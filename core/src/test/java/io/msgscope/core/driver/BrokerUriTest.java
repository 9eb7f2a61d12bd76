package io.msgscope.core.driver;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one reading of a broker URI that the MQTT and NATS drivers share (issue 15). */
class BrokerUriTest {
    private static final BrokerUri.Schemes MQTT = new BrokerUri.Schemes(List.of("tcp", "mqtt"), List.of("ssl", "mqtts"), 1883, 8883);

    private static DriverSpec spec(Map<String, String> options) {
        return new DriverSpec("", 0, "", 64, 0, options, "");
    }

    @Test
    void defaultPortsFollowTheSchemeAndCredentialsArePercentDecoded() {
        BrokerUri u = BrokerUri.parse("MQTTS://me:p%40ss@broker.lab", MQTT, spec(Map.of()));
        assertEquals(new BrokerUri("mqtts", true, "broker.lab", 8883, "me", "p@ss"), u);
        assertEquals("broker.lab:8883", u.address());
        BrokerUri plain = BrokerUri.parse("tcp://127.0.0.1", MQTT, spec(Map.of()));
        assertEquals(1883, plain.port());
        assertNull(plain.user());
        assertNull(plain.password());
    }

    @Test
    void optionsWinOverTheUserInfo() {
        BrokerUri u = BrokerUri.parse("tcp://me:old@127.0.0.1:1884", MQTT, spec(Map.of("password", "new")));
        assertEquals("me", u.user());
        assertEquals("new", u.password());
        assertEquals(1884, u.port());
    }

    @Test
    void errorsNameTheOptionListTheSchemesAndMaskThePassword() {
        SpecException scheme = assertThrows(SpecException.class,
                () -> BrokerUri.parse("http://me:secret@h:1", MQTT, spec(Map.of())));
        assertEquals("--uri: must start with tcp://, mqtt://, ssl:// or mqtts://, got 'http://me:****@h:1'",
                scheme.getMessage());
        SpecException host = assertThrows(SpecException.class,
                () -> BrokerUri.parse("nats:///x", new BrokerUri.Schemes(List.of("nats"), List.of("tls"), 4222, 4222),
                        spec(Map.of())));
        assertEquals("--uri: names no host: nats:///x (write SCHEME://[USER:PASSWORD@]HOST[:PORT]..., "
                + "e.g. amqp://guest:guest@127.0.0.1:5672/%2f)", host.getMessage());
    }
}

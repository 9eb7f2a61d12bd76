package io.msgscope.driver.mqtt;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --opt reconnect} as the MQTT driver reads it (issue 32 item 3). */
class MqttReconnectOptionTest {
    private static MqttSettings settings(Map<String, String> opts) {
        return MqttSettings.of(new DriverSpec("", 0, "", 64, 0, opts, ""), false);
    }

    @Test
    void reconnectKeepsTheSession() {
        MqttSettings s = settings(Map.of("reconnect", "true"));
        assertTrue(s.reconnect());
        assertFalse(s.cleanSession(), "the broker must keep the session while the client is away");
        assertFalse(settings(Map.of()).reconnect());
        assertTrue(settings(Map.of()).cleanSession());
        assertFalse(settings(Map.of("reconnect", "true", "clean_session", "false")).cleanSession());
    }

    /** Both engines reconnect: the hivemq engine through the client's own automatic reconnect (HiveMqReconnect). */
    @Test
    void theHivemqEngineReconnectsToo() {
        MqttSettings s = settings(Map.of("reconnect", "true", "engine", "hivemq"));
        assertTrue(s.reconnect());
        assertFalse(s.netty());
        assertFalse(s.cleanSession(), "the broker must keep the session while the client is away");
        assertNull(new MqttDriver().whyClientsCannotReconnect(Map.of("reconnect", "true", "engine", "hivemq")));
    }

    @Test
    void aFailedRunOnPersistentSessionsSaysWhatItMayHaveLeft() {
        MqttDriver mqtt = new MqttDriver();
        assertNull(mqtt.failureNote(Map.of()), "clean sessions end with their connection");
        assertNull(mqtt.failureNote(Map.of("clean_session", "true")));
        for (Map<String, String> persistent : java.util.List.of(Map.of("reconnect", "true"),
                Map.of("clean_session", "FALSE"))) {
            String note = mqtt.failureNote(persistent);
            assertTrue(note != null && note.contains("persistent session") && note.contains("msgscope-sub-"),
                    () -> persistent + ": " + note);
        }
    }

    @Test
    void whatCannotReconnectIsRefusedNamingTheOption() {
        SpecException e = assertThrows(SpecException.class, () -> settings(Map.of("reconnect", "true", "clean_session", "true")));
        assertTrue(e.getMessage().startsWith("--opt clean_session"), e::getMessage);
        e = assertThrows(SpecException.class, () -> settings(Map.of("reconnect", "maybe")));
        assertTrue(e.getMessage().contains("--opt reconnect"), e::getMessage);
    }

    @Test
    void killAndRestartNeedTheOption() {
        MqttDriver d = new MqttDriver();
        assertNull(d.whyClientsCannotReconnect(Map.of("reconnect", "true")));
        assertTrue(d.whyClientsCannotReconnect(Map.of()).contains("--opt reconnect=true"));
    }
}

package io.msgscope.core;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Secrets never reach a results file (issue 5): URI passwords and credential options are masked. */
class SecretsTest {
    @Test
    void uriPasswordsAreMaskedUserAndHostKept() {
        assertEquals("amqp://guest:****@127.0.0.1:5672/%2f", Secrets.uri("amqp://guest:guest@127.0.0.1:5672/%2f"));
        assertEquals("tcp://:****@h:1883", Secrets.uri("tcp://:pw@h:1883"));
        assertEquals("nats://me@h:4222", Secrets.uri("nats://me@h:4222"));
        assertEquals("tcp://127.0.0.1:1883", Secrets.uri("tcp://127.0.0.1:1883"));
        assertEquals("", Secrets.uri(""));
    }

    @Test
    void credentialOptionsAreMaskedOthersKept() {
        Map<String, String> m = Secrets.options(Map.of("password", "a", "token", "b", "tls_key_password", "c",
                "qos", "1", "username", "me", "keep_alive", "60"));
        assertEquals(Map.of("password", "****", "token", "****", "tls_key_password", "****", "qos", "1",
                "username", "me", "keep_alive", "60"), m);
        assertTrue(Secrets.isSecret("nkey"));
        assertFalse(Secrets.isSecret("max_inflight"));
    }

    @Test
    void runSpecShowsTheMaskedUri() {
        assertEquals("amqp://u:****@h/v", RunSpec.builder().uri("amqp://u:p@h/v").build().uriForDisplay());
    }
}

package io.msgscope.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 14, finding 6: URIs a client would misread are refused, and their passwords never shown. */
class StrictUriTest {
    @Test
    void aRawAtInThePasswordIsRefusedWithAHintAndThePasswordMasked() {
        SpecException e = assertThrows(SpecException.class,
                () -> Secrets.requireStrictUri("--uri", "amqp://guest:p@ss@127.0.0.1:5673/%2f"));
        assertEquals("--uri", e.option());
        assertEquals("--uri: cannot read the host of amqp://guest:****@127.0.0.1:5673/%2f: a user name or password "
                + "with '@', ':' or '/' must be percent-encoded (@ as %40, : as %3A, / as %2F)", e.getMessage());
        assertFalse(e.getMessage().contains("ss@"), e.getMessage());
    }

    @Test
    void theEncodedFormAndOrdinaryUrisPass() {
        Secrets.requireStrictUri("--uri", "amqp://guest:p%40ss@127.0.0.1:5673/%2f");
        Secrets.requireStrictUri("--uri", "amqp://guest:guest@127.0.0.1:5672/%2f");
        Secrets.requireStrictUri("--uri", "tcp://127.0.0.1:1883");
        Secrets.requireStrictUri("--uri", "nats://token@127.0.0.1:4222");
        Secrets.requireStrictUri("--uri", "ssl://u:p@[::1]:8883");
        Secrets.requireStrictUri("--uri", null);
    }

    @Test
    void aRawSlashOrSpaceIsRefusedToo() {
        SpecException slash = assertThrows(SpecException.class,
                () -> Secrets.requireStrictUri("--uri", "amqp://u:pa/ss@h:5672/v"));
        assertFalse(slash.getMessage().contains("pa/ss"), slash.getMessage());
        SpecException space = assertThrows(SpecException.class,
                () -> Secrets.requireStrictUri("--uri", "amqp://u:p ss@h:5672/v"));
        assertTrue(space.getMessage().startsWith("--uri: not a valid URI: amqp://u:****@h:5672/v"), space.getMessage());
    }

    @Test
    void masksUpToTheLastAtOfTheUserInfo() {
        assertEquals("amqp://guest:****@127.0.0.1:5673/%2f", Secrets.uri("amqp://guest:p@ss@127.0.0.1:5673/%2f"));
        assertEquals("nats://u:****@h:4222", Secrets.uri("nats://u:a@b@c@h:4222"));
    }

    /**
     * Issue 28: a URI without an authority part ("//host") is refused, naming --uri and masking the password: the AMQP
     * client reads amqp:///%2f, amqp:guest:pw@h and amqp:/guest:pw@h as localhost and guest/guest.
     */
    @Test
    void aUriWithoutAnAuthorityIsRefusedItsPasswordMasked() {
        String[][] cases = {
                {"amqp:///%2f", "amqp:///%2f"},
                {"amqp:guest:S3cr3tPW@127.0.0.1:5672", "amqp:****@127.0.0.1:5672"},
                {"amqp:/guest:S3cr3tPW@127.0.0.1:5672/%2f", "amqp:****@127.0.0.1:5672/%2f"},
                {"u:S3cr3tPW@127.0.0.1:1883", "u:****@127.0.0.1:1883"},
                {"nats:u:S3cr3tPW@127.0.0.1:4222", "nats:****@127.0.0.1:4222"}};
        for (String[] c : cases) {
            SpecException e = assertThrows(SpecException.class, () -> Secrets.requireStrictUri("--uri", c[0]), c[0]);
            assertEquals("--uri: names no host: " + c[1] + " (write SCHEME://[USER:PASSWORD@]HOST[:PORT]..., e.g. "
                    + "amqp://guest:guest@127.0.0.1:5672/%2f)", e.getMessage());
        }
    }

    @Test
    void aPasswordIsMaskedWithoutASchemeSeparatorToo() {
        assertEquals("u:****@127.0.0.1:1883", Secrets.uri("u:S3cr3tPW@127.0.0.1:1883"));
        assertEquals("amqp:****@127.0.0.1:5672", Secrets.uri("amqp:guest:S3cr3tPW@127.0.0.1:5672"));
        assertEquals("kafka:****@h:9092", Secrets.uri("kafka:u:S3cr3tPW@h:9092"));
        assertEquals("amqp:///%2f", Secrets.uri("amqp:///%2f"));
    }
}

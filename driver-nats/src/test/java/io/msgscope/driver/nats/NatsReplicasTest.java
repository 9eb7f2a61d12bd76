package io.msgscope.driver.nats;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code --opt replicas} (issue 32): the JetStream stream's copies on a cluster, checked before anything connects. */
class NatsReplicasTest {
    private static NatsSettings settings(Map<String, String> opts) {
        return NatsSettings.of(new DriverSpec("", 0, "", 64, 0, opts, ""), false);
    }

    @Test
    void replicasDefaultToOneAndAreReadAsGiven() {
        assertEquals(1, settings(Map.of("jetstream", "true")).replicas());
        assertEquals(3, settings(Map.of("jetstream", "true", "replicas", "3")).replicas());
    }

    @Test
    void badReplicasNameTheOption() {
        for (Map<String, String> bad : java.util.List.of(Map.of("replicas", "3"),
                Map.of("jetstream", "true", "replicas", "0"), Map.of("jetstream", "true", "replicas", "6"),
                Map.of("jetstream", "true", "replicas", "three"))) {
            assertEquals("--opt replicas", assertThrows(SpecException.class, () -> settings(bad)).option(),
                    bad::toString);
        }
    }
}

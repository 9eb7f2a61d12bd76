package io.msgscope.driver.kafka;

import io.msgscope.core.driver.ClientContext;
import org.apache.kafka.clients.admin.Admin;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * What the Kafka connections of one agent share: one Admin client per bootstrap list and TLS setting (topic creation
 * and deletion for every subscriber of a scenario), closed with the {@link ClientContext}. Producers and consumers
 * are not shared: kafka-clients runs a network thread per producer and per consumer, which no option changes.
 */
final class KafkaShared implements AutoCloseable {
    private final Map<String, Admin> admins = new HashMap<>();

    static KafkaShared of(ClientContext context) {
        return context.resource(KafkaShared.class, KafkaShared::new);
    }

    synchronized Admin admin(KafkaSettings s) {
        return admins.computeIfAbsent(s.bootstrap() + " " + s.tls(), b -> Admin.create(KafkaClients.admin(s)));
    }

    @Override
    public synchronized void close() {
        for (Admin a : admins.values()) {
            a.close(Duration.ofSeconds(5));
        }
        admins.clear();
    }
}

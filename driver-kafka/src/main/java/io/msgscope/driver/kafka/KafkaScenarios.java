package io.msgscope.driver.kafka;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * Kafka in scenario mode: a topic per scenario topic (made by its first subscriber, '.' between the levels), a
 * consumer group per subscriber for fan-in, fan-out and straight-run (each gets every message of its topic), one
 * shared group for round-robin (each partition, and so each message, to one member). Round-robin spreads over
 * partitions, so its topic gets {@value #ROUND_ROBIN_PARTITIONS} partitions unless {@code --opt partitions} says
 * otherwise: a member beyond the partition count receives nothing (Kafka's rule, said on the driver page).
 */
final class KafkaScenarios implements ScenarioSupport {
    static final KafkaScenarios INSTANCE = new KafkaScenarios();
    static final int ROUND_ROBIN_PARTITIONS = 16;

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", "topic", "group");
        KafkaSettings.ofOptions(user); // every value, before any agent starts
        if (scenario == Scenario.ROUND_ROBIN && !user.containsKey("partitions")) {
            Map<String, String> o = new HashMap<>(user);
            o.put("partitions", Integer.toString(ROUND_ROBIN_PARTITIONS));
            return o;
        }
        return user;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return KafkaSettings.ofOptions(options).label();
    }

    /** acks=1 and acks=all promise delivery (the broker acknowledged the write); acks=0 does not. */
    @Override
    public boolean reliable(Map<String, String> options) {
        return !KafkaSettings.ofOptions(options).acks().equals("0");
    }

    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put("topic", topic);
        if (!group.isEmpty()) {
            o.put("group", group);
        }
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }
}

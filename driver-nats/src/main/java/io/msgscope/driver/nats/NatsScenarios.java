package io.msgscope.driver.nats;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * NATS in scenario mode: subjects of tokens separated by '.', round-robin through a queue group (core
 * NATS) or a shared durable consumer (JetStream). Only JetStream promises delivery; core NATS is at
 * most once, so its losses are reported but do not fail the run.
 */
final class NatsScenarios implements ScenarioSupport {
    static final NatsScenarios INSTANCE = new NatsScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", "subject", "group");
        return user;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return jetStream(options) ? "JetStream " + options.getOrDefault("consumer", "push") : "core NATS";
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return jetStream(options);
    }

    private static boolean jetStream(Map<String, String> options) {
        return new DriverSpec("", 0, "", 0, 0, options, "").boolOption("jetstream", false);
    }

    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put("subject", topic);
        if (!group.isEmpty()) {
            o.put("group", group);
        }
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }
}

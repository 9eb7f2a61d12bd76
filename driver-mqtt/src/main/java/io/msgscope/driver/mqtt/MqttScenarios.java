package io.msgscope.driver.mqtt;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * MQTT in scenario mode: topics of levels separated by '/', one topic per publisher stream, the
 * subscription at the scenario's QoS; round-robin through an MQTT 5 shared subscription
 * ({@code $share/GROUP/topic}). QoS 1 and 2 promise delivery, so a lost message fails the run.
 */
final class MqttScenarios implements ScenarioSupport {
    static final MqttScenarios INSTANCE = new MqttScenarios();

    @Override
    public char separator() {
        return '/';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", "topic", "group");
        if (scenario == Scenario.ROUND_ROBIN && "3".equals(user.getOrDefault("version", "").trim())) {
            throw new SpecException("--scenario", "round-robin needs MQTT 5 shared subscriptions ($share/...); "
                    + "MQTT 3.1.1 (--opt version=3) has none");
        }
        return user;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return "QoS " + qos(options);
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return qos(options) >= 1;
    }

    private static int qos(Map<String, String> options) {
        return (int) new DriverSpec("", 0, "", 0, 0, options, "").longOption("qos", MqttSettings.DEFAULT_QOS, 0, 2);
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

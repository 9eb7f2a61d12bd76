package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * ZeroMQ in scenario mode, always through the broker-probe agent's proxy (M1): PUB/SUB over XSUB/XPUB
 * with the topics as subscription prefixes for fan-in, fan-out and straight-run, PUSH/PULL for
 * round-robin (the proxy's PUSH deals each message to exactly one subscriber). Brokerless scenarios
 * (every subscriber bound, every publisher connected to each) are not offered: refused, as are the
 * options the scenario chooses itself. With unlimited or blocking high-water marks ZeroMQ drops
 * nothing here, so a loss fails the run.
 */
final class ZmqScenarios implements ScenarioSupport {
    static final ZmqScenarios INSTANCE = new ZmqScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        if (user.containsKey("via") && !"proxy".equalsIgnoreCase(user.get("via"))) {
            throw new SpecException("--opt via", "ZeroMQ scenarios run through the proxy (via=proxy); brokerless "
                    + "via=" + user.get("via") + " is for msgscope run only");
        }
        ScenarioSupport.refuseChosen(user, "PUB/SUB with one topic per publisher stream, PUSH/PULL for round-robin",
                "", "pattern", "topic");
        Map<String, String> z = new TreeMap<>(user);
        z.put("via", "proxy");
        z.put("pattern", scenario == Scenario.ROUND_ROBIN ? "pushpull" : "pubsub");
        return Map.copyOf(z);
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return "pubsub".equals(options.get("pattern")) ? "ZeroMQ PUB/SUB via proxy" : "ZeroMQ PUSH/PULL via proxy";
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return true;
    }

    /** PUSH/PULL has neither topics nor groups: the proxy's one queue is both. */
    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        if (!"pubsub".equals(base.options().get("pattern"))) {
            return base.withDestination("");
        }
        Map<String, String> o = new HashMap<>(base.options());
        o.put("topic", topic);
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }
}

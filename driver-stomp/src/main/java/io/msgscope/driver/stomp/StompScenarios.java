package io.msgscope.driver.stomp;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * STOMP in scenario mode, on RabbitMQ's destinations: topics are routing keys of levels separated by '.'. Fan-in,
 * fan-out and straight-run subscribe to {@code /topic/TOPIC}, for which RabbitMQ makes each subscription a queue of its
 * own bound to {@code amq.topic} (in fan-out each subscriber gets every message); round-robin's subscribers share
 * {@code /queue/TOPIC}, one queue that hands each message to one of them. The scenario chooses {@code kind} and
 * {@code name}. Delivery is a promise, and a loss fails the run, with receipts and client acks
 * ({@link StompSettings#reliable}).
 */
final class StompScenarios implements ScenarioSupport {
    static final StompScenarios INSTANCE = new StompScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", "kind", "name");
        Map<String, String> o = new HashMap<>(user);
        o.put("kind", scenario == Scenario.ROUND_ROBIN ? "queue" : "topic");
        of(o, null); // every bad value named now, before any agent starts
        return o;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        StompSettings s = of(options, "label");
        return "STOMP " + (s.receipts() > 0 ? "receipts every " + s.receipts() : "no receipts") + ", ack=" + s.ack();
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return of(options, "reliable").reliable();
    }

    private static StompSettings of(Map<String, String> options, String name) {
        Map<String, String> o = new HashMap<>(options);
        if (name != null) {
            o.put("name", name);
        }
        return StompSettings.of(new DriverSpec("", 0, "", 0, 0, o, ""), false);
    }

    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put("name", topic);
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }

    @Override
    public DriverSpec publisher(DriverSpec base, String topic) {
        boolean artemis = StompSettings.ARTEMIS.equalsIgnoreCase(base.option("broker", "rabbitmq").trim());
        return base.withDestination(StompSettings.publishDestination(
                StompSettings.destination(base.option("kind", "topic"), topic, artemis), artemis));
    }
}

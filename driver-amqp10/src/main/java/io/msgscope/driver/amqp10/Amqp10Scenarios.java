package io.msgscope.driver.amqp10;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * AMQP 1.0 in scenario mode (seed 002, Q6), with the address forms of RabbitMQ's AMQP 1.0 plugin (AMQP 1.0 itself
 * has no topics): fan-in, fan-out and straight-run route through {@code /topic/TOPIC} (the {@code amq.topic} exchange
 * with the topic as routing key; each receiver gets a private queue bound with it, so in fan-out every subscriber
 * gets every message); round-robin uses one queue, {@code /queue/TOPIC}, which the publishers send to and the
 * subscribers share. Topic levels are separated by '.'. Brokers without these address forms (Qpid Broker-J) refuse
 * the links when the scenario connects: the run fails with the broker's one-line reason.
 *
 * <p>Delivery is a promise, and a loss fails the run, with unsettled transfers (the default): the broker settles
 * each transfer once it has taken it, and keeps each delivery until the receiver accepts it.
 */
final class Amqp10Scenarios implements ScenarioSupport {
    static final Amqp10Scenarios INSTANCE = new Amqp10Scenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "each connection's /topic/ or /queue/ address",
                " (use --topic-prefix for the topics)",
                Amqp10Options.TOPIC, Amqp10Options.SHARED, Amqp10Options.ADDRESS);
        Amqp10Options.of(spec(user));
        if (scenario != Scenario.ROUND_ROBIN) {
            return user;
        }
        Map<String, String> o = new TreeMap<>(user);
        o.put(Amqp10Options.SHARED, "true");
        return Map.copyOf(o);
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        Amqp10Options o = Amqp10Options.of(spec(options));
        return "AMQP 1.0 " + o.settlement() + ", credit " + o.credit();
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return Amqp10Options.of(spec(options)).reliable();
    }

    private static DriverSpec spec(Map<String, String> options) {
        return new DriverSpec("", 0, "", 0, 0, options, "");
    }

    /** The topic as the receiver's {@code /topic/TOPIC} (or, round-robin, the shared {@code /queue/TOPIC}). */
    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        return withTopic(base, topic, "");
    }

    /** The topic as the sender's target, the same address as the subscribers'. */
    @Override
    public DriverSpec publisher(DriverSpec base, String topic) {
        return withTopic(base, topic, topic);
    }

    private static DriverSpec withTopic(DriverSpec base, String topic, String destination) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put(Amqp10Options.TOPIC, topic);
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o,
                destination);
    }
}

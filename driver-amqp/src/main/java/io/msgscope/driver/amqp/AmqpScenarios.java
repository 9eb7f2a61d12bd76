package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * AMQP 0-9-1 in scenario mode (seed 002, Q6): topics are routing keys on a topic exchange ({@code amq.topic}, or
 * {@code --opt exchange}), levels separated by '.'. Fan-in, fan-out and straight-run: every subscriber consumes a
 * server-named, exclusive, auto-delete queue of its own bound to its topic, so in fan-out each gets every message.
 * Round-robin: the subscribers share one named queue (the scenario's group name) bound to the topic, and the broker
 * hands each message to exactly one of them; the last subscriber to leave deletes it. Publishers publish to the
 * exchange with their topic as routing key.
 *
 * <p>With {@code --opt reconnect=true} (issue 32 item 3) every subscriber's queue is named by msgscope instead: its
 * own {@code msgscope-TYPE-RANDOM}, or the group's, non-exclusive and not auto-delete, so a lost connection does not
 * remove it; durable as a quorum queue always is, a classic one with {@code --opt persistent=true}. A reconnected
 * subscriber declares and binds it again under that name ({@link AmqpSubscriber}), a reconnected publisher publishes
 * again what its confirms left open ({@link AmqpPublisher}). What a broker restart keeps: a durable queue, its binding
 * to the durable {@code amq.topic} and its persistent messages; a non-durable classic queue (or an exchange msgscope
 * declared, which is not durable) goes with the restart, together with what it held, and what is published before
 * the subscriber binds again is unroutable: lost, and with confirms and acks a guarantee violation. Streams are
 * refused: a stream consumer starts again at the next message.
 *
 * <p>Delivery is a promise, and a loss fails the run, when the broker confirms every publish (publisher confirms
 * {@code --opt confirm=N}, or transactions {@code --opt tx_size=N}) and keeps every message until the consumer
 * acknowledges it (manual acks: no {@code --opt auto_ack}); see {@link AmqpOptions#reliable()}.
 */
final class AmqpScenarios implements ScenarioSupport {
    static final AmqpScenarios INSTANCE = new AmqpScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "the topic of each connection, the round-robin group's queue",
                " (use --topic-prefix for the topics)", AmqpOptions.TOPIC, AmqpOptions.GROUP);
        if (io.msgscope.core.driver.Reconnects.on(user) && "stream".equalsIgnoreCase(user.get(AmqpOptions.QUEUE_TYPE))) {
            throw new SpecException("--opt " + AmqpOptions.QUEUE_TYPE, "stream cannot be read across a reconnect "
                    + "(--opt reconnect=true): its consumers start again at the next message written, so what was "
                    + "written while they were away would be skipped; use quorum or classic");
        }
        if (scenario == Scenario.ROUND_ROBIN && "stream".equalsIgnoreCase(user.get(AmqpOptions.QUEUE_TYPE))) {
            throw new SpecException("--opt " + AmqpOptions.QUEUE_TYPE, "stream cannot do round-robin: every consumer "
                    + "of a stream reads every message; use quorum or classic");
        }
        if (user.containsKey(AmqpOptions.IO)) {
            return user;
        }
        // issue 13: a scenario's connections share the agent's threads (amqp-client's NIO mode) unless asked otherwise
        Map<String, String> o = new java.util.TreeMap<>(user);
        o.put(AmqpOptions.IO, "nio");
        return Map.copyOf(o);
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        AmqpOptions o = of(options);
        String publish = o.confirm() > 0 ? "confirms" : o.txSize() > 0 ? "transactions" : "no confirms";
        return "AMQP " + publish + (o.autoAck() ? ", auto-ack" : ", acks");
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return of(options).reliable();
    }

    private static AmqpOptions of(Map<String, String> options) {
        return AmqpOptions.of(new DriverSpec("", 0, "", 0, 0, options, ""));
    }

    /** The topic as the routing key of the binding; the group, when given, as the shared queue's name. */
    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put(AmqpOptions.TOPIC, topic);
        if (!group.isEmpty()) {
            o.put(AmqpOptions.GROUP, group);
        }
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }

    /** The topic as the routing key of every publish (and as the destination, for the results). */
    @Override
    public DriverSpec publisher(DriverSpec base, String topic) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put(AmqpOptions.TOPIC, topic);
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, topic);
    }
}

package io.msgscope.driver.rabbitstream;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.Map;

/**
 * RabbitMQ Streams in scenario mode: each topic is a stream named after the run id, created by whichever side opens
 * first and deleted by its subscribers when they close. Every consumer of a stream reads all of it, so fan-out is
 * several consumers of one stream, fan-in several producers to one; straight-run one of each per stream.
 * Round-robin is refused (exit 2): a stream has no competing consumers; single active consumers give all messages
 * to one of them, which is fail-over, not round-robin.
 *
 * <p>Delivery is a promise: the producer waits for confirms and consumers read the stream from its first offset.
 */
final class RabbitStreamScenarios implements ScenarioSupport {
    static final RabbitStreamScenarios INSTANCE = new RabbitStreamScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        if (scenario == Scenario.ROUND_ROBIN) {
            throw new SpecException("--scenario", "round-robin cannot run on " + RabbitStreamDriver.NAME
                    + ": every consumer of a stream reads all of it, and single active consumers are fail-over, "
                    + "not round-robin");
        }
        ScenarioSupport.refuseChosen(user, "each topic is a stream of the run", " (use --topic-prefix for the topics)",
                RabbitStreamOptions.STREAM);
        if (RabbitStreamOptions.of(spec(user)).singleActive()) {
            throw new SpecException("--opt " + RabbitStreamOptions.SINGLE_ACTIVE, "would leave all but one subscriber "
                    + "of each stream idle: scenarios count every subscriber's deliveries; drop it");
        }
        return user;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        RabbitStreamOptions o = RabbitStreamOptions.of(spec(options));
        return "RabbitMQ stream, confirms, offset " + o.offset()
                + (o.subEntrySize() > 1 ? ", sub-entries of " + o.subEntrySize() : "");
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return true;
    }

    private static DriverSpec spec(Map<String, String> options) {
        return new DriverSpec("", 0, "", 0, 0, options, "");
    }

    /** The topic is the stream the subscriber consumes. */
    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        return base.withDestination(topic);
    }
}

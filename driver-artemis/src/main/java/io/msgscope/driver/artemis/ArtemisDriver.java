package io.msgscope.driver.artemis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ActiveMQ Artemis' core protocol (issue 35 item 4) through the Artemis core client ({@code artemis-core-client}):
 * the subscriber makes a queue on an address ({@code msgscope-artemis-<random>} unless {@code --opt address} names
 * one) and consumes from it; the publisher's producer sends to that address. Options ({@link ArtemisSettings}):
 * <ul>
 *   <li>{@code routing} anycast (default: one queue, each message to one consumer) or multicast (a subscription
 *       queue per subscriber: fan-out)</li>
 *   <li>{@code address} the address (and anycast queue) both sides use; default chosen by the subscriber</li>
 *   <li>{@code durable} durable messages and queues, through the broker's journal (default false)</li>
 *   <li>{@code confirm} block (default: each send waits for the broker's answer, a publisher confirm) or none</li>
 *   <li>{@code consumer_window} bytes the broker may push ahead of the consumer, -1 = no limit (default 1 MiB)</li>
 *   <li>{@code username}, {@code password} win over the URI's user info</li>
 * </ul>
 * The client runs its own threads (Netty event loops and a delivery pool, shared by the process's connections), not
 * the agent's. docs/drivers/artemis.md.
 */
public final class ArtemisDriver implements Driver {
    @Override
    public String name() {
        return "artemis";
    }

    @Override
    public Set<String> optionKeys() {
        return ArtemisSettings.OPTIONS;
    }

    @Override
    public void checkOptions(DriverSpec spec) {
        ArtemisSettings.of(spec, false);
    }

    /** Topics are addresses: levels separated by '.'; no white space and none of Artemis' wildcards '*' and '#'. */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.chars().anyMatch(c -> c <= ' ' || c == '*' || c == '#')) {
            throw new SpecException("--topic-prefix", "must be an Artemis address without white space, '*' or '#', "
                    + "got '" + prefix + "'");
        }
    }

    @Override
    public ScenarioSupport scenarios() {
        return ArtemisScenarios.INSTANCE;
    }

    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        ArtemisSettings s = ArtemisSettings.of(spec, false);
        return new ArtemisSubscriber(s, ArtemisSession.open(s, "subscriber"), spec.messageSize());
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        ArtemisSettings s = ArtemisSettings.of(spec, true);
        ArtemisSession session = ArtemisSession.open(s, "publisher");
        try {
            return new ArtemisPublisher(s, session, spec.messageSize());
        } catch (IOException | RuntimeException e) {
            session.close();
            throw e;
        }
    }

    @Override
    public List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        return ArtemisClean.clean(ArtemisSettings.of(spec, false), dryRun);
    }

    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        return "the artemis driver does not reconnect (docs/limits.md): a lost connection ends its clients' part of "
                + "the run";
    }

    @Override
    public String failureNote(Map<String, String> options) {
        return "a failed run may leave its queue on the broker (a durable one always outlives a run): msgscope clean "
                + "--driver artemis --uri URI removes msgscope's queues and addresses there";
    }
}

package io.msgscope.driver.stomp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * STOMP 1.2 (issue 35 item 3), a lean engine on Netty's STOMP codec and the agent's shared event loops
 * ({@link StompConnection}); tested against RabbitMQ's {@code rabbitmq_stomp} plugin. The subscriber connects first,
 * subscribes to its destination ({@code /queue/msgscope-stomp-<random>} unless {@code --opt name} names one) and
 * reports it; the publisher SENDs there.
 *
 * <p>{@code --uri}: {@code stomp://[user:password@]host[:port][/vhost]} (default
 * {@code stomp://guest:guest@127.0.0.1:61613}, RabbitMQ's default virtual host {@code /}). Options
 * ({@code --opt key=value}, {@link StompSettings}):
 * <ul>
 *   <li>{@code ack} auto, client or client-individual (default client)</li>
 *   <li>{@code receipts} a receipt on every Nth SEND, counted as publisher confirms; 0 = none (default 0)</li>
 *   <li>{@code max_inflight} SENDs awaiting their receipt before {@code send} waits, 1-1000000 (default 1000)</li>
 *   <li>{@code kind} queue, topic, exchange or amq-queue: RabbitMQ's destinations (default queue)</li>
 *   <li>{@code name} the destination's name (exchange: {@code EXCHANGE/KEY}); default chosen by the subscriber</li>
 *   <li>{@code durable} kind=queue: a durable queue that outlives the run (default false: auto-deleted)</li>
 *   <li>{@code persistent} SEND's persistent header (default: as durable)</li>
 *   <li>{@code prefetch} RabbitMQ's prefetch-count on SUBSCRIBE, with client acks; 0 = none (default 0)</li>
 *   <li>{@code username}, {@code password} win over the URI's user info</li>
 *   <li>{@code broker} rabbitmq (default) or artemis: ActiveMQ Artemis' addresses, named as they are, the routing
 *       type in SUBSCRIBE's {@code subscription-type} and SEND's {@code destination-type} headers</li>
 * </ul>
 */
public final class StompDriver implements Driver {
    @Override
    public String name() {
        return "stomp";
    }

    @Override
    public Set<String> optionKeys() {
        return StompSettings.OPTIONS;
    }

    @Override
    public void checkOptions(DriverSpec spec) {
        StompSettings.of(spec, false);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        return new StompSubscriber(StompSettings.of(spec, false), spec.messageSize(), context);
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        return new StompPublisher(StompSettings.of(spec, true), spec.messageSize(), context);
    }

    /** The connections bind to the context's next source address, as every lean engine's. */
    @Override
    public boolean bindsSourceAddresses(Map<String, String> options) {
        return true;
    }

    /** Topics are RabbitMQ routing keys here: levels separated by '.', no '/' (it would end the key), no ':'. */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.chars().anyMatch(c -> c == '/' || c == ':' || c == '\\' || c <= ' ')) {
            throw new SpecException("--topic-prefix", "must be a STOMP topic without '/', ':', '\\' or white space, "
                    + "got '" + prefix + "'");
        }
    }

    @Override
    public ScenarioSupport scenarios() {
        return StompScenarios.INSTANCE;
    }

    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        return "the stomp driver does not reconnect (docs/limits.md): a lost connection ends its clients' part of "
                + "the run";
    }

    @Override
    public String lossHint(Map<String, String> options) {
        return "auto".equalsIgnoreCase(options.get("ack"))
                ? "with --opt ack=auto the broker forgets a message as it sends it; use ack=client for delivery that "
                + "counts" : null;
    }

    @Override
    public String failureNote(Map<String, String> options) {
        boolean durable = new DriverSpec("", 0, "", 0, 0, options, "").boolOption("durable", false);
        return durable ? "--opt durable=true queues (/queue/" + StompSettings.NAME_PREFIX + "... unless --opt name "
                + "says otherwise) outlive the run: delete them with rabbitmqctl delete_queue NAME (STOMP has no way "
                + "to delete a queue)" : null;
    }
}

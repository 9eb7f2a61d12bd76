package io.msgscope.driver.kafka;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.common.KafkaException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Kafka through the official kafka-clients (issue 19, M10). The subscriber and the publisher each run their own
 * client with its own connections (A1: a KafkaConsumer, a KafkaProducer). The subscriber creates the run's topic
 * through the Admin client ({@code msgscope-<random>} unless {@code --opt topic} names one; {@code partitions},
 * {@code replication}), joins a consumer group, waits for its partitions and positions them at their end, and reports
 * the topic as its destination; the publisher sends to it without a key. A topic msgscope created is deleted when
 * its subscriber closes, on every path that closes it, and when the agent's JVM exits with it still open (Ctrl-C);
 * {@link #clean} finds and deletes what a killed run left.
 *
 * <p>{@code --uri kafka://host:port[,host:port...]} (the bootstrap servers; default
 * {@value KafkaSettings#DEFAULT_URI}, port 9092 when left out); {@code kafka+ssl://} for TLS (port 9093 when left
 * out; {@link KafkaTls}). Options ({@code --opt key=value}):
 * <ul>
 *   <li>{@code acks} 0, 1 or all (default all); acks=0 promises nothing, so scenario losses do not fail it</li>
 *   <li>{@code idempotence} true/false (default true with acks=all, as kafka-clients; refused with acks 0 or 1)</li>
 *   <li>{@code linger_ms} 0-60000, {@code batch_size} 0-67108864 bytes (default: kafka-clients', 5 ms and 16384)</li>
 *   <li>{@code compression} none, gzip, snappy, lz4 or zstd (default none)</li>
 *   <li>{@code max_inflight} sends not yet acknowledged before {@code send} waits (and a scenario pacer's offer
 *       waits its turn), 1-10000000 (default 10000)</li>
 *   <li>{@code partitions} 1-10000 (default 1; round-robin scenarios 16), {@code replication} (default 1) of the
 *       topic the subscriber creates</li>
 *   <li>{@code fetch_min_bytes}, {@code fetch_max_wait_ms} the consumer's fetch.min.bytes and fetch.max.wait.ms
 *       (default kafka-clients': 1 byte, 500 ms)</li>
 *   <li>{@code group_protocol} consumer (KIP-848, the default; brokers from Kafka 4.0) or classic</li>
 *   <li>{@code topic} the topic (default chosen and created by the subscriber); an existing topic is used as it is
 *       and kept; {@code group} subscriber only: join this shared consumer group (round-robin)</li>
 *   <li>{@code reconnect} true/false (default false; issue 32 item 3): failed sends are sent again and counted
 *       ({@link KafkaPublisher}), a consumer commits its positions so that a new assignment resumes there; trace mode
 *       only</li>
 *   <li>{@code tls_ca} a PEM file of the certificates to trust (default the JVM's trust store), {@code tls_verify}
 *       true/false (default true; false accepts any certificate and host name): kafka+ssl:// only</li>
 * </ul>
 */
public final class KafkaDriver implements Driver {
    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public Set<String> optionKeys() {
        return KafkaSettings.KEYS;
    }

    /** The URI and every option as both sides read them; never connects. */
    @Override
    public void checkOptions(DriverSpec spec) {
        KafkaSettings.of(spec, false);
    }

    /** Heap and little-endian: kafka-clients takes a byte[], copied from the array in one call. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** acks=0 completes a send once it is written to the socket: a broker that cannot keep up drops it unseen. */
    @Override
    public String lossHint(Map<String, String> options) {
        try {
            if (KafkaSettings.ofOptions(options).acks().equals("0")) {
                return "with --opt acks=0 the producer does not wait for the broker, which drops what it cannot take "
                        + "without telling anyone; use --opt acks=1 or acks=all";
            }
        } catch (SpecException e) {
            return null;
        }
        return null;
    }

    /** The first bootstrap server's host. */
    @Override
    public String brokerHost(String uri, Map<String, String> options) {
        try {
            String first = KafkaSettings.servers(uri.isEmpty() ? KafkaSettings.DEFAULT_URI : uri).get(0);
            String host = first.substring(0, first.lastIndexOf(':'));
            return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        } catch (SpecException e) {
            return null;
        }
    }

    /**
     * Topic names (scenario {@code --topic-prefix}, Q6): Kafka's characters, and short enough for straight-run's
     * {@code .N} suffix within Kafka's 249.
     */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.length() > KafkaSettings.MAX_TOPIC - 7) {
            throw new SpecException("--topic-prefix", "must be at most " + (KafkaSettings.MAX_TOPIC - 7)
                    + " characters (a Kafka topic name ends at " + KafkaSettings.MAX_TOPIC + "), got " + prefix.length());
        }
        KafkaSettings.checkTopic("--topic-prefix", prefix);
    }

    @Override
    public ScenarioSupport scenarios() {
        return KafkaScenarios.INSTANCE;
    }

    /**
     * Kill and restart need {@code --opt reconnect=true} (issue 32 item 3): without it the first send kafka-clients
     * gives up on (a broker down longer than the delivery timeout) ends the run.
     */
    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the kafka producer's first send that times out ends the run without --opt reconnect=true";
    }

    /** A consumer pauses its partitions and the log keeps what is sent (issue 31): always possible. */
    @Override
    public String whyConsumersCannotPause(Map<String, String> options) {
        return null;
    }

    /**
     * Issue 31 item 3: the consumer group's lag, summed over the topic's partitions ({@link KafkaBacklogProbe}), for
     * the subscriber of {@code destination} that this agent opened (the group is its own); null without one.
     */
    @Override
    public io.msgscope.core.driver.BacklogProbe openBacklogProbe(DriverSpec spec, String destination)
            throws IOException {
        KafkaSubscriber sub = KafkaSubscriber.commitForProbe(destination);
        return sub == null ? null : new KafkaBacklogProbe(KafkaSettings.of(spec.withDestination(destination), true),
                sub.group());
    }

    /** Issue 31: the Admin client reads the subscriber's group lag. */
    @Override
    public String whyBacklogCannotBeRead(Map<String, String> options) {
        return null;
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        KafkaSettings s = KafkaSettings.of(spec, false);
        return new KafkaSubscriber(s, spec.messageSize(), admin(s, context));
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        return KafkaPublisher.open(KafkaSettings.of(spec, true), spec.messageSize());
    }

    private static Admin admin(KafkaSettings s, ClientContext context) throws IOException {
        try {
            return KafkaShared.of(context).admin(s);
        } catch (KafkaException e) {
            throw new IOException("cannot create a Kafka admin client for " + s.address() + ": "
                    + KafkaClients.oneLine(e), e);
        }
    }

    /**
     * Topics and consumer groups msgscope named ({@code msgscope-...} and {@code msgscope....}, a scenario's
     * {@code msgscope<seed>} group) that a run left behind, e.g. when the broker or an agent was killed before the
     * subscribers closed; deleted unless {@code dryRun}. Topics of a scenario run with {@code --topic-prefix} are not
     * msgscope's by name and are left.
     */
    @Override
    public List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        KafkaSettings s = KafkaSettings.of(spec, false);
        try (Admin admin = Admin.create(KafkaClients.admin(s))) {
            Set<String> topics = new TreeSet<>();
            for (String t : admin.listTopics().names().get(KafkaClients.ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                if (t.startsWith(KafkaSettings.PREFIX + "-") || t.startsWith(KafkaSettings.PREFIX + ".")) {
                    topics.add(t);
                }
            }
            Set<String> groups = new TreeSet<>();
            for (GroupListing g : admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()
                    .get(KafkaClients.ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                if (g.groupId().startsWith(KafkaSettings.PREFIX)) {
                    groups.add(g.groupId());
                }
            }
            List<String> out = new ArrayList<>();
            String verb = dryRun ? "would delete" : "deleted";
            if (!dryRun && !groups.isEmpty()) {
                KafkaClients.deleteGroups(admin, groups);
            }
            if (!dryRun && !topics.isEmpty()) {
                KafkaClients.deleteTopics(admin, topics);
            }
            for (String g : groups) {
                out.add(verb + " Kafka consumer group " + g + " at " + s.address());
            }
            for (String t : topics) {
                out.add(verb + " Kafka topic " + t + " at " + s.address());
            }
            return out;
        } catch (ExecutionException e) {
            throw new IOException("Kafka at " + s.address() + " refused to list topics or groups: "
                    + KafkaClients.oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("Kafka at " + s.address() + " did not answer within "
                    + KafkaClients.ADMIN_TIMEOUT_MS / 1000 + " s (is a broker listening?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while cleaning Kafka at " + s.address());
        } catch (KafkaException e) {
            throw new IOException("cannot reach Kafka at " + s.address() + ": " + KafkaClients.oneLine(e), e);
        }
    }
}

package io.msgscope.driver.kafka;

import io.msgscope.core.driver.Fault;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the driver configures kafka-clients, and the Admin calls it makes (topic create and delete, group delete).
 * Timeouts are shorter than the client's defaults so that a broker that is gone fails a run in seconds rather than
 * minutes: {@value #REQUEST_TIMEOUT_MS} ms per request, sends given up after {@value #DELIVERY_TIMEOUT_MS} ms (or
 * linger plus a request, if longer), a blocked {@code send} after {@value #MAX_BLOCK_MS} ms.
 */
final class KafkaClients {
    static final int REQUEST_TIMEOUT_MS = 10_000;
    static final int DELIVERY_TIMEOUT_MS = 20_000;
    static final int MAX_BLOCK_MS = 15_000;
    static final long ADMIN_TIMEOUT_MS = 15_000;

    private KafkaClients() {
    }

    static Properties producer(KafkaSettings s, int messageSize) {
        Properties p = common(s, "msgscope-publisher");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, s.acks());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(s.idempotence()));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, s.compression());
        if (s.linger() >= 0) {
            p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(s.linger()));
        }
        if (s.batchSize() >= 0) {
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(s.batchSize()));
        }
        // the broker decides what is too large (message.max.bytes), not a client-side limit below it
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Math.max(1 << 20, messageSize + 1024)));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(MAX_BLOCK_MS));
        int linger = Math.max(0, s.linger());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Math.max(DELIVERY_TIMEOUT_MS,
                linger + REQUEST_TIMEOUT_MS)));
        return p;
    }

    static Properties consumer(KafkaSettings s, String group, boolean autoCommit, int messageSize) {
        Properties p = common(s, "msgscope-subscriber");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, s.classicGroups() ? "classic" : "consumer");
        // a member that joins a shared group (or gets its partitions back) starts at the offsets committed last
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(autoCommit));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(Math.max(1 << 20, messageSize + 1024)));
        if (s.fetchMinBytes() >= 0) {
            p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, Integer.toString(s.fetchMinBytes()));
        }
        if (s.fetchMaxWaitMs() >= 0) {
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(s.fetchMaxWaitMs()));
        }
        return p;
    }

    static Properties admin(KafkaSettings s) {
        Properties p = common(s, "msgscope-admin");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(ADMIN_TIMEOUT_MS));
        return p;
    }

    private static Properties common(KafkaSettings s, String clientId) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
        if (s.tls() != null) {
            s.tls().configure(p);
        }
        return p;
    }

    /**
     * Creates the topic, or finds it made by another subscriber of the run (fan-out, round-robin); returns true when
     * this call created it. A refusal (replication above the broker count, a policy) is a {@link Fault} naming it.
     */
    static boolean createTopic(Admin admin, KafkaSettings s) throws IOException {
        try {
            admin.createTopics(List.of(new NewTopic(s.topic(), s.partitions(), s.replication()))).all()
                    .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return false;
            }
            if (e.getCause() instanceof SslAuthenticationException) {
                throw tlsFailed(s, e.getCause());
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                // the admin client's own deadline came first: no broker answered, as below
                throw new Fault(Fault.Kind.CONNECT_FAILED, "Kafka at " + s.address() + " did not answer within "
                        + ADMIN_TIMEOUT_MS / 1000 + " s when creating topic '" + s.topic() + "' (is a broker listening?)");
            }
            throw new Fault(Fault.Kind.REFUSED, "Kafka at " + s.address() + " refused to create topic '" + s.topic()
                    + "' (" + s.partitions() + " partitions, replication " + s.replication() + "): "
                    + oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "Kafka at " + s.address() + " did not answer within "
                    + ADMIN_TIMEOUT_MS / 1000 + " s when creating topic '" + s.topic() + "' (is a broker listening?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while creating topic '" + s.topic() + "' at " + s.address());
        }
    }

    /**
     * Commits offset 0 of every partition of a topic this run just created for a shared group that has no member yet,
     * so that whichever member is given a partition, whenever, starts at its beginning (the run's first message).
     * A broker that refuses it leaves the group to the members' own positions, as before.
     */
    static void startGroupAtBeginning(Admin admin, KafkaSettings s, String group) {
        java.util.Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> start =
                new java.util.HashMap<>();
        for (int p = 0; p < s.partitions(); p++) {
            start.put(new org.apache.kafka.common.TopicPartition(s.topic(), p),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0));
        }
        try {
            admin.alterConsumerGroupOffsets(group, start).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // not fatal: the members then start where their own assignment positions them
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes topics; one that is gone already is no failure. */
    static void deleteTopics(Admin admin, Set<String> topics) throws IOException {
        try {
            admin.deleteTopics(topics).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                throw new IOException("cannot delete topics " + topics + ": " + oneLine(e.getCause()), e.getCause());
            }
        } catch (TimeoutException e) {
            throw new IOException("Kafka did not answer within " + ADMIN_TIMEOUT_MS / 1000 + " s when deleting topics "
                    + topics);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while deleting topics " + topics);
        }
    }

    /** Deletes consumer groups; one that is gone already, or still has members (a shared group), is left. */
    static void deleteGroups(Admin admin, Set<String> groups) throws IOException {
        try {
            admin.deleteConsumerGroups(groups).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (!(c instanceof GroupIdNotFoundException) && !(c instanceof GroupNotEmptyException)) {
                throw new IOException("cannot delete consumer groups " + groups + ": " + oneLine(c), c);
            }
        } catch (TimeoutException e) {
            throw new IOException("Kafka did not answer within " + ADMIN_TIMEOUT_MS / 1000 + " s when deleting "
                    + "consumer groups " + groups);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while deleting consumer groups " + groups);
        }
    }

    /**
     * A TLS handshake that failed (an untrusted certificate, a host name it does not name, a plain listener): one line
     * with the JDK's reason, which kafka-clients keeps under its own "SSL handshake failed".
     */
    static Fault tlsFailed(KafkaSettings s, Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return new Fault(Fault.Kind.CONNECT_FAILED, "TLS with Kafka at " + s.address() + " failed: " + oneLine(root)
                + (s.tls() != null && s.tls().ca() == null ? " (no --opt tls_ca: the JVM's trust store was used)" : ""),
                t);
    }

    static String oneLine(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return m.replace('\n', ' ');
    }
}

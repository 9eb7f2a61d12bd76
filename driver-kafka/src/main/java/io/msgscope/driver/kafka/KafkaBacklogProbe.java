package io.msgscope.driver.kafka;

import io.msgscope.core.driver.BacklogProbe;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The broker's count of what a consumer group has not consumed (issue 31 item 3), through an Admin client of its own:
 * for every partition of the topic, the latest offset ({@code listOffsets} with {@link OffsetSpec#latest()}, the high
 * watermark) less the group's committed offset ({@code listConsumerGroupOffsets}), summed. The subscriber commits its
 * position at most every {@value KafkaSubscriber#PROBE_COMMIT_MS} ms while a probe watches it (see
 * {@link KafkaSubscriber#commitForProbe}), so the committed offset trails what was consumed by up to that interval's
 * traffic (10 % of a 1,000,000 backlog at a 2 M msg/s drain, measured); where this JVM's members of the group have
 * handed over records beyond the committed offset, their position counts instead (Kafka's offsets are consecutive, so
 * the difference is exactly the records consumed and not yet committed): the middle of the positions read before the
 * two requests (sent at once) and after their answers ({@link ConsumedPositions#midway}), as the read is stamped at the
 * middle of its round trip. The last read follows a commit of
 * everything ({@link KafkaSubscriber#settleConsumed}).
 */
final class KafkaBacklogProbe implements BacklogProbe {
    private final Admin admin;
    private final String topic;
    private final String group;
    private final String address;
    private final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();

    KafkaBacklogProbe(KafkaSettings s, String group) throws IOException {
        this.topic = s.topic();
        this.group = group;
        this.address = s.address();
        try {
            this.admin = Admin.create(KafkaClients.admin(s));
        } catch (KafkaException e) {
            throw new IOException("kafka: the backlog probe cannot create an admin client for " + address + ": "
                    + KafkaClients.oneLine(e), e);
        }
        try {
            int partitions = admin.describeTopics(java.util.List.of(topic)).allTopicNames()
                    .get(KafkaClients.ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
        } catch (ExecutionException | TimeoutException | InterruptedException | RuntimeException e) {
            admin.close(java.time.Duration.ofSeconds(1));
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("kafka: the backlog probe cannot describe topic '" + topic + "' at " + address + ": "
                    + KafkaClients.oneLine(e instanceof ExecutionException ? e.getCause() : e), e);
        }
    }

    @Override
    public long depth() throws IOException {
        try {
            // both requests at once, and the consumers' positions before and after: the read's moment is its middle
            Map<TopicPartition, Long> before = ConsumedPositions.of(group);
            var committedAsked = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata();
            var endsAsked = admin.listOffsets(latest).all();
            Map<TopicPartition, OffsetAndMetadata> committed =
                    committedAsked.get(KafkaClients.ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    endsAsked.get(KafkaClients.ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return lag(ends, committed, ConsumedPositions.midway(before, ConsumedPositions.of(group)));
        } catch (ExecutionException e) {
            throw new IOException("kafka: reading the lag of group '" + group + "' on topic '" + topic + "' at "
                    + address + " failed: " + KafkaClients.oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("kafka: " + address + " did not answer the backlog probe within "
                    + KafkaClients.ADMIN_TIMEOUT_MS / 1000 + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("kafka: interrupted while reading the lag of group '" + group + "'");
        }
    }

    private long lag(Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends,
                     Map<TopicPartition, OffsetAndMetadata> committed, Map<TopicPartition, Long> handedOver)
            throws IOException {
        Map<TopicPartition, Long> end = new HashMap<>();
        ends.forEach((tp, info) -> end.put(tp, info.offset()));
        Map<TopicPartition, Long> done = new HashMap<>();
        committed.forEach((tp, c) -> {
            if (c != null) {
                done.put(tp, c.offset());
            }
        });
        return lag(group, end, done, handedOver);
    }

    /**
     * The summed lag: per partition, its end less the later of the committed offset and this JVM's handed-over
     * position, never below 0 (the end was read before the position). A partition the group never committed has no
     * known lag and fails the read.
     */
    static long lag(String group, Map<TopicPartition, Long> end, Map<TopicPartition, Long> committed,
                    Map<TopicPartition, Long> handedOver) throws IOException {
        long sum = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            Long c = committed.get(e.getKey());
            if (c == null) {
                throw new IOException("kafka: consumer group '" + group + "' has no committed offset for partition "
                        + e.getKey() + ", so its lag is unknown");
            }
            long consumed = Math.max(c, handedOver.getOrDefault(e.getKey(), c));
            sum += Math.max(0, e.getValue() - consumed);
        }
        return sum;
    }

    @Override
    public String source() {
        return "Kafka Admin listOffsets (latest) less listConsumerGroupOffsets of group " + group + " on topic " + topic
                + ", summed over its partitions (committed offsets, which the consumer commits at most every "
                + KafkaSubscriber.PROBE_COMMIT_MS + " ms while probed; where this agent's consumer has handed over "
                + "more than it committed, its position instead)";
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}

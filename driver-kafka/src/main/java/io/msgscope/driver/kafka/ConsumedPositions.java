package io.msgscope.driver.kafka;

import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one consumer of a group has handed over, per partition: the offset after the last record (its consumed
 * position), kept while a backlog probe watches (issue 31 item 3). Kafka's lag counts committed offsets, which trail
 * by up to a commit interval; the probe takes the later of the two ({@link KafkaBacklogProbe}). Every open consumer
 * of this JVM is listed by group; a partition taken away (a rebalance) is forgotten, since its next owner starts at
 * the committed offset.
 */
final class ConsumedPositions {
    private static final Map<String, Set<ConsumedPositions>> MEMBERS = new ConcurrentHashMap<>();

    private final String group;
    private final Map<TopicPartition, Long> next = new ConcurrentHashMap<>();

    ConsumedPositions(String group) {
        this.group = group;
    }

    /** Lists this consumer under its group (once it has joined it). */
    void join() {
        MEMBERS.computeIfAbsent(group, g -> ConcurrentHashMap.newKeySet()).add(this);
    }

    /** Takes this consumer off its group's list (it closed). */
    void leave() {
        MEMBERS.computeIfPresent(group, (g, set) -> {
            set.remove(this);
            return set.isEmpty() ? null : set;
        });
    }

    /** The records of {@code tp} up to {@code nextOffset} (exclusive) were handed over. */
    void handedOver(TopicPartition tp, long nextOffset) {
        next.put(tp, nextOffset);
    }

    /** The group took these partitions away from this consumer. */
    void revoked(Collection<TopicPartition> partitions) {
        next.keySet().removeAll(partitions);
    }

    /**
     * What the listed consumers of {@code group} have handed over, per partition (the furthest, should two list
     * one). A partition with no entry has nothing handed over past its committed offset as far as this JVM knows
     * (a member on another agent may hold it).
     */
    static Map<TopicPartition, Long> of(String group) {
        Map<TopicPartition, Long> all = new HashMap<>();
        for (ConsumedPositions c : MEMBERS.getOrDefault(group, Set.of())) {
            c.next.forEach((tp, n) -> all.merge(tp, n, Math::max));
        }
        return all;
    }

    /**
     * Per partition, the middle of two reads of {@link #of} (rounded down): a partition in only one of them (taken or
     * given up in between) keeps that one's position.
     */
    static Map<TopicPartition, Long> midway(Map<TopicPartition, Long> before, Map<TopicPartition, Long> after) {
        Map<TopicPartition, Long> mid = new HashMap<>(after);
        before.forEach((tp, b) -> mid.merge(tp, b, (a, bb) -> bb + (a - bb) / 2));
        return mid;
    }
}

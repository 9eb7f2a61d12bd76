package io.msgscope.driver.kafka;

import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The topics of subscribers that were never closed, deleted when the JVM exits (an agent stopped by Ctrl-C, which
 * reaches it as SIGINT, ends without closing its connections): one Admin request each, a few seconds at most.
 */
final class TopicsAtExit {
    private static final Set<KafkaSubscriber> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();

    static void add(KafkaSubscriber s) {
        OPEN.add(s);
        if (HOOKED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(TopicsAtExit::deleteAll, "msgscope-kafka-topics"));
        }
    }

    static boolean remove(KafkaSubscriber s) {
        return OPEN.remove(s);
    }

    private static void deleteAll() {
        for (KafkaSubscriber s : OPEN) {
            try {
                s.admin().deleteTopics(Set.of(s.destination())).all().get(3, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                // exiting: msgscope clean removes what is left
            }
        }
    }
}

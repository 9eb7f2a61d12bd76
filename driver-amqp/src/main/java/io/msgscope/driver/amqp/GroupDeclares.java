package io.msgscope.driver.amqp;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Declares of one shared quorum or stream queue, one at a time within this process. RabbitMQ answers a declare of
 * a queue that another connection is still creating with "exists" at once, before the queue's Raft members are
 * running, and a basic.consume then fails on the broker ({@code noproc}) and closes the whole connection with 541
 * INTERNAL_ERROR (rabbitmq-server issues 13775, 10070). The creator's own declare returns only once its leader
 * answered, so a subscriber that waits for it can consume at once. Subscribers on other agents (other processes)
 * are not covered: docs/limits.md says so.
 */
final class GroupDeclares {
    /** The locks of the declares under way, by broker address and queue name; removed by the last holder. */
    private static final ConcurrentHashMap<String, Held> HELD = new ConcurrentHashMap<>();

    private GroupDeclares() {
    }

    /** What a declare returns: the queue's name. */
    @FunctionalInterface
    interface Declare {
        String run() throws IOException;
    }

    /** Runs {@code declare} while no other declare of the same {@code key} in this process runs. */
    static String oneAtATime(String key, Declare declare) throws IOException {
        Held h = HELD.compute(key, (k, v) -> {
            Held held = v == null ? new Held() : v;
            held.users++;
            return held;
        });
        h.lock.lock();
        try {
            return declare.run();
        } finally {
            h.lock.unlock();
            HELD.compute(key, (k, v) -> --v.users == 0 ? null : v);
        }
    }

    /** How many keys are held now (a test's view: none once every declare returned). */
    static int held() {
        return HELD.size();
    }

    private static final class Held {
        final ReentrantLock lock = new ReentrantLock();
        int users; // changed only inside HELD.compute, which runs one at a time per key
    }
}

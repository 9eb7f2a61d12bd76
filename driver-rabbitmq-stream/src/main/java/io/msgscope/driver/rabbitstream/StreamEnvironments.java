package io.msgscope.driver.rabbitstream;

import com.rabbitmq.stream.Environment;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link Environment}s of one agent's connections (issue 35: many connections without a thread per connection).
 * An environment brings its own Netty event loops, schedulers and a locator connection; one per publisher or
 * subscriber made ~6 threads per connection (5,851 threads in a publishers agent of 1,000, which then lost its
 * control connection). In a scenario role's {@link ClientContext} all clients of the same URI and options share one
 * environment, whose producers and consumers each still take a connection of their own
 * ({@code max*ByConnection} = 1), so the connection count means what it says. On the process-wide
 * {@link ClientContext#shared()} (trace mode's single connection per role, tools), which is never closed, each
 * client keeps an environment of its own and closes it with itself.
 */
final class StreamEnvironments implements AutoCloseable {
    private final Map<String, Environment> byOptions = new HashMap<>();
    private final List<Environment> all = new ArrayList<>();

    /** An environment for one client: {@code release} closes it when the client owned it, else does nothing. */
    record Lease(Environment env, boolean owned) {
        void release() {
            if (owned) {
                env.close();
            }
        }
    }

    static Lease lease(DriverSpec spec, ClientContext context) throws Fault {
        if (context == ClientContext.shared()) {
            return new Lease(RabbitStreamDriver.environment(spec), true);
        }
        return new Lease(context.resource(StreamEnvironments.class, StreamEnvironments::new).get(spec), false);
    }

    private synchronized Environment get(DriverSpec spec) throws Fault {
        String key = RabbitStreamDriver.uri(spec) + " " + new java.util.TreeMap<>(spec.options());
        Environment env = byOptions.get(key);
        if (env == null) { // a failed build leaves nothing behind: the next client tries again
            env = RabbitStreamDriver.environment(spec);
            byOptions.put(key, env);
            all.add(env);
        }
        return env;
    }

    @Override
    public synchronized void close() {
        for (Environment env : all) {
            try {
                env.close();
            } catch (RuntimeException e) {
                // the broker went away: nothing left to close cleanly
            }
        }
        all.clear();
        byOptions.clear();
    }
}

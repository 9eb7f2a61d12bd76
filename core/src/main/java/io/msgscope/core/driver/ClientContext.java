package io.msgscope.core.driver;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What the connections of one agent share (issue 13): a fixed number of I/O threads, whatever else a
 * driver keeps once per agent (its Netty event loops, a ZeroMQ context, an executor for its client
 * library), the local source addresses client sockets bind to, and the connect-time statistics. The
 * agent's thread count therefore does not grow with its connections: a driver opens its thousandth
 * connection on the same event loops as its first.
 *
 * <p>Drivers keep their shared pieces with {@link #resource}: created on first use, closed with the
 * context, in reverse order of creation. A role owns its context and closes it after its connections.
 * {@link #shared()} is a process-wide context for tests and tools that open a connection or two.
 */
public final class ClientContext implements AutoCloseable {
    private static ClientContext shared;

    private final int ioThreads;
    private final List<InetAddress> sourceAddresses;
    private final AtomicLong nextSource = new AtomicLong();
    private final ConnectStats connects = new ConnectStats();
    private final Map<Class<?>, AutoCloseable> resources = new LinkedHashMap<>();
    private boolean closed;

    /**
     * @param ioThreads       I/O threads the drivers may run for this agent's connections, at least 1
     * @param sourceAddresses local addresses client sockets bind to in turn; empty = the OS chooses
     */
    public ClientContext(int ioThreads, List<InetAddress> sourceAddresses) {
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be at least 1, got " + ioThreads);
        }
        this.ioThreads = ioThreads;
        this.sourceAddresses = List.copyOf(sourceAddresses);
    }

    /** One I/O thread, no source addresses: a trace run's single connection per role. */
    public static ClientContext single() {
        return new ClientContext(1, List.of());
    }

    /** The process-wide context (one I/O thread per core), never closed: daemon threads end with the JVM. */
    public static synchronized ClientContext shared() {
        if (shared == null) {
            shared = new ClientContext(Runtime.getRuntime().availableProcessors(), List.of());
        }
        return shared;
    }

    public int ioThreads() {
        return ioThreads;
    }

    public List<InetAddress> sourceAddresses() {
        return sourceAddresses;
    }

    /** The next source address in turn (each connection takes one), or null when the OS chooses. */
    public InetAddress nextSourceAddress() {
        if (sourceAddresses.isEmpty()) {
            return null;
        }
        return sourceAddresses.get((int) (nextSource.getAndIncrement() % sourceAddresses.size()));
    }

    /** Connect times and failures of this context's connections, recorded by the roles. */
    public ConnectStats connects() {
        return connects;
    }

    /**
     * The driver's shared piece of this context, keyed by its class: made by {@code factory} on first use
     * (under a lock: connections opened from several threads get the same one), closed with the context.
     *
     * @throws IllegalStateException once the context is closed
     */
    public synchronized <T extends AutoCloseable> T resource(Class<T> key, Supplier<? extends T> factory) {
        if (closed) {
            throw new IllegalStateException("the client context is closed");
        }
        Object r = resources.get(key);
        if (r == null) {
            r = factory.get();
            resources.put(key, (AutoCloseable) r);
        }
        return key.cast(r);
    }

    /** Closes every shared piece, newest first; idempotent. The connections must be closed before. */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(resources.values());
            resources.clear();
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                // closing anyway: the agent is ending the run
            }
        }
    }
}

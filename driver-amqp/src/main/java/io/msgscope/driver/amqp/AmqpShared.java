package io.msgscope.driver.amqp;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.nio.NioParams;
import com.rabbitmq.client.impl.nio.NioQueue;
import com.rabbitmq.client.impl.nio.WriteRequest;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the AMQP connections of one agent share (issue 13), kept once per {@link ClientContext} and closed
 * with it: amqp-client in NIO mode, so that the agent's thread count does not grow with its connections.
 *
 * <ul>
 *   <li>{@code msgscope-amqp-io-N}: amqp-client's NIO loops, {@link ClientContext#ioThreads()} of them for the
 *       publishers and as many for the subscribers, reading and writing every connection's socket (one loop serves
 *       many connections: a connection is given to the loops in turn). The executor runs one thread per loop; a
 *       second broker URI in one agent gets loops of its own.</li>
 *   <li>{@code msgscope-amqp-dispatch-N}: the consumer callbacks of every connection (amqp-client's consumer work
 *       service; one channel is served by one thread at a time, in delivery order), {@code ioThreads} of them.</li>
 *   <li>{@code msgscope-amqp-heartbeat}: one thread sending every connection's heartbeats.</li>
 *   <li>{@code msgscope-amqp-retry-1}: the attempts of scenario subscribers to get a lost connection back
 *       ({@code --opt reconnect=true}, issue 32 item 3), one thread, created at the first loss; never amqp-client's
 *       own threads, which the connection being opened needs.</li>
 *   <li>{@code msgscope-amqp-closing-N}: what amqp-client runs when connections close (channel shutdown, its
 *       shutdown monitors, the wait for a broker-closed socket, the NIO loop's connection shutdown). None while
 *       nothing closes; grows only while many connections close at once (e.g. a broker killed mid-run) and shrinks
 *       within seconds: bounded, it deadlocked on itself, amqp-client waiting in one such task for another.</li>
 * </ul>
 *
 * <p>One {@link ConnectionFactory} per broker URI (and TLS verification) and side (publishers, subscribers; see
 * {@link #factory}): amqp-client's NIO loops belong to the factory, so one factory for all keeps them shared. Its {@link com.rabbitmq.client.SocketChannelConfigurator}
 * sets TCP_NODELAY (amqp-client's default, replaced here) and binds each new socket to
 * {@link ClientContext#nextSourceAddress()} before it connects ({@code --source-addresses}). Its write-queue
 * factory hands each connection's outgoing frame queue to the opener (a {@link CountingWriteQueue}), so that a
 * publisher's {@code offer} can tell a full queue, where amqp-client would block, from a free one.
 */
final class AmqpShared implements AutoCloseable {
    /**


     */
    static final int WRITE_QUEUE_FRAMES = 1024;

    private final ClientContext context;
    private final ThreadPoolExecutor io;
    private final ThreadPoolExecutor dispatch;
    private final ScheduledThreadPoolExecutor heartbeats;
    private final ThreadPoolExecutor closing;
    private final ScheduledThreadPoolExecutor retries;
    private final Map<String, ConnectionFactory> factories = new HashMap<>();
    private final Map<String, AtomicInteger> openTo = new ConcurrentHashMap<>();
    /** The write queue amqp-client creates for a connection, made and caught on the thread that opens it. */
    private final ThreadLocal<Catch> caught = new ThreadLocal<>();

    /** What the opener wants of its connection's write queue, and the queue made for it. */
    private static final class Catch {
        final int capacity;
        CountingWriteQueue queue;

        Catch(int capacity) {
            this.capacity = capacity;
        }
    }

    private AmqpShared(ClientContext context) {
        this.context = context;
        int n = context.ioThreads();
        io = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                named("msgscope-amqp-io-"));
        dispatch = new ThreadPoolExecutor(n, n, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                named("msgscope-amqp-dispatch-"));
        heartbeats = new ScheduledThreadPoolExecutor(1, named("msgscope-amqp-heartbeat-"));
        heartbeats.setRemoveOnCancelPolicy(true); // a closed connection's heartbeat task leaves at once
        closing = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(),
                named("msgscope-amqp-closing-"));
        retries = new ScheduledThreadPoolExecutor(1, named("msgscope-amqp-retry-"));
    }

    /** The context's shared AMQP pieces, made on first use. */
    static AmqpShared of(ClientContext context) {
        return context.resource(AmqpShared.class, () -> new AmqpShared(context));
    }

    /** Where push-mode subscribers make their reconnect attempts (see the class comment). */
    java.util.concurrent.ScheduledExecutorService retries() {
        return retries;
    }

    /** The consumer-callback executor every connection of this agent shares. */
    ExecutorService dispatch() {
        return dispatch;
    }

    /**
     * The NIO factory for this spec's broker, made once per URI, TLS setting and side: publishers and subscribers
     * get loops of their own. amqp-client's NIO loop writes a frame by spinning on the socket until the broker
     * takes it; when the broker holds a publisher back (RabbitMQ's flow control, until its queues drain to the
     * consumers), a loop that also read those consumers' deliveries would stop reading them while it spins, and
     * the two would wait on each other. With loops of their own (a process with both sides: the throughput mode's
     * flow agent, the tests) subscribers are read whatever the publishers' loops do.
     */
    synchronized ConnectionFactory factory(DriverSpec spec, AmqpOptions o, boolean publisher) {
        String key = (spec.uri().isEmpty() ? AmqpConnections.DEFAULT_URI : spec.uri()) + " tls_verify=" + o.tlsVerify()
                + (publisher ? " publishers" : " subscribers") + (o.nio() ? " nio" : " blocking");
        ConnectionFactory f = factories.get(key);
        if (f == null) {
            f = o.nio() ? nio(AmqpConnections.factory(spec, o)) : blocking(AmqpConnections.factory(spec, o));
            factories.put(key, f);
        }
        return f;
    }

    /**
     * {@code --opt io=blocking}: amqp-client's blocking sockets, one reader thread per connection ("AMQP Connection
     * host:port"); the consumer callbacks, heartbeats and closing still run on the shared pools. Each socket is bound
     * to the next source address before it connects; TCP_NODELAY as amqp-client's default, which this replaces
     * (a host-name check that {@code tls_verify} added stays, after it).
     */
    private ConnectionFactory blocking(ConnectionFactory f) {
        com.rabbitmq.client.SocketConfigurator tls = f.getSocketConfigurator();
        com.rabbitmq.client.SocketConfigurator bind = socket -> {
            socket.setTcpNoDelay(true);
            InetAddress source = context.nextSourceAddress();
            if (source != null) {
                try {
                    socket.bind(new InetSocketAddress(source, 0));
                } catch (IOException e) {
                    throw new BindException("cannot bind the client socket to source address "
                            + source.getHostAddress() + ": " + e.getMessage());
                }
            }
        };
        f.setSocketConfigurator(tls == null ? bind : bind.andThen(tls));
        f.useBlockingIo();
        f.setHeartbeatExecutor(heartbeats);
        f.setShutdownExecutor(closing);
        f.setThreadFactory(named("msgscope-amqp-reader-"));
        return f;
    }

    @SuppressWarnings("deprecation") // amqp-client deprecates NIO for its Netty mode; see docs/drivers/amqp.md
    private ConnectionFactory nio(ConnectionFactory f) {
        // the factory's own NioParams: amqps with tls_verify has put its host-name check there already
        NioParams p = f.getNioParams();
        p.setNbIoThreads(context.ioThreads());
        p.setNioExecutor(io);
        p.setConnectionShutdownExecutor(closing);
        p.setThreadFactory(named("msgscope-amqp-nio-"));
        p.setSocketChannelConfigurator(channel -> {
            channel.socket().setTcpNoDelay(true);
            InetAddress source = context.nextSourceAddress();
            if (source != null) {
                try {
                    channel.bind(new InetSocketAddress(source, 0));
                } catch (IOException e) {
                    throw new BindException("cannot bind the client socket to source address "
                            + source.getHostAddress() + ": " + e.getMessage());
                }
            }
        });
        p.setWriteQueueCapacity(WRITE_QUEUE_FRAMES);
        final int timeoutMs = p.getWriteEnqueuingTimeoutInMs();
        p.setWriteQueueFactory(nioContext -> {
            Catch c = caught.get();
            CountingWriteQueue q = new CountingWriteQueue(c == null ? WRITE_QUEUE_FRAMES : c.capacity, timeoutMs);
            if (c != null) {
                c.queue = q;
            }
            return q;
        });
        f.useNio();
        f.setHeartbeatExecutor(heartbeats);
        f.setShutdownExecutor(closing);
        f.setThreadFactory(named("msgscope-amqp-other-"));
        return f;
    }

    /** An open connection and its outgoing frame queue. */
    record Opened(Connection connection, CountingWriteQueue writeQueue) {
    }

    /**
     * Opens a connection on the shared loops with {@code consumers} running its consumer callbacks; failures are
     * one line naming the address (see {@link AmqpConnections#open}), with the count of this agent's connections
     * already open to that broker where the broker's socket limit is a likely cause.
     *
     * @param publisher true: the write queue holds {@link #WRITE_QUEUE_FRAMES} frames, and a full one holds the
     *                  publisher back (its {@code offer} refuses, its {@code send} waits). False (a subscriber): the
     *                  queue is unbounded, so that an ack never waits. A consumer callback waiting to queue its ack
     *                  deadlocked here: the I/O loop, busy reading a flood of deliveries, writes nothing until the
     *                  socket is drained, and blocks itself once 1,000 deliveries of a channel wait for a callback.
     */
    Opened open(ConnectionFactory f, ExecutorService consumers, String name, boolean publisher) throws IOException {
        return open(f, null, consumers, name, publisher);
    }

    /** {@link #open(ConnectionFactory, ExecutorService, String, boolean)} to {@code node} (null: {@code f}'s own). */
    Opened open(ConnectionFactory f, com.rabbitmq.client.Address node, ExecutorService consumers, String name,
                boolean publisher) throws IOException {
        String address = node == null ? AmqpConnections.address(f) : AmqpConnections.address(f, node);
        AtomicInteger n = openTo.computeIfAbsent(address, a -> new AtomicInteger());
        Catch slot = new Catch(publisher ? WRITE_QUEUE_FRAMES : Integer.MAX_VALUE);
        caught.set(slot);
        Connection c;
        try {
            c = AmqpConnections.open(f, node, consumers, name, n.get());
        } finally {
            caught.remove();
        }
        n.incrementAndGet();
        c.addShutdownListener(cause -> n.decrementAndGet());
        return new Opened(c, slot.queue);
    }

    /** Connections of this agent open to {@code address} now. */
    int openTo(String address) {
        AtomicInteger n = openTo.get(address);
        return n == null ? 0 : n.get();
    }

    /** The pools' threads, for tests: every thread this class made is named {@code msgscope-amqp-*}. */
    static List<Thread> threads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("msgscope-amqp-"))
                .toList();
    }

    /** Stops every pool; the connections are closed before (the roles close them, then the context). */
    @Override
    public void close() {
        dispatch.shutdownNow();
        heartbeats.shutdownNow();
        retries.shutdownNow();
        io.shutdownNow(); // the NIO loops stop on the interrupt
        closing.shutdown(); // lets a closing connection finish; idle threads end within 5 s
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger next = new AtomicInteger(1);
        return r -> {
            Thread t = new Thread(r, prefix + next.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * amqp-client's outgoing frame queue of one connection (its default is the same bounded queue): the NIO loop
     * drains it, {@link #offer} blocks up to amqp-client's enqueuing timeout while it is full. {@link #size} lets a
     * publisher refuse a message instead ({@code Publisher.offer}), since only the publisher's thread adds its
     * frames. In NIO mode amqp-client does not copy a message body: its frame refers to the publisher's array until
     * the loop has written it; {@link #added} and {@link #written} tell the publisher when that is (frames are
     * written in queue order), so it can reuse its body arrays without a copy per message.
     */
    @SuppressWarnings("deprecation")
    static final class CountingWriteQueue implements NioQueue {
        private final java.util.concurrent.BlockingQueue<WriteRequest> queue;
        private final int capacity;
        private final int timeoutMs;
        private final java.util.concurrent.atomic.AtomicLong added = new java.util.concurrent.atomic.AtomicLong();
        private volatile long written; // the NIO loop's thread only
        private volatile Thread waiter;
        private volatile long wakeAtWritten = Long.MAX_VALUE;
        private volatile int wakeAtSize = -1;

        /** @param capacity frames; {@link Integer#MAX_VALUE} = unbounded (a linked queue) */
        CountingWriteQueue(int capacity, int timeoutMs) {
            this.queue = capacity == Integer.MAX_VALUE ? new LinkedBlockingQueue<>() : new ArrayBlockingQueue<>(capacity);
            this.capacity = capacity;
            this.timeoutMs = timeoutMs;
        }

        /**
         * Counted before it is queued (and uncounted if it could not be): once a frame is in the queue, every frame
         * queued before it is counted, so {@link #added} read after a publish covers that publish's frames.
         */
        @Override
        public boolean offer(WriteRequest request) throws InterruptedException {
            added.incrementAndGet();
            boolean ok = false;
            try {
                ok = queue.offer(new Counted(request), timeoutMs, TimeUnit.MILLISECONDS);
            } finally {
                if (!ok) {
                    added.decrementAndGet();
                }
            }
            return ok;
        }

        @Override
        public int size() {
            return queue.size();
        }

        int capacity() {
            return capacity;
        }

        /** Frames queued so far (an upper bound: a frame being queued counts already). */
        long added() {
            return added.get();
        }

        /** Frames the NIO loop has written out of the queue (copied into its socket buffer) so far. */
        long written() {
            return written;
        }

        /**
         * Waits, woken by the I/O loop after each frame it writes, until the queue has room for a message, holding at
         * most {@code room} frames ({@code body} false), or until it has written {@code until} frames, freeing a body
         * array ({@code body} true); throws what {@code lost} returns once it returns one. Waiting here rather than in
         * amqp-client matters: amqp-client waits for room in the queue holding the channel's lock, which the I/O loop
         * needs to finish reading an RPC reply on that channel; the two stalled each other (seen with a full queue
         * right after channel.open-ok, until amqp-client's 10 s enqueuing timeout).
         */
        void await(boolean body, long until, int room,
                   java.util.function.Supplier<com.rabbitmq.client.ShutdownSignalException> lost) {
            final Thread me = Thread.currentThread();
            try {
                while (body ? written() < until : size() > room) {
                    com.rabbitmq.client.ShutdownSignalException s = lost.get();
                    if (s != null) {
                        throw s;
                    }
                    waiter(me, body ? until : Long.MAX_VALUE, body ? -1 : room);
                    if (body ? written() < until : size() > room) { // not reached meanwhile
                        java.util.concurrent.locks.LockSupport.parkNanos(this, 1_000_000);
                    }
                }
            } finally {
                waiter(null, Long.MAX_VALUE, -1);
            }
        }

        /**
         * The thread to wake once {@code written} frames are written or the queue holds at most {@code size} frames,
         * whichever comes first; null = none. One wake-up per wait, not one per frame (each is a system call).
         */
        void waiter(Thread t, long written, int size) {
            wakeAtWritten = written;
            wakeAtSize = size;
            waiter = t;
        }

        @Override
        public WriteRequest poll() {
            return queue.poll();
        }

        @Override
        public boolean isEmpty() {
            return queue.isEmpty();
        }

        /** A frame that counts itself written once the NIO loop has handled it. */
        private final class Counted implements WriteRequest {
            private final WriteRequest frame;

            Counted(WriteRequest frame) {
                this.frame = frame;
            }

            @Override
            public void handle(java.io.DataOutputStream out) throws IOException {
                frame.handle(out);
                final long w = written + 1;
                written = w; // single writer: this connection's NIO loop
                Thread t = waiter;
                if (t != null && (w >= wakeAtWritten || queue.size() <= wakeAtSize)) {
                    waiter = null;
                    java.util.concurrent.locks.LockSupport.unpark(t);
                }
            }
        }
    }
}

package io.msgscope.driver.amqp;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The executor amqp-client runs an {@link AmqpSubscriber}'s consumer callbacks on: the agent's shared dispatch
 * threads, or, once {@link #own} was called (the subscriber's first poll), a thread of the subscriber's own. It is
 * chosen before basic.consume, so every delivery runs on one of the two. Shutting it down stops only its own thread.
 */
final class AmqpDispatch extends AbstractExecutorService {
    private final ExecutorService shared;
    private volatile ThreadPoolExecutor own;

    AmqpDispatch(ExecutorService shared) {
        this.shared = shared;
    }

    /** From now on a thread of its own, created and started by the calling thread (it inherits its affinity). */
    void own(String name) {
        ThreadPoolExecutor e = AmqpConnections.singleThread(name);
        e.prestartCoreThread();
        own = e;
    }

    @Override
    public void execute(Runnable task) {
        ThreadPoolExecutor e = own;
        try {
            (e != null ? e : shared).execute(task);
        } catch (RejectedExecutionException closed) {
            // the subscriber or the agent's context is closing: nothing is delivered any more
        }
    }

    @Override
    public void shutdown() {
        ThreadPoolExecutor e = own;
        if (e != null) {
            e.shutdown();
        }
    }

    @Override
    public List<Runnable> shutdownNow() {
        ThreadPoolExecutor e = own;
        return e != null ? e.shutdownNow() : List.of();
    }

    @Override
    public boolean isShutdown() {
        ThreadPoolExecutor e = own;
        return e != null && e.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        ThreadPoolExecutor e = own;
        return e != null && e.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        ThreadPoolExecutor e = own;
        return e == null || e.awaitTermination(timeout, unit);
    }
}

package io.msgscope.control;

import io.msgscope.core.Affinity;
import io.msgscope.proto.Ready;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The one owning thread of a role (STYLE "The hot path"): created once per run, named after the
 * role, pinned to its core before any work (D3, M5), then runs the tasks it is handed in order.
 */
public final class RoleThread {
    private static final Runnable STOP = () -> { };

    private final Thread thread;
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final CompletableFuture<Affinity.Result> affinity = new CompletableFuture<>();

    public RoleThread(String name, int cpu) {
        thread = new Thread(() -> {
            affinity.complete(Affinity.pinCurrentThread(cpu));
            try {
                for (Runnable task = tasks.take(); task != STOP; task = tasks.take()) {
                    task.run();
                }
            } catch (InterruptedException e) {
                // closing
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The affinity the thread obtained, as the Ready frame reports it. */
    public io.msgscope.proto.Affinity affinity() throws Exception {
        Affinity.Result r = affinity.get(10, TimeUnit.SECONDS);
        return io.msgscope.proto.Affinity.newBuilder().setRequestedCpu(r.requestedCpu()).setObtained(r.obtained())
                .setPinned(r.pinned()).setNote(r.note()).build();
    }

    public Ready.Builder ready() throws Exception {
        return Ready.newBuilder().setAffinity(affinity());
    }

    public void submit(Runnable task) {
        tasks.add(task);
    }

    public void close() {
        tasks.add(STOP);
        thread.interrupt();
    }

    /**
     * Bytes the thread has allocated on the heap so far (HotSpot's per-thread counter), or -1 when the
     * JVM cannot tell. Differences across a phase show whether the hot path allocates per message.
     */
    public long allocatedBytes() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        if (mx instanceof com.sun.management.ThreadMXBean hs && hs.isThreadAllocatedMemorySupported()) {
            return hs.getThreadAllocatedBytes(thread.getId());
        }
        return -1;
    }

    /** CPU time the thread has used so far in ns (any thread may ask), or -1 when the JVM cannot tell. */
    public long cpuNs() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        return mx.isThreadCpuTimeSupported() ? mx.getThreadCpuTime(thread.getId()) : -1;
    }
}

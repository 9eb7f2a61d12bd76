package io.msgscope.control;

import com.google.protobuf.ByteString;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.scenario.ConnectionLimits;
import io.msgscope.core.scenario.ConnectionRamp;
import io.msgscope.core.scenario.SourceAddresses;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioReport;
import org.HdrHistogram.Histogram;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * The connections of one scenario agent (issue 13), publishers or subscribers alike: the agent's
 * {@link ClientContext} ({@code io_threads} I/O threads shared by every connection, the source
 * addresses), the limits checked before anything connects (file descriptors, local ports, source
 * addresses this box has and the driver can bind), and the {@link ConnectionRamp} that opens them at
 * the plan's connect rate. {@link #report} puts the ramp's state into every scenario report, so the
 * coordinator can show connected/target while it ramps and keep the connect times whatever happens.
 */
public final class ScenarioConnections<T extends AutoCloseable> {
    private final ClientContext context;
    private final ConnectionRamp<T> ramp;
    private final String role;

    /**
     * Checks the plan's connection settings for {@code count} connections and makes the context; nothing
     * connects before {@link #start}.
     *
     * @param option the option that sets the count, for errors: {@code --publishers} or {@code --subscribers}
     */
    public ScenarioConnections(Driver driver, Map<String, String> options, ScenarioPlan plan, int count, String option,
                               Opener<T> opener) {
        List<InetAddress> sources = SourceAddresses.parse(String.join(",", plan.getSourceAddressesList()));
        if (!sources.isEmpty() && !driver.bindsSourceAddresses(options)) {
            throw new SpecException("--source-addresses", "the " + driver.name() + " driver cannot bind its client "
                    + "sockets to source addresses with these options (see its --opt engine)");
        }
        ConnectionLimits.checkBindable(sources);
        ConnectionLimits.check(count, sources, option);
        int io = plan.getIoThreads() > 0 ? plan.getIoThreads() : Runtime.getRuntime().availableProcessors();
        this.context = new ClientContext(io, sources);
        this.role = option.substring(2);
        this.ramp = new ConnectionRamp<>(count, plan.getConnectRate(), context.connects(), i -> opener.open(i, context));
    }

    /** Opens connection {@code index} on the context. */
    @FunctionalInterface
    public interface Opener<T> {
        T open(int index, ClientContext context) throws Exception;
    }

    public void start() {
        ramp.start();
    }

    public ClientContext context() {
        return context;
    }

    public ConnectionRamp<T> ramp() {
        return ramp;
    }

    /**
     * Connection counters: {@code connections_target}, {@code connections_opened},
     * {@code connect_failed_<kind>}, {@code connections_not_attempted} (once the ramp is done), and the
     * agent's own {@code <role>_agent_threads}, {@code <role>_agent_rss_kib}, {@code <role>_agent_heap_used_kib}
     * and {@code <role>_agent_cpu_ns}
     * (the process's CPU time so far) at the time of the report.
     */
    public void putCounters(Map<String, Long> m) {
        m.putAll(context.connects().counters());
        // a connection that could not be made is an error of its kind too (errors_refused, errors_connect_failed)
        context.connects().failedByKind().forEach((k, n) -> m.merge(k.field(), n, Long::sum));
        m.put("connections_target", (long) ramp.target());
        if (ramp.done()) {
            m.put("connections_not_attempted", (long) ramp.notAttempted());
        }
        // what the agent costs with its connections open (issue 13: threads must not grow with connections)
        m.put(role + "_agent_threads", (long) java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount());
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            m.put(role + "_agent_cpu_ns", os.getProcessCpuTime()); // the whole process, 10 ms ticks
        }
        // the agents' heap is preallocated (-Xms = -Xmx, pre-touched), so RSS shows native memory only: the heap in use too
        m.put(role + "_agent_heap_used_kib",
                java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024);
        long rss = residentKib();
        if (rss >= 0) {
            m.put(role + "_agent_rss_kib", rss);
        }
    }

    /** VmRSS of this process in KiB (/proc/self/status), -1 where unknown. */
    static long residentKib() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: unknown
        }
        return -1;
    }

    /** The ramp's state: done or not, the connect-time histogram, the failures by kind. */
    public void report(ScenarioReport.Builder r) {
        r.setSetupDone(ramp.done()).setConnectHistogram(encode(context.connects().times()));
        String f = context.connects().failureSummary();
        if (!f.isEmpty()) {
            r.setConnectFailures(f);
        }
    }

    /** Closes every connection the ramp opened, then the context's shared threads. */
    public void close() {
        ramp.closeAll();
        context.close();
    }

    /** A histogram as it crosses the control channel (HdrHistogram's compressed form). */
    public static ByteString encode(Histogram h) {
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(b);
        return ByteString.copyFrom(b.array(), 0, n);
    }

    /** After the set-up and the measurement: room for the connection ramp and the in-flight wait, each this long. */
    static final long BUCKET_SLACK_MS = 600_000;

    /**
     * The buckets a plan with faults counts its measured messages in (issue 32): {@code bucket_ms} wide, from now (the
     * set-up) over the ramp, the warm-up, the measurement and the in-flight wait (each wait {@link #BUCKET_SLACK_MS} at
     * most; a message past that is counted outside).
     */
    public static io.msgscope.core.scenario.BucketCounts.Span buckets(ScenarioPlan p, io.msgscope.core.Clock clock) {
        return io.msgscope.core.scenario.BucketCounts.Span.from(System.nanoTime() + clock.epochMinusMono(),
                p.getBucketMs(), p.getWarmupMs() + p.getDurationMs() + 2 * BUCKET_SLACK_MS);
    }
}

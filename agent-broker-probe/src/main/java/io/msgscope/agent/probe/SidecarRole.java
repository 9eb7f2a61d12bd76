package io.msgscope.agent.probe;

import io.msgscope.control.AgentRole;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.SpecException;
import io.msgscope.core.proc.CgroupCpuReader;
import io.msgscope.core.proc.CpuTimeSource;
import io.msgscope.core.proc.HostCpuReader;
import io.msgscope.core.proc.NoSuchProcessException;
import io.msgscope.core.proc.ProcCpu;
import io.msgscope.core.proc.ProcessCpuReader;
import io.msgscope.core.proc.ProcessFinder;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The broker-probe agent in sidecar mode ({@link Role#PROBE}): it runs on the host of a third-party
 * broker it cannot put a probe slot into, and samples the broker's CPU time (a process's
 * /proc/PID/stat or a cgroup's cpu.stat) and the host's busy and total CPU time (/proc/stat) at a
 * fixed period, from {@code prepare} until {@code upload}. The samples are the SIDECAR_* series;
 * the analysis lines them up with the sender's and receiver's samples by time (M3 over windows,
 * not per message, since the broker's CPU cannot travel in the message here).
 *
 * <p>The sampler wakes at {@code start + k × period} (no drift); ticks it misses because it was
 * not scheduled are skipped, not made up in a burst.
 */
public final class SidecarRole implements AgentRole {
    /** The sampling period when the spec gives none. */
    public static final int DEFAULT_PERIOD_US = 10_000;
    public static final int MIN_PERIOD_US = 1_000;
    public static final int MAX_PERIOD_US = 1_000_000;
    /** The arrays start with room for this long a run at the period, and double when full. */
    private static final long INITIAL_SPAN_US = 10L * 60 * 1_000_000;
    private static final long STOP_WAIT_MS = 5_000;

    private final Path procRoot;
    private final Path cgroupRoot;
    private final io.msgscope.core.fault.FaultTargets faultTargets;
    private FaultInjector faults;

    private RoleThread thread;
    private CpuTimeSource broker;
    private HostCpuReader host;
    private String note = "";
    private long periodNs;

    // written by the sampler thread only; read by others after `finished`
    private long[] sampleNs;
    private long[] brokerNs;
    private long[] hostBusyNs;
    private long[] hostTotalNs;

    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile Thread sampler;
    private volatile boolean stopped;
    private volatile boolean closed;
    private volatile int count;
    private volatile long samplingNs;
    private volatile long allocatedAtStart = -1;
    private volatile String failure;

    /** Reads /proc and /sys/fs/cgroup. */
    public SidecarRole() {
        this(io.msgscope.core.fault.FaultTargets.NONE);
    }

    /** Reads /proc and /sys/fs/cgroup, and may apply faults to {@code faultTargets} only (issue 32). */
    public SidecarRole(io.msgscope.core.fault.FaultTargets faultTargets) {
        this(Path.of("/proc"), Path.of("/sys/fs/cgroup"), faultTargets);
    }

    /** Reads the given roots (tests point them at fixtures). */
    public SidecarRole(Path procRoot, Path cgroupRoot) {
        this(procRoot, cgroupRoot, io.msgscope.core.fault.FaultTargets.NONE);
    }

    private SidecarRole(Path procRoot, Path cgroupRoot, io.msgscope.core.fault.FaultTargets faultTargets) {
        this.procRoot = procRoot;
        this.cgroupRoot = cgroupRoot;
        this.faultTargets = faultTargets;
    }

    @Override
    public Role role() {
        return Role.PROBE;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        int periodUs = spec.getSamplePeriodUs() == 0 ? DEFAULT_PERIOD_US : spec.getSamplePeriodUs();
        if (periodUs < MIN_PERIOD_US || periodUs > MAX_PERIOD_US) {
            throw new SpecException("--probe-period", "the sidecar's sampling period must be " + MIN_PERIOD_US + ".."
                    + MAX_PERIOD_US + " µs, got " + periodUs + " µs");
        }
        periodNs = periodUs * 1_000L;
        faults = FaultInjector.of(faultTargets, spec); // refuses a target or action it was not given, before anything
        String period = "sampled every " + duration(periodUs);
        try {
            String brokerNote = openBroker(spec);
            host = HostCpuReader.host(procRoot);
            long[] probe = new long[2];
            if (!host.read(probe)) {
                throw new IOException("no aggregate 'cpu ' line at the start of " + host.source());
            }
            note = brokerNote + ", " + period + "; host CPU from " + host.source();
        } catch (Exception e) {
            closeQuietly(broker);
            closeQuietly(host);
            throw e;
        }
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(16, INITIAL_SPAN_US / periodUs));
        sampleNs = new long[capacity];
        brokerNs = new long[capacity];
        hostBusyNs = new long[capacity];
        hostTotalNs = new long[capacity];
        thread = new RoleThread("msgscope-probe", spec.getPinCpu());
        thread.submit(this::sampleLoop);
        return thread.ready().setRole(Role.PROBE).build();
    }

    /** Opens the broker's CPU source from the first of cgroup, pid, process name given; returns its note. */
    private String openBroker(RunSpec spec) throws IOException {
        if (!spec.getBrokerCgroup().isEmpty()) {
            Path dir = cgroupDir(spec.getBrokerCgroup());
            broker = CgroupCpuReader.forCgroup(dir);
            return "broker cgroup " + dir + " CPU from " + broker.source() + " usage_usec (µs)";
        }
        if (spec.getBrokerPid() > 0) {
            try {
                return processNote(ProcessCpuReader.forPid(procRoot, spec.getBrokerPid()), "");
            } catch (NoSuchProcessException e) {
                throw new SpecException("--broker-pid", e.getMessage() + "; is the broker running on this host?");
            }
        }
        if (!spec.getBrokerProcess().isEmpty()) {
            return openByName(spec.getBrokerProcess());
        }
        if (spec.getBrokerPid() < 0) {
            throw new SpecException("--broker-pid", "pids are positive, got " + spec.getBrokerPid());
        }
        throw new SpecException("--broker-pid", "sidecar mode needs --broker-pid, --broker-process or --broker-cgroup");
    }

    /** A cgroup path as given, else under the cgroup root ("/system.slice/x.service" as /proc/PID/cgroup shows it). */
    private Path cgroupDir(String given) {
        Path p = Path.of(given);
        if (p.isAbsolute() && Files.isRegularFile(p.resolve("cpu.stat"))) {
            return p;
        }
        String relative = given.replaceFirst("^/+", "");
        Path under = cgroupRoot.resolve(relative);
        if (Files.isRegularFile(under.resolve("cpu.stat"))) {
            return under;
        }
        throw new SpecException("--broker-cgroup", "no cgroup v2 directory with a cpu.stat at "
                + (p.isAbsolute() ? p + " or " : "") + under + "; give a cgroup directory, absolute or relative to "
                + cgroupRoot + " (e.g. system.slice/rabbitmq-server.service)");
    }

    private String openByName(String name) throws IOException {
        ProcessFinder.Result found = ProcessFinder.byName(procRoot, name);
        if (found.pids().isEmpty()) {
            throw new SpecException("--broker-process", found.noMatchMessage() + "; is the broker running on this host?");
        }
        ProcessCpuReader best = null;
        long bestNs = -1;
        int alive = 0;
        for (long pid : found.pids()) {
            ProcessCpuReader r;
            long ns;
            try {
                r = ProcessCpuReader.forPid(procRoot, pid);
                ns = r.cpuNs();
            } catch (IOException e) {
                continue; // exited since the scan
            }
            alive++;
            if (ns > bestNs) {
                closeQuietly(best);
                best = r;
                bestNs = ns;
            } else {
                r.close();
            }
        }
        if (best == null) {
            throw new SpecException("--broker-process", "the processes named '" + name + "' " + found.pids()
                    + " exited while being opened; is the broker running on this host?");
        }
        String choice = alive > 1 || found.pids().size() > 1
                ? found.pids().size() + " processes named '" + name + "' " + found.pids() + ", chose pid " + best.pid()
                        + " with the most CPU time so far (" + bestNs / 1_000_000 + " ms); "
                : "";
        return processNote(best, choice);
    }

    private String processNote(ProcessCpuReader r, String prefix) throws IOException {
        broker = r;
        return prefix + "broker process " + r.pid() + " (" + r.comm() + ") CPU from " + r.source() + ", "
                + ProcCpu.NS_PER_TICK / 1_000_000 + " ms ticks";
    }

    private static String duration(long us) {
        return us % 1_000 == 0 ? us / 1_000 + " ms" : us + " µs";
    }

    private void sampleLoop() {
        sampler = Thread.currentThread();
        try {
            final CpuTimeSource b = broker;
            final HostCpuReader h = host;
            final long period = periodNs;
            final long[] hostNow = new long[2];
            allocatedAtStart = thread.allocatedBytes();
            final long start = System.nanoTime();
            long tick = 0;
            long spent = 0;
            int n = 0;
            while (!stopped) {
                final long t0 = System.nanoTime();
                final long cpu = b.cpuNs();
                if (!h.read(hostNow)) {
                    throw new IOException("no aggregate 'cpu ' line in " + h.source());
                }
                final long t1 = System.nanoTime();
                if (n == sampleNs.length) {
                    grow();
                }
                sampleNs[n] = t0;
                brokerNs[n] = cpu;
                hostBusyNs[n] = hostNow[0];
                hostTotalNs[n] = hostNow[1];
                count = ++n;
                spent += t1 - t0;
                samplingNs = spent;
                long now = System.nanoTime();
                tick = Math.max(tick + 1, (now - start) / period + 1);
                final long next = start + tick * period;
                while (!stopped && (now = System.nanoTime()) < next) {
                    LockSupport.parkNanos(this, next - now);
                }
            }
        } catch (NoSuchProcessException e) {
            if (!stopped && !killedByAFault()) {
                failure = "the broker " + e.getMessage() + " after " + count + " samples";
            }
        } catch (IOException | RuntimeException e) {
            if (!stopped) {
                failure = "sidecar sampling failed after " + count + " samples: " + e;
            }
        } finally {
            finished.countDown();
        }
    }

    /**
     * Whether a kill this agent applied ended the broker it samples (issue 32 item 3: clients that reconnect survive
     * it): its CPU is then known up to the kill, and the run goes on. The signal goes out just before the kill is
     * noted, so a sampler that saw the process go first waits a little for the note.
     */
    private boolean killedByAFault() {
        if (faults == null) {
            return false;
        }
        long deadline = System.nanoTime() + 1_000_000_000L;
        do {
            for (io.msgscope.proto.FaultApplied a : faults.applied()) {
                if (a.getError().isEmpty() && io.msgscope.core.fault.FaultAction.of(a.getStep().getAction())
                        == io.msgscope.core.fault.FaultAction.KILL) {
                    return true;
                }
            }
            LockSupport.parkNanos(10_000_000L);
        } while (System.nanoTime() < deadline);
        return false;
    }

    private void grow() {
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, 2L * sampleNs.length);
        if (capacity == sampleNs.length) {
            throw new IllegalStateException("sample arrays full at " + capacity + " samples");
        }
        sampleNs = Arrays.copyOf(sampleNs, capacity);
        brokerNs = Arrays.copyOf(brokerNs, capacity);
        hostBusyNs = Arrays.copyOf(hostBusyNs, capacity);
        hostTotalNs = Arrays.copyOf(hostTotalNs, capacity);
    }

    @Override
    public void startFaults(long originNs) {
        if (faults != null) {
            faults.start(originNs);
        }
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        String f = failure;
        if (f != null) {
            listener.failed(f);
            return;
        }
        long a0 = allocatedAtStart;
        if (faults != null && phase == Phase.MEASURE) {
            faults.stop(); // the measurement ended: a fault not yet due is not applied (the run was cut short)
        }
        listener.done(PhaseDone.newBuilder().setPhase(phase)
                .addAllFaults(faults == null || phase != Phase.MEASURE ? java.util.List.of() : faults.applied()).setSamples(count).setSamplingNs(samplingNs)
                .setNote(note).setHotThreadAllocatedBytes(a0 < 0 || thread == null ? -1 : thread.allocatedBytes() - a0)
                .build());
    }

    /** Stops sampling and waits for the sampler to finish its last sample. */
    private void stopSampling() throws InterruptedException {
        stopped = true;
        Thread t = sampler;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (thread != null && !finished.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the sidecar sampler did not stop within " + STOP_WAIT_MS + " ms");
        }
    }

    @Override
    public void upload(TraceSink sink) throws Exception {
        stopSampling();
        if (failure != null) {
            throw new IOException(failure);
        }
        int n = count;
        sink.series(Series.SIDECAR_SAMPLE_NS, sampleNs, n);
        sink.series(Series.SIDECAR_BROKER_CPU_NS, brokerNs, n);
        sink.series(Series.SIDECAR_HOST_BUSY_NS, hostBusyNs, n);
        sink.series(Series.SIDECAR_HOST_TOTAL_NS, hostTotalNs, n);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (faults != null) {
            faults.stop();
        }
        try {
            stopSampling();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException e) {
            // closing anyway
        }
        if (thread != null) {
            thread.close();
        }
        closeQuietly(broker);
        closeQuietly(host);
    }

    private static void closeQuietly(Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
    }
}

package io.msgscope.coordinator.scenario;

import io.msgscope.core.SpecException;
import io.msgscope.core.proc.ProcessCpuReader;
import io.msgscope.core.proc.ProcessFinder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Q7: the broker process's CPU and resident memory, sampled once a second from /proc for the whole run
 * (warm-up included) when the broker runs on this host: CPU from {@code /proc/PID/stat} (utime + stime),
 * RSS from the VmRSS line of {@code /proc/PID/status}.
 */
public final class BrokerStats implements AutoCloseable {
    private final long pid;
    private final String name;
    private final ProcessCpuReader cpu;
    private final Thread thread;
    private volatile boolean stop;
    private long samples;
    private double cpuPctSum;
    private double cpuPctMax;
    private long rssMaxKib;
    private long rssLastKib;
    private String error;

    private BrokerStats(String name, long pid) throws IOException {
        this.name = name;
        this.pid = pid;
        this.cpu = ProcessCpuReader.forPid(Path.of("/proc"), pid);
        this.thread = new Thread(this::loop, "broker-stats");
        thread.setDaemon(true);
    }

    /** Finds the one process of that name and starts sampling it. */
    public static BrokerStats start(String processName) throws IOException {
        ProcessFinder.Result r = ProcessFinder.byName(Path.of("/proc"), processName);
        if (r.pids().isEmpty()) {
            throw new SpecException("--broker-process", r.noMatchMessage());
        }
        if (r.pids().size() > 1) {
            throw new SpecException("--broker-process", "several processes named '" + processName + "': " + r.pids());
        }
        BrokerStats s = new BrokerStats(processName, r.pids().get(0));
        s.thread.start();
        return s;
    }

    private void loop() {
        try {
            long lastCpu = cpu.cpuNs();
            long lastT = System.nanoTime();
            while (!stop) {
                Thread.sleep(1000);
                long c = cpu.cpuNs();
                long t = System.nanoTime();
                double pct = 100.0 * (c - lastCpu) / (t - lastT);
                long rss = rssKib();
                synchronized (this) {
                    samples++;
                    cpuPctSum += pct;
                    cpuPctMax = Math.max(cpuPctMax, pct);
                    rssMaxKib = Math.max(rssMaxKib, rss);
                    rssLastKib = rss;
                }
                lastCpu = c;
                lastT = t;
            }
        } catch (InterruptedException e) {
            // stopping
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                error = "broker process " + pid + ": " + e.getMessage();
            }
        }
    }

    private long rssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
            }
        }
        return 0;
    }

    /**
     * The broker's figures over the run (Q7), in the scenario's results after everything else, and the notes that go
     * with them: CPU in percent of one core, RSS in KiB, null when no sample was taken.
     */
    public record Figures(String process, long pid, Double cpuMeanPct, Double cpuMaxPct, Long rssMaxKib,
                          Long rssLastKib, java.util.List<String> notes) {
        public Figures {
            notes = java.util.List.copyOf(notes);
        }

        void putInto(Map<String, Object> fields) {
            fields.put("broker_process", process);
            fields.put("broker_pid", pid);
            fields.put("broker_cpu_mean_pct", cpuMeanPct);
            fields.put("broker_cpu_max_pct", cpuMaxPct);
            fields.put("broker_rss_max_kib", rssMaxKib);
            fields.put("broker_rss_last_kib", rssLastKib);
        }
    }

    /** What was sampled so far (after {@link #close()}: over the whole run). */
    public synchronized Figures figures() {
        java.util.List<String> notes = new java.util.ArrayList<>();
        notes.add("broker CPU (percent of one core) and RSS sampled once a second from /proc for the whole run, "
                + "warm-up included (" + samples + " samples)" + (error == null ? "" : "; sampling stopped: " + error));
        String above = aboveOneCore(samples == 0 ? Double.NaN : cpuPctMax);
        if (above != null) {
            notes.add(above);
        }
        return new Figures(name, pid, samples == 0 ? null : cpuPctSum / samples, samples == 0 ? null : cpuPctMax,
                samples == 0 ? null : rssMaxKib, samples == 0 ? null : rssLastKib, notes);
    }

    /**
     * Why a broker with one busy thread can read above 100 % of a core (issue 18), or null when it did not: the
     * figure is the process's user + system time, and the kernel charges to the running process the network work
     * it does in its context (softirqs of the sockets' traffic), besides the broker's other threads.
     */
    static String aboveOneCore(double maxPct) {
        if (!(maxPct > 100)) {
            return null;
        }
        return String.format(java.util.Locale.ROOT, "broker_cpu_max_pct %.1f is above one core: process CPU is user + "
                + "system time of all its threads, and the kernel's network processing done while the broker runs "
                + "(softirqs for its sockets) is charged to it as system time, so even a broker with one event-loop "
                + "thread (Mosquitto) can read above 100 %%", maxPct);
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
        try {
            thread.join(2000);
            cpu.close();
        } catch (InterruptedException | IOException e) {
            // closing anyway
        }
    }
}

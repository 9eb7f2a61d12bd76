package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.core.test.Ci;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 27 item 1: a push driver delivers on its client library's thread (AMQP 0-9-1: the consumer thread
 * {@code msgscope-amqp-consumer}) while msgscope's receiver thread takes the final CPU sample; the receiver's
 * time-weighted CPU must still be the delivering thread's, as /proc shows it. The test reads that thread's
 * {@code /proc/<pid>/task/<tid>/schedstat} (time on CPU, ns) every 50 ms while the run lasts, and compares its
 * rate over the steady middle of the deliveries (the first and last second trimmed) with
 * {@code cpu.receiver.time_weighted.mean_pct}: at a fixed rate the two agree within 1 point of a core.
 */
class PushReceiverCpuIT {
    private static final Path PROC = Path.of("/proc");
    /** The consumer thread's name as /proc/…/comm shows it (15 characters at most). */
    private static final String CONSUMER_COMM = "msgscope-amqp-c";

    @TempDir
    Path tmp;

    @Test
    void amqpReceiverTimeWeightedCpuAgreesWithProc() throws Exception {
        requireRabbitMq();
        Path out = tmp.resolve("amqp");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("amqp-cli"), "run", "--driver", "amqp",
                "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f", "--count", "40000", "--rate", "5000",
                "--warmup", "1000", "--cpu-every", "500", "--out", out.toString());
        List<long[]> samples = watchConsumerThread(p);
        JsonNode s = p.awaitOkSummary(out, 180);
        JsonNode tw = s.at("/cpu/receiver/time_weighted");
        assertTrue(tw.get("mean_pct").isNumber(), "time-weighted receiver CPU: " + tw);
        double msgscope = tw.get("mean_pct").asDouble();
        double proc = steadyRatePct(samples);
        System.out.printf("AMQP receiver: time-weighted %.2f %% of a core, /proc (consumer thread) %.2f %%%n",
                msgscope, proc);
        assertTrue(Math.abs(msgscope - proc) <= 1.0, "receiver time-weighted CPU " + msgscope
                + " % of a core against /proc's " + proc + " % for the delivering thread");
        assertTrue(tw.get("cpu_ns_per_message").asDouble() > 0, tw.toString());
    }

    static void requireRabbitMq() {
        boolean present = ProcessHandle.allProcesses().anyMatch(h -> h.info().command()
                .map(c -> c.endsWith("beam.smp")).orElse(false));
        Ci.require(present, "RabbitMQ (beam.smp) must run (rabbitmq-server -detached)", "RabbitMQ tests skipped");
    }

    /** {System.nanoTime(), the consumer thread's ns on CPU} every 50 ms until msgscope exits. */
    private static List<long[]> watchConsumerThread(MsgscopeProcess p) throws InterruptedException {
        List<long[]> samples = new ArrayList<>();
        Path thread = null;
        while (p.process.isAlive()) {
            if (thread == null) {
                thread = findConsumerThread(p.process);
            }
            if (thread != null) {
                try {
                    String stat = Files.readString(thread.resolve("schedstat"), StandardCharsets.US_ASCII);
                    samples.add(new long[] {System.nanoTime(), Long.parseLong(stat.trim().split("\\s+")[0])});
                } catch (IOException ended) {
                    thread = null; // the agent exited
                }
            }
            Thread.sleep(50);
        }
        return samples;
    }

    private static Path findConsumerThread(Process msgscope) {
        for (ProcessHandle agent : msgscope.descendants().toList()) {
            Path tasks = PROC.resolve(Long.toString(agent.pid())).resolve("task");
            try {
                String cmdline = Files.readString(PROC.resolve(Long.toString(agent.pid())).resolve("cmdline"),
                        StandardCharsets.ISO_8859_1);
                if (!cmdline.contains("--role\0receiver\0")) {
                    continue;
                }
                try (Stream<Path> threads = Files.list(tasks)) {
                    for (Path t : threads.toList()) {
                        String comm = Files.readString(t.resolve("comm"), StandardCharsets.ISO_8859_1).trim();
                        if (comm.equals(CONSUMER_COMM)) {
                            return t;
                        }
                    }
                }
            } catch (IOException gone) {
                // not started yet or already ended
            }
        }
        return null;
    }

    /**
     * The thread's CPU rate (% of a core) from one second after its first busy sample to one second before its
     * last: the middle of the deliveries, at a fixed rate the same as over the whole measurement.
     */
    static double steadyRatePct(List<long[]> samples) {
        int first = -1;
        int last = -1;
        for (int i = 1; i < samples.size(); i++) {
            if (samples.get(i)[1] > samples.get(i - 1)[1]) {
                if (first < 0) {
                    first = i - 1;
                }
                last = i;
            }
        }
        assertTrue(first >= 0, "the consumer thread never ran: " + samples.size() + " samples");
        long from = samples.get(first)[0] + 1_000_000_000L;
        long to = samples.get(last)[0] - 1_000_000_000L;
        long[] a = null;
        long[] b = null;
        for (long[] x : samples) {
            if (a == null && x[0] >= from) {
                a = x;
            }
            if (x[0] <= to) {
                b = x;
            }
        }
        assertTrue(a != null && b != null && b[0] - a[0] > 3_000_000_000L, "too short a steady span");
        return 100.0 * (b[1] - a[1]) / (b[0] - a[0]);
    }
}

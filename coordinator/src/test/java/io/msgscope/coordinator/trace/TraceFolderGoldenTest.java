package io.msgscope.coordinator.trace;

import io.msgscope.coordinator.Golden;
import io.msgscope.coordinator.agents.AgentInfo;
import io.msgscope.coordinator.agents.ClockOffset;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.core.RunSpec;
import io.msgscope.core.Version;
import io.msgscope.proto.Affinity;
import io.msgscope.proto.Environment;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.Series;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Every file of a trace results folder on fixed inputs, byte for byte (issue 30): trace mode's whole write path —
 * the verdict, trace.dat and its read-back check, the histograms, the HdrHistogram logs, the gnuplot scripts, the
 * CPU and network figures, the distribution and peaks, the series histograms and summary.json as committed — against
 * the golden files under {@code golden/trace-folder*}. Two runs: one through the relay that lost a message (its
 * stamps as the broker's CPU), and one with a sidecar probe that went well (plotted through trace-envelope.dat).
 * Only what changes from machine to machine is masked: the tool's version and the coordinator's environment.
 * Regenerate after an intended change with {@code -Dmsgscope.golden.update=true} and read the diff.
 */
class TraceFolderGoldenTest {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;
    private static final int COUNT = 2_000;
    private static final int EVERY = 100;
    /** The first send, ns on the agents' monotonic clock. */
    private static final long T0 = 5 * MS;

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"trace-folder, RELAY, ROOT", "trace-folder, RELAY, de-DE", "trace-folder-sidecar, SIDECAR, ROOT",
            "trace-folder-sidecar, SIDECAR, tr-TR"})
    void everyFileOfTheFolderMatchesItsGoldenFile(String golden, BrokerCpu.Mode mode, String locale) throws Exception {
        Golden.inLocale(locale, () -> {
            boolean sidecar = mode == BrokerCpu.Mode.SIDECAR;
            TraceResult run = run(sidecar);
            BrokerCpu brokerCpu = sidecar ? new BrokerCpu(BrokerCpu.Mode.SIDECAR, 0, "", "", 2_000)
                    : BrokerCpu.relay();
            // the relay folder has the default log-spaced latency bins, the sidecar one --histogram-scale linear
            TraceResults.Options opt = sidecar ? new TraceResults.Options(100 * US, 0, 50, 20, 2, false, false)
                    : new TraceResults.Options(0, 1_000_000, 100, 25, 1, false, true);
            ResultsFolder folder = ResultsFolder.reserve(dir, Map.of("run_id", run.runId(), "mode", "trace"));
            TraceResults.write(dir, folder, run, brokerCpu, opt, "2026-01-02T03:04:05Z", 1_767_323_045_000L,
                    new PrintStream(java.io.OutputStream.nullOutputStream()));
            Golden.assertGoldenFolder(golden, dir, TraceFolderGoldenTest::masked);
        });
    }

    /**
     * A run of 2,000 messages 10 µs apart: latency 20-26 µs, every 10th message 60-72 µs (a second mode), two
     * peaks (message 500: 2 ms, message 1500: 900 µs); through the relay message 1234 is lost. CPU, network and
     * the probe sampled every 100th message (the probe every 2 ms on a clock 3 ms ahead).
     */
    static TraceResult run(boolean sidecar) {
        RunSpec spec = RunSpec.builder().count(COUNT).window(10).warmupCount(100).size(128).pin(false)
                .cpuEvery(EVERY).build();
        TraceCollector out = new TraceCollector(spec, sidecar ? "run-golden-sidecar" : "run-golden-relay");
        for (int i = 0; i < COUNT; i++) {
            out.sendNs[i] = T0 + i * 10 * US;
            long latency = i % 10 == 0 ? 60 * US + (i % 13) * US : 20 * US + (i % 7) * US;
            if (i == 500) {
                latency = 2 * MS;
            } else if (i == 1500) {
                latency = 900 * US;
            }
            if (sidecar || i != 1234) {
                out.recvNs[i] = out.sendNs[i] + latency;
            }
        }
        out.sent = COUNT;
        out.received = sidecar ? COUNT : COUNT - 1;
        out.sentReported = true;
        out.receivedReported = true;
        out.sendUploaded = true;
        out.recvUploaded = true;
        out.reordered = 3;
        out.warmupReceived = 100;
        out.warmupDone = true;
        out.relayForwarded = sidecar ? -1 : COUNT - 1;
        out.measureEpochMs = 1_767_323_046_000L;
        out.phase = "upload";
        out.warnings.add("pinning disabled");
        out.driverCounters.put("errors", 0L);
        out.hotThreadAllocatedBytes.put("sender", 0L);
        out.hotThreadAllocatedBytes.put("receiver", 4_096L);
        if (!sidecar) {
            out.hotThreadAllocatedBytes.put("relay", -1L);
        }
        out.agents.put("sender", agent("sender", 3));
        out.agents.put("receiver", agent("receiver", -1));
        int samples = COUNT / EVERY + 1;
        long[] sendAt = new long[samples];
        long[] recvAt = new long[samples];
        for (int k = 0; k < samples; k++) {
            int n = Math.min(k * EVERY, COUNT - 1);
            sendAt[k] = out.sendNs[n] + (k == samples - 1 ? 10 * US : 0);
            recvAt[k] = sendAt[k] + 30 * US;
        }
        out.samples.put(Series.SENDER_SAMPLE_NS, sendAt);
        out.samples.put(Series.SENDER_THREAD_CPU_NS, cumulative(samples, 700 * US, 90 * US));
        out.samples.put(Series.SENDER_PROCESS_CPU_NS, cumulative(samples, 1_000 * US, 0));
        out.samples.put(Series.RECEIVER_SAMPLE_NS, recvAt);
        out.samples.put(Series.RECEIVER_THREAD_CPU_NS, cumulative(samples, 500 * US, 130 * US));
        out.samples.put(Series.RECEIVER_PROCESS_CPU_NS, cumulative(samples, 900 * US, 40 * US));
        out.samples.put(Series.NET_RX_BYTES, cumulative(samples, 25_600, 1_700));
        out.samples.put(Series.NET_RX_PACKETS, cumulative(samples, 200, 11));
        out.samples.put(Series.BROKER_SAMPLE_NS, recvAt.clone());
        out.samples.put(Series.BROKER_CPU_NS, cumulative(samples, 400 * US, 70 * US));
        out.netInterface = "lo";
        out.sampling.put("sender", new TraceResult.Sampling(samples, 21 * US));
        out.sampling.put("receiver", new TraceResult.Sampling(samples, 34 * US));
        if (sidecar) {
            int probe = 16;
            long[] t = new long[probe];
            for (int k = 0; k < probe; k++) {
                t[k] = T0 + 3 * MS - MS + k * 2 * MS; // the probe's clock is 3 ms ahead
            }
            out.samples.put(Series.SIDECAR_SAMPLE_NS, t);
            out.samples.put(Series.SIDECAR_BROKER_CPU_NS, cumulative(probe, 600 * US, 150 * US));
            out.samples.put(Series.SIDECAR_HOST_BUSY_NS, cumulative(probe, 2_500 * US, 300 * US));
            out.samples.put(Series.SIDECAR_HOST_TOTAL_NS, cumulative(probe, 4 * 2 * MS, 0));
            out.sampling.put("probe", new TraceResult.Sampling(probe, 55 * US));
            out.sidecarSource = "process 4242 (msgscope relay)";
            out.sidecarOffset = new ClockOffset(3 * MS, 12 * US, 32);
            out.sidecarOffsetAfter = new ClockOffset(3 * MS + 2 * US, 15 * US, 32);
        }
        return out.result();
    }

    /** A counter that grows by {@code step} ± a fixed pattern of {@code wobble} per sample. */
    private static long[] cumulative(int samples, long step, long wobble) {
        long[] v = new long[samples];
        for (int k = 1; k < samples; k++) {
            v[k] = v[k - 1] + step + (k * 7 % 5 - 2) * wobble / 2;
        }
        return v;
    }

    private static AgentInfo agent(String role, int cpu) {
        HelloAck hello = HelloAck.newBuilder().setHost("agent-host").setPid(4_000 + role.length())
                .setToolVersion("AGENT-VERSION").setEnvironment(Environment.newBuilder().setJvm("OpenJDK 17")
                        .setOs("Linux").setCpuModel("Test CPU").setLogicalCores(2).setPhysicalCores(1)).build();
        Affinity affinity = Affinity.newBuilder().setRequestedCpu(cpu).setObtained(cpu < 0 ? "0-1" : "" + cpu)
                .setPinned(cpu >= 0).build();
        return new AgentInfo(role, hello, affinity, "127.0.0.1:" + (40_000 + role.length()));
    }

    /** summary.json with the tool's version and the coordinator's machine replaced; every other file as written. */
    private static byte[] masked(String name, byte[] bytes) throws IOException {
        if (!name.equals("summary.json")) {
            return bytes;
        }
        String coordinator = Json.MAPPER.writeValueAsString(Map.of("coordinator", Json.env(Golden.ENV)));
        String fixed = coordinator.substring(coordinator.indexOf('"'), coordinator.lastIndexOf('}')).trim()
                .replace("\n", "\n  ");
        return new String(bytes, StandardCharsets.UTF_8)
                .replace("\"version\" : \"" + Version.TOOL + "\"", "\"version\" : \"VERSION\"")
                .replaceFirst("\"coordinator\" : \\{[^}]*}", java.util.regex.Matcher.quoteReplacement(fixed))
                .getBytes(StandardCharsets.UTF_8);
    }
}

package io.msgscope.coordinator.trace;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.cpu.StepSeries;
import io.msgscope.analysis.output.GnuplotScripts;
import io.msgscope.analysis.output.TraceDatWriter;
import io.msgscope.analysis.output.TraceEnvelope;
import io.msgscope.coordinator.results.ResultFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;

/** Trace mode's gnuplot writer for the {@link CpuReport}: cpu.gp, and network.gp when the network was sampled. */
final class CpuScripts {
    private CpuScripts() {
    }

    /**
     * Writes the scripts over trace.dat's columns, or with {@code envelope} over trace-envelope.dat's step medians;
     * returns the scripts written.
     */
    static List<Path> write(Path dir, CpuReport cpu, TraceResult out, BrokerCpu brokerCpu, Trace trace,
                            boolean envelope) throws IOException {
        List<Path> scripts = new ArrayList<>();
        LinkedHashMap<String, Integer> lines = new LinkedHashMap<>();
        for (StepSeries s : cpu.columns()) {
            if (s.name().startsWith("cpu_")) {
                lines.put(label(s.name(), brokerCpu), column(cpu, trace, s.name(), envelope));
            }
        }
        if (!lines.isEmpty()) {
            scripts.add(GnuplotScripts.writeSteps(dir, ResultFiles.CPU_GP, "cpu.png",
                    "CPU per message: sender, broker, receiver (every " + out.spec().cpuEvery() + "th message)",
                    "CPU [% of one core]", lines, envelope));
        }
        for (StepSeries s : cpu.columns()) {
            if (s.name().equals(CpuReport.NET_RX)) {
                LinkedHashMap<String, Integer> net = new LinkedHashMap<>();
                String nic = out.samples().netInterface();
                net.put("received bytes/s on " + nic, column(cpu, trace, CpuReport.NET_RX, envelope));
                scripts.add(GnuplotScripts.writeSteps(dir, ResultFiles.NETWORK_GP, "network.png",
                        "Network utilisation per message (" + nic + ": " + ("lo".equals(nic)
                                ? "all loopback traffic: every hop of the run and its acknowledgements"
                                : "all traffic it received") + ")", "bytes/s", net, envelope));
            }
        }
        return scripts;
    }

    private static int column(CpuReport cpu, Trace trace, String name, boolean envelope) {
        return envelope ? TraceEnvelope.columnOf(trace, cpu.columns(), name)
                : TraceDatWriter.columnOf(trace, cpu.columns(), name);
    }

    private static String label(String column, BrokerCpu brokerCpu) {
        return switch (column) {
            case CpuReport.SENDER -> "sender thread";
            case CpuReport.RECEIVER -> "receiver thread";
            case CpuReport.BROKER -> "broker (" + brokerCpu.mode().name().toLowerCase(Locale.ROOT) + " mode)";
            case CpuReport.RELAY_STAMPS -> "relay thread (stamps)";
            default -> column;
        };
    }
}

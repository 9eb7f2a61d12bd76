package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.sweep.SweepParameter;
import io.msgscope.coordinator.sweep.SweepTable;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code msgscope sweep}: {@code msgscope run} over a list of sizes, rates or windows, each point
 * repeated, each run a child process into {@code DIR/point-<value>-<repeat>/}; then the sweep tables
 * and plots (M7) and the time of analysis and plotting against the measuring time (M11).
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run 'msgscope run' over sizes, rates or windows: tables, spread, plots.",
                "One run per value of the parameter and repeat, each",
                "into DIR/point-<value>-<repeat>/, then write sweep.dat (one row per point",
                "and repeat), sweep-spread.dat (min/median/max over the repeats), sweep.json",
                "and the gnuplot scripts sweep-throughput.gp and sweep-latency.gp (M7).",
                "Every other option goes to 'run' unchanged, e.g. --count 100000."},
        footer = {"", "Example:", "  msgscope sweep --sizes 64,256,1k,4k --repeat 3 --count 200000 --rate 20000 \\",
                "      --out results/s1 --plot",
                "", "Exit codes: 0 ok, 1 a point failed (tables still written), 2 bad usage."})
public final class SweepCommand implements Callable<Integer> {
    /** The class whose {@code main} runs {@code msgscope}; a system property overrides it. */
    static final String MAIN_CLASS = System.getProperty("msgscope.main", "io.msgscope.cli.Main");

    private static final Pattern ANALYSIS = Pattern.compile("analysis and output: ([0-9.]+) s");

    @Spec
    CommandSpec commandSpec;

    @Option(names = "--sizes", paramLabel = "LIST",
            description = "Message sizes, e.g. 64,256,1k,4k,1m (k = 1024, m = 1048576).")
    String sizes;

    @Option(names = "--rates", paramLabel = "LIST", description = "Send rates in msg/s, e.g. 10k,20k,50k (k = 1000).")
    String rates;

    @Option(names = "--windows", paramLabel = "LIST", description = "Windows M, e.g. 10,100,1000.")
    String windows;

    @Option(names = "--batches", paramLabel = "LIST",
            description = "Send batch sizes (messages per write, run --send-batch), e.g. 1,4,16,64.")
    String batches;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "Runs per point; the tables show the spread between them (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--out", paramLabel = "DIR", description = "Sweep folder (default: results/sweep-YYYYMMDD-HHMMSS).")
    Path out;

    @Option(names = "--plot", defaultValue = "false",
            description = "Render the sweep's gnuplot scripts to PNG (needs gnuplot) (default: ${DEFAULT-VALUE}).")
    boolean plot;

    @Option(names = "--plot-points", defaultValue = "false",
            description = "Also render every point's scripts (msgscope report renders missing ones later) "
                    + "(default: ${DEFAULT-VALUE}).")
    boolean plotPoints;

    @Option(names = "--point-timeout", paramLabel = "S", defaultValue = "3600",
            description = "Seconds one run may take before it is killed and counted failed (default: ${DEFAULT-VALUE}).")
    long pointTimeoutS;

    @Unmatched
    List<String> runArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        SweepParameter param = parameter();
        if (repeat < 1 || repeat > 1000) {
            throw new SpecException("--repeat", "must be between 1 and 1000, got " + repeat);
        }
        if (pointTimeoutS < 1) {
            throw new SpecException("--point-timeout", "must be at least 1 s, got " + pointTimeoutS);
        }
        checkPassThrough(param.kind());
        Path dir = RunCommand.prepareOut(out, "sweep");
        long t0 = System.nanoTime();
        List<SweepTable.Point> points = new ArrayList<>();
        double measuringS = 0;
        double analysisS = 0;
        double plotS = 0;
        boolean failed = false;
        ObjectMapper om = new ObjectMapper();
        int total = param.values().size() * repeat;
        int k = 0;
        for (double v : param.values()) {
            for (int r = 1; r <= repeat; r++) {
                k++;
                String name = "point-" + SweepParameter.format(v) + "-" + r;
                Path pdir = dir.resolve(name);
                long ps = System.nanoTime();
                int code = runPoint(param.kind(), v, pdir);
                double wall = (System.nanoTime() - ps) / 1e9;
                Path log = pdir.resolve("run.log");
                String logText = Files.isRegularFile(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                if (code == ExitCodes.USAGE && k == 1) {
                    throw new SpecException("run", "the first point was refused: " + lastLine(logText));
                }
                Path summaryFile = pdir.resolve("summary.json");
                JsonNode summary = Files.isRegularFile(summaryFile) ? om.readTree(summaryFile.toFile()) : null;
                Matcher m = ANALYSIS.matcher(logText);
                if (m.find()) {
                    analysisS += Double.parseDouble(m.group(1));
                }
                double meas = measuring(summary);
                if (!Double.isNaN(meas)) {
                    measuringS += meas;
                }
                if (plotPoints && summary != null) {
                    long pp = System.nanoTime();
                    renderQuietly(pdir, stdout);
                    plotS += (System.nanoTime() - pp) / 1e9;
                }
                String status = summary == null ? "no summary.json (exit " + code + ")"
                        : summary.path("status").asText("unknown");
                failed |= code != ExitCodes.OK || summary == null || !"ok".equals(status);
                points.add(new SweepTable.Point(v, r, name, code, summary));
                stdout.printf(Locale.ROOT, "[%d/%d] %s=%s repeat %d: %s, %s msg/s, latency p50 %s µs, p99 %s µs (%.1f s)%n",
                        k, total, param.kind().column, SweepParameter.format(v), r, status,
                        summary == null ? "-" : String.format(Locale.ROOT, "%,.0f",
                                summary.path("throughput").path("receive_msg_s").asDouble(Double.NaN)),
                        us(summary, "p50"), us(summary, "p99"), wall);
                stdout.flush();
            }
        }
        long ts = System.nanoTime();
        SweepTable table = new SweepTable(param.kind(), points);
        table.writeTables(dir);
        double tablesS = (System.nanoTime() - ts) / 1e9;
        if (plot) {
            long pp = System.nanoTime();
            renderQuietly(dir, stdout);
            plotS += (System.nanoTime() - pp) / 1e9;
        }
        double wallS = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> timing = new LinkedHashMap<>();
        timing.put("measuring_s", measuringS);
        timing.put("analysis_and_output_s", analysisS);
        timing.put("plotting_s", plotS);
        timing.put("sweep_tables_s", tablesS);
        timing.put("wall_s", wallS);
        timing.put("post_processing_share_of_measuring", measuringS > 0 ? (analysisS + plotS + tablesS) / measuringS : null);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("status", failed ? "failed" : "ok");
        extra.put("repeat", repeat);
        extra.put("run_args", runArgs);
        extra.put("timing", timing);
        Files.writeString(dir.resolve("sweep.json"), table.json(extra), StandardCharsets.UTF_8);
        double post = analysisS + plotS + tablesS;
        stdout.printf(Locale.ROOT, "time: measuring %.1f s; analysis and output %.2f s, plotting %.2f s, sweep tables %.3f s"
                        + " = %.2f s (%.0f %% of measuring); wall %.1f s (the rest: JVM and agent start-up, warm-up, handshakes)%n",
                measuringS, analysisS, plotS, tablesS, post, measuringS > 0 ? 100 * post / measuringS : Double.NaN, wallS);
        stdout.println("sweep results in " + dir + (failed ? " (some points failed: see sweep.dat, status column)" : ""));
        stdout.flush();
        return failed ? ExitCodes.FAILED : ExitCodes.OK;
    }

    private SweepParameter parameter() {
        int given = (sizes != null ? 1 : 0) + (rates != null ? 1 : 0) + (windows != null ? 1 : 0)
                + (batches != null ? 1 : 0);
        if (given != 1) {
            throw new SpecException("--sizes", "give exactly one of --sizes, --rates, --windows, --batches"
                    + (given > 1 ? " (got " + given + ")" : ""));
        }
        if (batches != null) {
            return SweepParameter.parse(SweepParameter.Kind.BATCH, batches);
        }
        if (sizes != null) {
            return SweepParameter.parse(SweepParameter.Kind.SIZE, sizes);
        }
        if (rates != null) {
            return SweepParameter.parse(SweepParameter.Kind.RATE, rates);
        }
        return SweepParameter.parse(SweepParameter.Kind.WINDOW, windows);
    }

    /** Refuses pass-through options the sweep sets itself. */
    void checkPassThrough(SweepParameter.Kind kind) {
        for (String a : runArgs) {
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (name.equals(kind.runOption)) {
                throw new SpecException(kind.runOption, "is set by " + kind.sweepOption + " in a sweep; remove it");
            }
            if (name.equals("--out") || name.equals("--plot") || name.equals("--plot-points")) {
                throw new SpecException(name, "belongs to the sweep, not to each run; give it once, before or after the list");
            }
        }
    }

    private int runPoint(SweepParameter.Kind kind, double v, Path pdir) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(MAIN_CLASS);
        cmd.add("run");
        cmd.addAll(runArgs);
        cmd.add(kind.runOption);
        cmd.add(SweepParameter.argument(v));
        cmd.add("--out");
        cmd.add(pdir.toString());
        Files.createDirectories(pdir);
        Path log = pdir.resolve("run.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // a sweep stopped by Ctrl-C or kill takes its current run (and that run's agents) with it
        Thread reaper = new Thread(() -> {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }, "sweep-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            return awaitPoint(p, log);
        } finally {
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }

    private int awaitPoint(Process p, Path log) throws IOException, InterruptedException {
        if (!p.waitFor(pointTimeoutS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Files.writeString(log, "\nsweep: killed after " + pointTimeoutS + " s (--point-timeout)\n",
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
            return ExitCodes.FAILED;
        }
        return p.exitValue();
    }

    /** Measured seconds of a run: messages received over the receive rate. */
    static double measuring(JsonNode s) {
        if (s == null) {
            return Double.NaN;
        }
        double n = s.path("counters").path("messages_received").asDouble(Double.NaN);
        double rate = s.path("throughput").path("receive_msg_s").asDouble(Double.NaN);
        return rate > 0 ? n / rate : Double.NaN;
    }

    private static String us(JsonNode s, String field) {
        if (s == null || !s.path("series").path("latency_ns").path(field).isNumber()) {
            return "-";
        }
        return String.format(Locale.ROOT, "%,.1f", s.path("series").path("latency_ns").path(field).asDouble() / 1000);
    }

    private static void renderQuietly(Path dir, PrintWriter out) {
        try {
            Plotter.render(dir);
        } catch (PlotUnavailableException e) {
            out.println("warning: " + e.getMessage());
        } catch (IOException e) {
            out.println("warning: plotting " + dir + " failed: " + e.getMessage());
        }
    }

    /** The run's one-line usage error ("msgscope run: ..."), else the last line of its output. */
    static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        for (String l : lines) {
            if (l.startsWith("msgscope run: ")) {
                return l.substring("msgscope run: ".length());
            }
        }
        return lines.length == 0 ? "(no output)" : lines[lines.length - 1];
    }
}

package io.msgscope.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.analysis.output.HumanFormat;
import io.msgscope.analysis.output.PlotUnavailableException;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.coordinator.view.SummaryView;
import io.msgscope.coordinator.sweep.SweepParameter;
import io.msgscope.coordinator.sweep.SweepTable;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.Unfinished;
import io.msgscope.coordinator.sweep.SweepTiming;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code msgscope sweep}: {@code msgscope run} (or {@code msgscope throughput}, {@code --mode
 * throughput}) over a list of sizes, rates, windows, send batches, in-flight counts or driver option
 * values, each point repeated, each run a child process into {@code DIR/point-<value>-<repeat>/};
 * then the sweep tables and plots (M7) and the time of analysis and plotting against the measuring
 * time (M11). Every value is checked before the first point runs: the child command's own usage
 * checks on each point's arguments, the driver's {@code checkOptions} for option values.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run 'msgscope run' or 'msgscope throughput' over a parameter: tables, spread, plots. One run "
                               + "per value of the parameter and repeat, each into DIR/point-<value>-<repeat>/, then write "
                               + "sweep.dat (one row per point and repeat) and the same table as sweep.csv, sweep-spread.dat (min/median/max over the repeats), "
                               + "sweep.json and the gnuplot scripts sweep-throughput.gp and sweep-latency.gp (M7). Every other "
                               + "option goes to each run unchanged, e.g. --count 100000."},
        footer = {"",
                  "Examples:",
                  "  msgscope sweep --sizes 64,256,1k,4k --repeat 3 --count 200000 --rate 20000 \\",
                  "      --out results/s1 --plot",
                  "  msgscope sweep --in-flights 1,10,100,1000 --driver amqp --samples 50 --plot",
                  "  msgscope sweep --opt-values tx_size=1,10,100 --driver amqp --count 100000",
                  "  msgscope sweep --opt-values qos=0,1,2 --mode throughput --driver mqtt --in-flight 100",
                  "",
                  "Exit codes: 0 ok, 1 a point failed (tables still written), 2 bad usage, 130 interrupted (Ctrl-C or",
                  "SIGTERM: the point under way keeps what it measured; the tables hold the points that finished)."})
public final class SweepCommand implements Callable<Integer> {
    /** "~2 min 10 s left": the remaining points at the mean wall time of the points done (issue 18). */
    static String eta(double elapsedS, int done, int remaining) {
        long s = Math.round(elapsedS / Math.max(1, done) * remaining);
        return "~" + (s >= 60 ? s / 60 + " min " + s % 60 + " s" : s + " s") + " left";
    }

    private static final Pattern ANALYSIS = Pattern.compile("analysis and output: ([0-9.]+) s");

    @Spec
    CommandSpec commandSpec;

    @Mixin
    DriverOptions driverOptions;

    @Option(names = "--mode", paramLabel = "run|throughput",
            description = "What each point runs: 'run' (trace run, seed 001) or 'throughput' (flow-controlled, "
                    + "seed 000) (default: throughput with --in-flights, else run).")
    String mode;

    @Option(names = "--sizes", paramLabel = "LIST",
            description = "Message sizes, e.g. 64,256,1k,4k,1m (k = 1024, m = 1048576).")
    String sizes;

    @Option(names = "--rates", paramLabel = "LIST", description = "Send rates in msg/s, e.g. 10k,20k,50k (k = 1000); run mode.")
    String rates;

    @Option(names = "--windows", paramLabel = "LIST", description = "Windows M, e.g. 10,100,1000; run mode.")
    String windows;

    @Option(names = "--batches", paramLabel = "LIST",
            description = "Send batch sizes (messages per write, run --send-batch), e.g. 1,4,16,64; run mode.")
    String batches;

    @Option(names = "--in-flights", paramLabel = "LIST",
            description = "In-flight counts F (throughput --in-flight), e.g. 1,10,100,1k (k = 1000); throughput mode.")
    String inFlights;

    @Option(names = "--opt-values", paramLabel = "KEY=LIST",
            description = "A driver option and its values, e.g. tx_size=1,10,100 (amqp) or qos=0,1,2 (mqtt); each "
                    + "value is checked by the driver before any point runs.")
    String optValues;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "Runs per point; the tables show the spread between them (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Mixin
    PlotOption plotOption;

    @Option(names = "--plot-points", negatable = true,
            description = "Render every point's scripts as it finishes (per-message plots of long runs through "
                    + "the envelope): on by default with --plot; --plot-points alone renders only the points; "
                    + "--no-plot-points leaves them to 'msgscope report'.")
    Boolean plotPoints;

    @Option(names = "--point-timeout", paramLabel = "S", defaultValue = "3600",
            description = "Seconds one run may take before it is killed and counted failed (default: ${DEFAULT-VALUE}).")
    long pointTimeoutS;

    @Unmatched
    List<String> runArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = commandSpec.commandLine().getOut();
        SweepParameter param = parameter();
        boolean throughput = mode(param.kind());
        if (repeat < 1 || repeat > 1000) {
            throw new SpecException("--repeat", "must be between 1 and 1000, got " + repeat);
        }
        if (pointTimeoutS < 1) {
            throw new SpecException("--point-timeout", "must be at least 1 s, got " + pointTimeoutS);
        }
        checkPassThrough(param);
        checkPoints(param, throughput);
        store.open(); // each point records itself in this store, with these labels (issue 34)
        Path dir = output.prepare();
        long t0 = System.nanoTime();
        List<SweepTable.Point> points = new ArrayList<>();
        double measuringS = 0;
        double analysisS = 0;
        double plotS = 0;
        boolean failed = false;
        boolean plotting = plotPoints == null ? plotOption.plot : plotPoints;
        int total = param.values().size() * repeat;
        int k = 0;
        List<String> notFinished = new ArrayList<>();
        ChildRun.Points running = new ChildRun.Points();
        try (Interrupts signals = Interrupts.install(running, System.err)) {
            for (int i = 0; i < param.values().size(); i++) {
                double v = param.values().get(i);
                String label = param.labels().get(i);
                for (int r = 1; r <= repeat; r++) {
                    k++;
                    String name = "point-" + param.dirName(i) + "-" + r;
                    if (running.interruptedBy() != null) {
                        notFinished.add(name);
                        continue;
                    }
                    Path pdir = dir.resolve(name);
                    long ps = System.nanoTime();
                    commandSpec.commandLine().getErr().printf(Locale.ROOT, "[%d/%d] %s=%s repeat %d: running%s%n", k, total,
                            param.column(), label, r, k == 1 ? "" : " (" + eta((System.nanoTime() - t0) / 1e9, k - 1, total - k + 1) + ")");
                    int code = ChildRun.run(pointArgs(param, i, throughput), pdir, pointTimeoutS, "sweep (--point-timeout)",
                            running);
                    double wall = (System.nanoTime() - ps) / 1e9;
                    Path log = pdir.resolve("run.log");
                    String logText = Files.isRegularFile(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                    if (code == ExitCodes.USAGE && k == 1) {
                        throw new SpecException(throughput ? "throughput" : "run",
                                "the first point was refused: " + lastLine(logText));
                    }
                    SummaryView view = SummaryView.read(pdir);
                    JsonNode summary = view == null ? null : view.json();
                    Matcher m = ANALYSIS.matcher(logText);
                    if (m.find()) {
                        analysisS += Double.parseDouble(m.group(1));
                    }
                    double meas = throughput ? wall : measuring(summary);
                    if (!Double.isNaN(meas)) {
                        measuringS += meas;
                    }
                    if (plotting && summary != null) {
                        long pp = System.nanoTime();
                        plotting = renderQuietly(pdir, stdout);
                        plotS += (System.nanoTime() - pp) / 1e9;
                    }
                    String status = view == null ? "no summary.json (exit " + code + ")" : view.status();
                    if (running.interruptedBy() != null && !Envelope.INTERRUPTED.equals(status)) {
                        notFinished.add(name); // cut before it kept anything of its own
                        continue;
                    }
                    failed |= running.interruptedBy() == null && (code != ExitCodes.OK || !"ok".equals(status));
                    points.add(new SweepTable.Point(v, label, r, name, code, summary));
                    stdout.printf(Locale.ROOT, "[%d/%d] %s=%s repeat %d: %s, %s msg/s, latency p50 %s, p99 %s (%.1f s%s)%n",
                            k, total, param.column(), label, r, status,
                            view == null ? "-" : String.format(Locale.ROOT, "%,.0f", view.msgPerS()),
                            us(view, "p50"), us(view, "p99"), wall,
                            k == total ? "" : "; " + eta((System.nanoTime() - t0) / 1e9, k, total - k));
                    stdout.flush();
                }
            }
        }
        Unfinished stopped = running.interruptedBy() == null ? null
                : new Unfinished(running.interruptedBy(), points.size(), total, notFinished);
        long ts = System.nanoTime();
        SweepTable table = new SweepTable(param, throughput, points);
        table.writeTables(dir);
        double tablesS = (System.nanoTime() - ts) / 1e9;
        if (plotOption.plot) {
            long pp = System.nanoTime();
            renderQuietly(dir, stdout);
            plotS += (System.nanoTime() - pp) / 1e9;
        }
        SweepTiming timing = new SweepTiming(measuringS, throughput, analysisS, plotS, tablesS,
                (System.nanoTime() - t0) / 1e9);
        table.writeJson(dir, failed, stopped, repeat, driverOptions.driver, commonArgs(), timing);
        stdout.println(timing.line());
        if (stopped != null) {
            stdout.println("INTERRUPTED: " + stopped.line());
        }
        stdout.println("sweep results in " + dir + (failed ? " (some points failed: see sweep.dat, status column)" : ""));
        stdout.flush();
        return stopped != null ? ExitCodes.INTERRUPTED : failed ? ExitCodes.FAILED : ExitCodes.OK;
    }

    private SweepParameter parameter() {
        String[][] given = {{sizes, "SIZE"}, {rates, "RATE"}, {windows, "WINDOW"}, {batches, "BATCH"},
                {inFlights, "IN_FLIGHT"}, {optValues, "OPT"}};
        SweepParameter.Kind kind = null;
        String text = null;
        int n = 0;
        for (String[] g : given) {
            if (g[0] != null) {
                n++;
                kind = SweepParameter.Kind.valueOf(g[1]);
                text = g[0];
            }
        }
        if (n != 1) {
            throw new SpecException("--sizes", "give exactly one of --sizes, --rates, --windows, --batches, "
                    + "--in-flights, --opt-values" + (n > 1 ? " (got " + n + ")" : ""));
        }
        return SweepParameter.parse(kind, text);
    }

    /** True for throughput mode; refuses a parameter the mode does not have. */
    boolean mode(SweepParameter.Kind kind) {
        boolean throughput;
        if (mode == null) {
            throughput = kind == SweepParameter.Kind.IN_FLIGHT;
        } else if (mode.equalsIgnoreCase("run") || mode.equalsIgnoreCase("throughput")) {
            throughput = mode.equalsIgnoreCase("throughput");
        } else {
            throw new SpecException("--mode", "must be run or throughput, got '" + mode + "'");
        }
        if (throughput && !kind.inThroughputMode) {
            throw new SpecException(kind.sweepOption, "needs --mode run ('msgscope throughput' has no "
                    + kind.runOption + "); throughput mode sweeps --sizes, --in-flights or --opt-values");
        }
        if (!throughput && !kind.inRunMode) {
            throw new SpecException(kind.sweepOption, "needs --mode throughput ('msgscope run' has no "
                    + kind.runOption + "); run mode sweeps --sizes, --rates, --windows, --batches or --opt-values");
        }
        return throughput;
    }

    /** Refuses pass-through options the sweep sets itself. */
    void checkPassThrough(SweepParameter param) {
        SweepParameter.Kind kind = param.kind();
        for (String a : runArgs) {
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (kind != SweepParameter.Kind.OPT && name.equals(kind.runOption)) {
                throw new SpecException(kind.runOption, "is set by " + kind.sweepOption + " in a sweep; remove it");
            }
            if (name.equals("--out") || name.equals("--plot") || name.equals("--plot-points")
                    || name.equals("--no-plot-points")) {
                throw new SpecException(name, "belongs to the sweep, not to each run; give it once, before or after the list");
            }
        }
        if (kind == SweepParameter.Kind.OPT && driverOptions.options().containsKey(param.key())) {
            throw new SpecException("--opt " + param.key(), "is set by --opt-values in a sweep; remove it");
        }
    }

    /** The arguments common to every point: the pass-through options and the driver options. */
    private List<String> commonArgs() {
        List<String> a = new ArrayList<>(runArgs);
        a.addAll(driverOptions.asArguments());
        return a;
    }

    /** The command line of point {@code i} after the main class: the command, common options, the value. */
    List<String> pointArgs(SweepParameter param, int i, boolean throughput) {
        List<String> a = new ArrayList<>();
        a.add(throughput ? "throughput" : "run");
        a.addAll(commonArgs());
        a.addAll(param.arguments(i));
        return a;
    }

    /**
     * Every point's arguments through the child command's own usage checks (and with them the driver's
     * {@code checkOptions}), before the first point runs: a bad value is one line naming the sweep option,
     * the value and what is allowed.
     */
    void checkPoints(SweepParameter param, boolean throughput) {
        for (int i = 0; i < param.values().size(); i++) {
            List<String> args = pointArgs(param, i, throughput);
            Object cmd = throughput ? new ThroughputCommand() : new RunCommand();
            picocli.CommandLine cl = new picocli.CommandLine(cmd);
            try {
                cl.parseArgs(args.subList(1, args.size()).toArray(String[]::new));
            } catch (picocli.CommandLine.ParameterException e) {
                throw new SpecException(args.get(0), e.getMessage().replace('\n', ' '));
            }
            try {
                if (throughput) {
                    ((ThroughputCommand) cmd).check();
                } else {
                    ((RunCommand) cmd).check();
                }
            } catch (SpecException e) {
                boolean fromValue = e.option().equals(param.kind().runOption)
                        || param.kind() == SweepParameter.Kind.OPT && e.option().startsWith("--opt");
                if (!fromValue) {
                    throw e;
                }
                String what = param.kind() == SweepParameter.Kind.OPT
                        ? param.key() + "=" + param.labels().get(i) : param.labels().get(i);
                throw new SpecException(param.kind().sweepOption, "value " + what + " refused: " + e.getMessage());
            }
        }
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

    /** A latency for the point's line, three figures in the unit that suits it (1.21 s, not 1,209,906.4 µs). */
    static String us(SummaryView s, String field) {
        double v = s == null ? Double.NaN : s.latencyUs(field);
        return Double.isNaN(v) ? "-" : HumanFormat.duration(v * 1e3);
    }

    /** Renders a folder's scripts; a failure is a warning, not the end of the sweep. False when gnuplot is missing. */
    private static boolean renderQuietly(Path dir, PrintWriter out) {
        try {
            Plotter.render(dir);
        } catch (PlotUnavailableException e) {
            out.println("warning: " + e.getMessage());
            return false;
        } catch (IOException e) {
            out.println("warning: plotting " + dir + " failed: " + e.getMessage());
        }
        return true;
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

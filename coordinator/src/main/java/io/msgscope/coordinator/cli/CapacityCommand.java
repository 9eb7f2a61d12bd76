package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.capacity.CapacityJob;
import io.msgscope.coordinator.capacity.CapacitySearch;
import io.msgscope.coordinator.capacity.Knee;
import io.msgscope.coordinator.capacity.Objective;
import io.msgscope.coordinator.capacity.Step;
import io.msgscope.coordinator.capacity.StepMode;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code msgscope capacity} (issue 31 item 4): the most open-loop load a system sustains within a latency objective.
 * Each step is a {@code msgscope run} (or with {@code --scenario} a {@code msgscope scenario}, the rate the total
 * over all publishers) at one constant rate, a child process into {@code DIR/step-NN-RATE/}, held in
 * 1-second phases; the search ({@link CapacitySearch}) and its results are the capacity package's.
 */
@Command(name = "capacity", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The most load within a latency objective: searches the open-loop rate (doubling from --from, "
                               + "then bisection to --precision, then repeats at the edge), each step a trace run at a "
                               + "constant rate held until its latency and backlog are stationary or found not to be, "
                               + "latency from the intended send time (coordinated omission). Writes summary.json, "
                               + "capacity.dat and capacity.gp (the hockey stick). Every other option goes to each "
                               + "step's 'msgscope run' unchanged, e.g. --size 64 --warmup 1000; with --scenario each "
                               + "step is a 'msgscope scenario' and the rate the total over all publishers. With "
                               + "--rates, a grid instead of a search: every rate run --repeats times and judged the "
                               + "same way (the sweep a search is checked against)."},
        footer = {"",
                  "Example:",
                  "  msgscope capacity --objective p99=5ms,p999=20ms --from 1k --to 64k --precision 5%% --plot",
                  "  msgscope capacity --objective p99=5ms --rates 1k..64k/10%% --repeats 3",
                  "",
                  "Exit codes: 0 a rate was found, 1 not even --from sustained the objective or a step failed to "
                          + "run (results still written), 2 bad usage, 130 interrupted (Ctrl-C or SIGTERM: the step "
                          + "under way keeps what it measured, no step starts after it, the summary holds the steps "
                          + "that finished)."})
public final class CapacityCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Mixin
    DriverOptions driverOptions;

    @Option(names = "--objective", paramLabel = "PCT=BOUND[,...]", required = true,
            description = "The latency objective, from the intended send time: percentiles (p50, p90, p95, p99, p999, "
                    + "p9999) with bounds and units (ns, us, ms, s), e.g. p99=5ms,p999=20ms (default: none; required).")
    String objective;

    @Option(names = "--from", paramLabel = "MSG/S", defaultValue = "1000",
            description = "The first rate tried (k = 1000) (default: ${DEFAULT-VALUE}).")
    String from;

    @Option(names = "--to", paramLabel = "MSG/S", defaultValue = "100000",
            description = "The highest rate tried (k = 1000) (default: ${DEFAULT-VALUE}).")
    String to;

    @Option(names = "--precision", paramLabel = "PERCENT", defaultValue = "5%",
            description = "Bisection stops when the failing rate is within this of the passing one, 0.1-100 %% "
                    + "(default: ${DEFAULT-VALUE}).")
    String precision;

    @Option(names = "--rates", paramLabel = "LIST|FROM..TO/STEP%",
            description = "Instead of a search, a grid: every rate given (k = 1000), or FROM..TO in steps of STEP %% "
                    + "(each rate STEP %% above the one before, TO the last), run --repeats times, each run held and "
                    + "judged as a search step is and each rate decided by the majority of its runs; the capacity is "
                    + "the largest rate up to which every rate passed. Replaces --from, --to, --precision and "
                    + "--max-steps (default: none; a search).")
    String rates;

    @Option(names = "--hold", paramLabel = "S", defaultValue = "15",
            description = "Seconds each step is first held, in 1-second windows, 3-3600; long enough to see the "
                    + "system's periodic stalls (RabbitMQ here passed twice the rate over 5 s holds that it sustains "
                    + "over 15 s) (default: ${DEFAULT-VALUE}).")
    int hold;

    @Option(names = "--max-hold", paramLabel = "S", defaultValue = "60",
            description = "A step that meets the objective but whose latency or backlog drifts is held again for "
                    + "twice as long, up to this many seconds (default: ${DEFAULT-VALUE}).")
    int maxHold;

    @Option(names = "--repeats", paramLabel = "N", defaultValue = "3",
            description = "Runs at the last passing and the first failing rate, for the edge's 95 %% interval "
                    + "(2 or more gives one); with --rates, runs at every rate; 1-20 (default: ${DEFAULT-VALUE}).")
    int repeats;

    @Option(names = "--max-steps", paramLabel = "N", defaultValue = "30",
            description = "Runs the search may take at most, 2-1000 (default: ${DEFAULT-VALUE}).")
    int maxSteps;

    @Option(names = "--step-timeout", paramLabel = "S", defaultValue = "600",
            description = "Seconds one step's run may take before it is killed and counted failed (default: "
                    + "${DEFAULT-VALUE}).")
    long stepTimeoutS;

    @Option(names = "--scenario", paramLabel = "NAME",
            description = "Each step a 'msgscope scenario --scenario NAME' (fan-in, fan-out, straight-run or "
                    + "round-robin) instead of a trace run: the rate searched is the TOTAL over all publishers, and "
                    + "the other options go to each step's scenario, e.g. --publishers 4 --subscribers 1 (default: "
                    + "none; each step a trace run).")
    String scenario;

    @Option(names = "--knee-from", paramLabel = "DIR",
            description = "A 'msgscope throughput' results folder on the same set-up: its closed-loop knee is "
                    + "reported beside the capacity (default: none).")
    Path kneeFrom;

    @Mixin
    OutputOptions output;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Mixin
    PlotOption plotOption;

    @Unmatched
    List<String> runArgs = new ArrayList<>();

    /** A rate option: a number of msg/s, k = 1000. */
    static double rate(String option, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        double scale = t.endsWith("k") ? 1e3 : 1;
        try {
            double v = Double.parseDouble(scale == 1 ? t : t.substring(0, t.length() - 1)) * scale;
            if (!(v >= 1) || v > 1e9) {
                throw new SpecException(option, "must be between 1 and 1000000000 msg/s, got " + text);
            }
            return CapacitySearch.wholeRate(v);
        } catch (NumberFormatException e) {
            throw new SpecException(option, "must be a rate in msg/s (k = 1000), got '" + text + "'");
        }
    }

    /** {@code --precision}: "5%" or "5", as a fraction. */
    static double precision(String text) {
        String t = text.strip();
        try {
            double v = Double.parseDouble(t.endsWith("%") ? t.substring(0, t.length() - 1).strip() : t);
            if (!(v >= 0.1) || v > 100) {
                throw new SpecException("--precision", "must be between 0.1 and 100 %, got " + text);
            }
            return v / 100;
        } catch (NumberFormatException e) {
            throw new SpecException("--precision", "must be a percentage, e.g. 5%, got '" + text + "'");
        }
    }

    /** Rates a grid may hold at most. */
    static final int MAX_GRID = 1000;

    /**
     * {@code --rates}: a list ({@code 10k,20k,40k}) or a geometric range ({@code 100k..400k/5%}: from FROM, each rate
     * STEP % above the one before while not above TO, then TO), ascending, distinct.
     */
    static List<Double> gridRates(String text) {
        String t = text.strip();
        List<Double> out = new ArrayList<>();
        if (t.contains("..")) {
            int slash = t.indexOf('/');
            if (slash < 0 || !t.endsWith("%")) {
                throw new SpecException("--rates", "a range needs its step as a percentage, e.g. 100k..400k/5%, got '"
                        + text + "'");
            }
            String[] ends = t.substring(0, slash).split("\\.\\.", -1);
            if (ends.length != 2) {
                throw new SpecException("--rates", "must be FROM..TO/STEP%, got '" + text + "'");
            }
            double lo = rate("--rates", ends[0]);
            double hi = rate("--rates", ends[1]);
            double step;
            try {
                step = Double.parseDouble(t.substring(slash + 1, t.length() - 1).strip()) / 100;
            } catch (NumberFormatException e) {
                throw new SpecException("--rates", "the step must be a percentage, e.g. 5%, got '" + text + "'");
            }
            if (!(step >= 0.001) || step > 10) {
                throw new SpecException("--rates", "the step must be between 0.1 % and 1000 %, got '" + text + "'");
            }
            if (lo >= hi) {
                throw new SpecException("--rates", "FROM must be below TO, got '" + text + "'");
            }
            for (double r = lo; r < hi && out.size() <= MAX_GRID; r *= 1 + step) {
                double v = CapacitySearch.wholeRate(r);
                if (out.isEmpty() || v > out.get(out.size() - 1)) {
                    out.add(v);
                }
            }
            if (out.get(out.size() - 1) < hi) {
                out.add(hi);
            }
        } else {
            for (String item : t.split(",", -1)) {
                double v = rate("--rates", item);
                if (!out.isEmpty() && v <= out.get(out.size() - 1)) {
                    throw new SpecException("--rates", "must be ascending and distinct, got " + item + " after "
                            + String.format(Locale.ROOT, "%.0f", out.get(out.size() - 1)));
                }
                out.add(v);
            }
        }
        if (out.size() > MAX_GRID) {
            throw new SpecException("--rates", "holds more than " + MAX_GRID + " rates, got '" + text + "'");
        }
        return out;
    }

    /** Every usage check, before anything is written. */
    CapacitySearch.Settings check(Objective obj) {
        if (scenario != null && !given("--driver")) {
            driverOptions.driver = io.msgscope.core.driver.DefaultDrivers.SCENARIO; // scenario mode's own default
        }
        List<Double> grid = null;
        if (rates != null) {
            for (String o : List.of("--from", "--to", "--precision", "--max-steps")) {
                if (given(o)) {
                    throw new SpecException(o, "does not go with --rates: a grid runs every rate it lists; remove "
                            + o);
                }
            }
            grid = gridRates(rates);
        }
        double lo = grid != null ? grid.get(0) : rate("--from", from);
        double hi = grid != null ? grid.get(grid.size() - 1) : rate("--to", to);
        if (lo > hi) {
            throw new SpecException("--from", "must not be above --to (" + to + "), got " + from);
        }
        if (hold < 3 || hold > 3600) {
            throw new SpecException("--hold", "must be between 3 and 3600 s (the stationarity test needs windows to "
                    + "compare), got " + hold);
        }
        if (maxHold < hold || maxHold > 3600) {
            throw new SpecException("--max-hold", "must be between --hold (" + hold + ") and 3600 s, got " + maxHold);
        }
        if (repeats < 1 || repeats > 20) {
            throw new SpecException("--repeats", "must be between 1 and 20, got " + repeats);
        }
        if (maxSteps < 2 || maxSteps > 1000) {
            throw new SpecException("--max-steps", "must be between 2 and 1000, got " + maxSteps);
        }
        if (stepTimeoutS < 1) {
            throw new SpecException("--step-timeout", "must be at least 1 s, got " + stepTimeoutS);
        }
        mode().check("--objective", obj);
        for (String a : runArgs) {
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (List.of("--rate", "--count", "--phases", "--duration").contains(name)) {
                throw new SpecException(name, "is set by the search for each step; remove it");
            }
            if (List.of("--out", "--plot", "--overwrite", "--spec").contains(name)) {
                throw new SpecException(name, "belongs to the search, not to each step"
                        + (name.equals("--spec") ? " (capacity reads no spec file)" : "; give it once"));
            }
        }
        checkStep(Step.phases(lo, hold));
        checkStep(Step.phases(hi, maxHold));
        return grid != null ? CapacitySearch.Settings.grid(grid, hold, maxHold, repeats)
                : new CapacitySearch.Settings(lo, hi, precision(precision), hold, maxHold, repeats, maxSteps);
    }

    /** What each step runs: a trace run, or a scenario with {@code --scenario}. */
    StepMode mode() {
        return scenario == null ? StepMode.TRACE : StepMode.SCENARIO;
    }

    /**
     * A step's arguments through {@code run}'s or {@code scenario}'s own usage checks (and the driver's), as
     * {@code sweep} checks points; an option the step's command does not know is refused by name.
     */
    private void checkStep(String phases) {
        List<String> args = stepArgs(phases);
        boolean trace = mode() == StepMode.TRACE;
        RunCommand run = trace ? new RunCommand() : null;
        ScenarioCommand sc = trace ? null : new ScenarioCommand();
        picocli.CommandLine cl = new picocli.CommandLine(trace ? run : sc);
        try {
            cl.parseArgs(args.subList(1, args.size()).toArray(String[]::new));
        } catch (picocli.CommandLine.UnmatchedArgumentException e) {
            String a = e.getUnmatched().get(0);
            throw new SpecException(a.contains("=") ? a.substring(0, a.indexOf('=')) : a, trace
                    ? "is not an option of capacity or of each step's 'msgscope run' (a scenario option? add --scenario "
                    + "NAME)" : "is not an option of capacity or of each step's 'msgscope scenario'");
        } catch (picocli.CommandLine.ParameterException e) {
            throw new SpecException(mode().command(), e.getMessage().replace('\n', ' '));
        }
        if (trace) {
            run.commandSpec = cl.getCommandSpec();
            run.check();
        } else {
            sc.commandSpec = cl.getCommandSpec();
            sc.check();
        }
    }

    /** The command line of one step after the main class. */
    List<String> stepArgs(String phases) {
        List<String> a = new ArrayList<>();
        a.add(mode().command());
        if (scenario != null) {
            a.add("--scenario");
            a.add(scenario);
        }
        a.addAll(runArgs);
        a.addAll(driverOptions.asArguments());
        a.add("--phases");
        a.add(phases);
        return a;
    }

    /** Whether the user gave {@code option}. */
    private boolean given(String option) {
        picocli.CommandLine.ParseResult r = commandSpec == null ? null : commandSpec.commandLine().getParseResult();
        return r != null && r.hasMatchedOption(option);
    }

    @Override
    public Integer call() throws Exception {
        Objective obj = Objective.parse("--objective", objective);
        CapacitySearch.Settings settings = check(obj);
        Knee knee = kneeFrom == null ? null : Knee.read("--knee-from", kneeFrom);
        store.open(); // exit 2 before any step runs; the steps record themselves too (issue 34)
        Path dir = output.prepare();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("objective", objective);
        spec.put("rates", rates);
        spec.put("from", rates == null ? from : null);
        spec.put("to", rates == null ? to : null);
        spec.put("precision", rates == null ? precision : null);
        spec.put("hold_s", hold);
        spec.put("max_hold_s", maxHold);
        spec.put("repeats", repeats);
        spec.put("max_steps", rates == null ? maxSteps : null);
        spec.put("scenario", scenario);
        spec.put("driver", driverOptions.driver);
        spec.put("uri", driverOptions.uri == null ? null : io.msgscope.core.Secrets.uri(driverOptions.uri));
        spec.put("options", new java.util.TreeMap<>(io.msgscope.core.Secrets.options(driverOptions.options())));
        spec.put("run_args", List.copyOf(runArgs));
        ChildRun.Points steps = new ChildRun.Points();
        CapacityJob job = new CapacityJob(obj, settings, mode(), knee, (phases, stepDir) -> ChildRun.run(stepArgs(phases),
                stepDir, stepTimeoutS, "capacity step (--step-timeout)", steps), spec, driverOptions.driver, dir,
                steps::interruptedBy);
        io.msgscope.coordinator.results.JobOutcome outcome;
        try (Interrupts signals = Interrupts.install(steps, System.err)) { // Ctrl-C: to the step running (issue 29)
            outcome = job.run(commandSpec.commandLine().getOut());
        }
        store.record(outcome, dir, commandSpec, false);
        return ExitCodes.of(outcome, dir, output, plotOption, commandSpec);
    }
}

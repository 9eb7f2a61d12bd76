package io.msgscope.coordinator.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.coordinator.results.Envelope;
import io.msgscope.coordinator.results.JobOutcome;
import io.msgscope.coordinator.results.JobOutcome.Ending;
import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultFiles;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.core.EnvironmentInfo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A capacity search from its results folder to its verdict (issue 31 item 4): the folder reserved, the search run with
 * each step a trace run or a scenario into {@code step-NN-RATE/} (by the {@link StepRunner} the command gives), the result written
 * ({@code capacity.dat}, {@code capacity.gp}, summary.json last) and the answer said.
 *
 * @param objective the objective
 * @param settings  the search's settings
 * @param mode      what each step runs: a trace run or a scenario
 * @param knee      a throughput run's knee to report beside the capacity; null for none
 * @param runner    runs one step's trace run
 * @param spec      the options as given, for the envelope
 * @param driver    the driver's name
 * @param dir       the results folder, prepared by the command
 * @param signal    the signal that stopped the search (Ctrl-C, issue 29; passed on to the step running by the command),
 *                  null while none did
 */
public record CapacityJob(Objective objective, CapacitySearch.Settings settings, StepMode mode, Knee knee,
                          StepRunner runner, Map<String, Object> spec, String driver, Path dir,
                          Supplier<String> signal) {

    /** Runs one step ({@code msgscope run|scenario ... --phases PHASES --out STEPDIR}) and returns its exit code. */
    @FunctionalInterface
    public interface StepRunner {
        int run(String phases, Path stepDir) throws IOException, InterruptedException;
    }

    /** The first step refused its arguments: bad usage, the folder is the command's to discard. */
    private static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    /** Runs the search, writes and says the result. */
    public JobOutcome run(PrintWriter out) throws IOException, InterruptedException {
        String startedAt = Instant.now().toString();
        String runId = dir.getFileName().toString();
        ResultsFolder folder = ResultsFolder.reserveOrSay(dir, "capacity", runId, startedAt, out);
        if (folder == null) {
            return JobOutcome.unwritten(Ending.FAILED, null);
        }
        long t0 = System.nanoTime();
        int[] n = {0};
        List<String> notFinished = new ArrayList<>();
        CapacitySearch.Stepper stepper = (rate, hold) -> {
            if (signal.get() != null) {
                throw new CapacitySearch.Interrupted(null); // no step starts after Ctrl-C
            }
            n[0]++;
            String name = String.format(Locale.ROOT, "step-%02d-%.0f", n[0], rate);
            Path sd = dir.resolve(name);
            long s0 = System.nanoTime();
            int code = runner.run(Step.phases(rate, hold), sd);
            JsonNode summary = readSummary(sd);
            if (code == 2 && n[0] == 1) {
                throw new Refused("the first step's run was refused: " + lastLine(sd, mode.command()));
            }
            boolean cut = signal.get() != null;
            if (cut && (summary == null || !Envelope.INTERRUPTED.equals(summary.path("status").asText()))) {
                notFinished.add(name); // cut before it kept anything of its own
                throw new CapacitySearch.Interrupted(null);
            }
            Step st = Step.read(mode, summary, code, objective, name, rate, hold, (System.nanoTime() - s0) / 1e9);
            out.println(CapacityConsole.stepLine(n[0], st));
            out.flush();
            if (cut) {
                throw new CapacitySearch.Interrupted(st);
            }
            return st;
        };
        CapacitySearch.Result found;
        try {
            found = new CapacitySearch(settings, objective, stepper).run();
        } catch (Refused e) {
            return JobOutcome.unwritten(Ending.USAGE, e.getMessage());
        }
        CapacityResult.Cut cut = found.cutAt() == null ? null : new CapacityResult.Cut(signal.get(), notFinished);
        String failure = cut != null ? CapacityConsole.interrupted(found, cut) : failure(found);
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("coordinator", Json.env(EnvironmentInfo.current()));
        Envelope envelope = Envelope.of("capacity", runId, driver, startedAt, failure, "search", List.of(), spec,
                Json.specHash(spec), env, cut != null);
        CapacityResult r = new CapacityResult(envelope, objective, settings, mode, found, knee,
                (System.nanoTime() - t0) / 1e9, cut);
        folder.write(CapacityPlot.DAT, () -> Files.writeString(dir.resolve(CapacityPlot.DAT), CapacityPlot.data(r),
                StandardCharsets.US_ASCII));
        folder.write(CapacityPlot.GP, () -> Files.writeString(dir.resolve(CapacityPlot.GP), CapacityPlot.script(r),
                StandardCharsets.US_ASCII));
        Map<String, Object> summary = r.toMap();
        summary.put("files", new ArrayList<>(List.of(CapacityPlot.DAT, CapacityPlot.GP, ResultFiles.SUMMARY)));
        folder.commit(summary);
        if (settings.grid() != null) {
            CapacityConsole.rateLines(r).forEach(out::println);
        }
        if (cut == null || found.found() != null) {
            out.println(CapacityConsole.answer(r));
        }
        out.println(String.format(Locale.ROOT, "%d runs in %.0f s; results in %s", found.steps().size(), r.seconds(),
                dir));
        if (cut != null) {
            out.println("INTERRUPTED: " + failure);
        }
        out.flush();
        return JobOutcome.written(cut != null ? Ending.INTERRUPTED : failure == null ? Ending.OK : Ending.FAILED);
    }

    /** Why the search failed: no rate sustained, or a step that wrote no results; null when it found a rate. */
    static String failure(CapacitySearch.Result r) {
        for (CapacitySearch.Taken t : r.steps()) {
            if (t.step().status().startsWith("no summary")) {
                return "step " + t.step().folder() + " wrote no summary.json: " + t.step().why();
            }
        }
        if (r.found() == null) {
            return "no rate tried sustained the objective (" + r.stop() + ")";
        }
        return null;
    }

    private static JsonNode readSummary(Path sd) {
        Path f = sd.resolve(ResultFiles.SUMMARY);
        try {
            return Files.isRegularFile(f) ? Json.MAPPER.readTree(f.toFile()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A refused run's one-line error from its run.log ("msgscope run: ..."), else its last line. */
    private static String lastLine(Path sd, String command) {
        String prefix = "msgscope " + command + ": ";
        try {
            List<String> lines = Files.readAllLines(sd.resolve("run.log"), StandardCharsets.UTF_8);
            for (String l : lines) {
                if (l.startsWith(prefix)) {
                    return l.substring(prefix.length());
                }
            }
            return lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
        } catch (IOException e) {
            return "(no run.log)";
        }
    }
}

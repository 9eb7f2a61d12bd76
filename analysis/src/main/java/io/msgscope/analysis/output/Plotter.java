package io.msgscope.analysis.output;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Renders every gnuplot script of a run folder to PNG by running {@code gnuplot}. */
public final class Plotter {

    /** Per-script time limit. */
    public static final long TIMEOUT_SECONDS = 60;

    private static final Pattern OUTPUT = Pattern.compile("^\\s*set\\s+output\\s+[\"']([^\"']+)[\"']",
            Pattern.MULTILINE);

    private static final Pattern ERROR_LINE = Pattern.compile("\"[^\"]*\" line \\d+:");

    private Plotter() {
    }

    /** The gnuplot executable found on PATH, or {@code null}. */
    public static Path findGnuplot() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
            if (dir.isEmpty()) {
                continue;
            }
            for (String name : new String[] {"gnuplot", "gnuplot.exe"}) {
                Path candidate = Path.of(dir, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    /** Whether gnuplot is on PATH. */
    public static boolean gnuplotAvailable() {
        return findGnuplot() != null;
    }

    /**
     * Runs every {@code *.gp} in {@code dir} through gnuplot (in name order, working directory
     * {@code dir}, {@value #TIMEOUT_SECONDS} s each): all in one gnuplot process with a {@code reset}
     * between scripts, and when that fails each script in a process of its own.
     *
     * A script that fails (e.g. a failed run with no data to draw) does not stop the others: every
     * script is run, and the failures are reported together afterwards.
     *
     * @return the PNG files the scripts produced
     * @throws PlotUnavailableException if gnuplot is not on PATH
     * @throws PlotException if a script fails or times out (after the others were rendered), naming each
     */
    public static List<Path> render(Path dir) throws IOException {
        Path gnuplot = findGnuplot();
        if (gnuplot == null) {
            throw new PlotUnavailableException();
        }
        List<Path> scripts = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().endsWith(".gp") && Files.isRegularFile(p))
                    .sorted()
                    .forEach(scripts::add);
        }
        List<Path> pngs = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        // one gnuplot process for the folder (a reset between scripts): a process per script costs
        // more than most plots; when it fails, each script again on its own to say which one failed
        boolean together = scripts.size() > 1 && runTogether(gnuplot, dir, scripts);
        for (Path script : scripts) {
            if (!together) {
                try {
                    run(gnuplot, dir, script);
                } catch (PlotException e) {
                    failures.add(e.getMessage());
                    removeEmptyOutputs(dir, script); // gnuplot opens its output before it fails: no broken images
                    continue;
                }
            }
            Matcher m = OUTPUT.matcher(Files.readString(script, StandardCharsets.UTF_8));
            while (m.find()) {
                Path png = dir.resolve(m.group(1));
                if (Files.isRegularFile(png) && Files.size(png) > 0 && !pngs.contains(png)) {
                    pngs.add(png);
                }
            }
        }
        if (failures.size() == 1) {
            throw new PlotException(failures.get(0) + (scripts.size() > 1 ? " (the other " + (scripts.size() - 1)
                    + " scripts were rendered)" : ""));
        }
        if (!failures.isEmpty()) {
            throw new PlotException(failures.size() + " of " + scripts.size() + " scripts failed: "
                    + String.join("; ", failures));
        }
        return pngs;
    }

    /** Deletes the empty files a failed script left where its PNGs would be (a page would show them broken). */
    private static void removeEmptyOutputs(Path dir, Path script) throws IOException {
        Matcher m = OUTPUT.matcher(Files.readString(script, StandardCharsets.UTF_8));
        while (m.find()) {
            Path png = dir.resolve(m.group(1));
            if (Files.isRegularFile(png) && Files.size(png) == 0) {
                Files.delete(png);
            }
        }
    }

    /** Runs every script in one gnuplot process, {@code reset} between them; false if that failed. */
    private static boolean runTogether(Path gnuplot, Path dir, List<Path> scripts) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(gnuplot.toString());
        for (Path s : scripts) {
            cmd.add(s.getFileName().toString());
            cmd.add("-e");
            cmd.add("reset");
        }
        Process process = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            if (!process.waitFor(TIMEOUT_SECONDS * scripts.size(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return false;
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new PlotException("interrupted while gnuplot ran the scripts of " + dir, e);
        }
        return process.exitValue() == 0;
    }

    private static void run(Path gnuplot, Path dir, Path script) throws IOException {
        String name = script.getFileName().toString();
        Path stderr = Files.createTempFile("msgscope-gnuplot-", ".err");
        try {
            Process process = new ProcessBuilder(gnuplot.toString(), name)
                    .directory(dir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(stderr.toFile())
                    .start();
            boolean finished;
            try {
                finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new PlotException("interrupted while gnuplot ran " + name, e);
            }
            if (!finished) {
                process.destroyForcibly();
                throw new PlotException("gnuplot " + name + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new PlotException("gnuplot failed on " + name + " (exit " + process.exitValue() + "): "
                        + firstLine(stderr));
            }
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    private static File nullDevice() {
        return new File(File.separatorChar == '\\' ? "NUL" : "/dev/null");
    }

    /** gnuplot's error line ("script" line N: message) if there is one, else the first line. */
    private static String firstLine(Path file) throws IOException {
        String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        String first = null;
        for (String line : text.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            if (first == null) {
                first = line.strip();
            }
            if (ERROR_LINE.matcher(line).find()) {
                return line.strip();
            }
        }
        return first == null ? "(no output on stderr)" : first;
    }
}

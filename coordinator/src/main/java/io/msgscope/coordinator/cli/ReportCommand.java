package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.report.HtmlReport;
import io.msgscope.core.SpecException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code msgscope report DIR}: a self-contained HTML page of a run, sweep or capacity folder. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write a self-contained HTML report DIR/index.html of a results folder or sweep. For a folder of "
                               + "run, throughput or scenario (summary.json), a sweep folder (sweep.json; each point with data "
                               + "gets its own page, a point without is listed) or a capacity search (the answer, the "
                               + "objective, the hockey stick and the steps, each step's run its own page): summary, status, environment, plots, tables and "
                               + "the settings to reproduce it. Inline CSS, images by relative path, no scripts, no network. "
                               + "Missing PNGs are rendered when gnuplot is installed."},
        footer = {"",
                  "Exit codes: 0 ok, 1 the folder's summary.json is empty, not JSON or not a msgscope summary, 2 "
                          + "bad usage (no such folder, or not a run or sweep folder)."})
public final class ReportCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Parameters(paramLabel = "DIR", description = "A folder written by msgscope run, throughput, scenario, sweep or capacity.")
    Path dir;

    @Override
    public Integer call() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new SpecException("DIR", "no such folder: " + dir);
        }
        if (!HtmlReport.isRun(dir) && !HtmlReport.isSweep(dir)) {
            throw new SpecException("DIR", dir + " holds neither summary.json nor sweep.json");
        }
        if (!HtmlReport.isSweep(dir)) {
            HtmlReport.checkSummary(dir); // exit 1, one line: a broken summary is a failure, not a page
        }
        PrintWriter stdout = commandSpec.commandLine().getOut();
        HtmlReport.Result r = HtmlReport.write(dir);
        for (String n : r.notes()) {
            stdout.println("note: " + n);
        }
        stdout.println("report: " + r.index() + (r.pages().size() > 1 ? " (+" + (r.pages().size() - 1)
                + (HtmlReport.isSweep(dir) ? " point pages)" : " step pages)") : ""));
        stdout.flush();
        return ExitCodes.OK;
    }
}

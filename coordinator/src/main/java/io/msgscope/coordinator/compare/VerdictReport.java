package io.msgscope.coordinator.compare;

import io.msgscope.coordinator.results.Json;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A candidate group of runs against a baseline group (issue 34): each figure's verdict, the spec fields in which the
 * runs differ, the regression gate's breaches; as a Markdown section (console and compare.md) and compare.json.
 */
public final class VerdictReport {
    /** Spec fields that name where results go or how they are shown, not what was measured. */
    private static final List<String> NOT_MEASURED = List.of("out", "overwrite", "plot", "verbose", "metrics_port");

    private final List<RunData> baseline;
    private final List<RunData> candidate;
    private final List<GateRule> rules;
    private final List<FigureVerdict> figures;

    public VerdictReport(List<RunData> baseline, List<RunData> candidate, List<GateRule> rules) {
        if (baseline.isEmpty() || candidate.isEmpty()) {
            throw new IllegalArgumentException("a baseline and a candidate run at least");
        }
        this.baseline = List.copyOf(baseline);
        this.candidate = List.copyOf(candidate);
        this.rules = List.copyOf(rules);
        this.figures = Verdicts.of(baseline, candidate);
    }

    public List<FigureVerdict> figures() {
        return figures;
    }

    /** The verdict on one figure. */
    public FigureVerdict figure(Figure f) {
        return figures.get(f.ordinal());
    }

    /**
     * The spec fields (and the driver) whose values differ between any run and the first baseline run, sorted; the
     * output folder and display options are not compared.
     */
    public List<String> specDifferences() {
        RunData first = baseline.get(0);
        TreeSet<String> out = new TreeSet<>();
        List<RunData> all = new ArrayList<>(baseline);
        all.addAll(candidate);
        for (RunData r : all) {
            if (!Objects.equals(first.view().envelope().driver(), r.view().envelope().driver())) {
                out.add("driver");
            }
            Map<String, Object> a = first.view().envelope().spec();
            Map<String, Object> b = r.view().envelope().spec();
            TreeSet<String> keys = new TreeSet<>(a.keySet());
            keys.addAll(b.keySet());
            for (String k : keys) {
                if (!NOT_MEASURED.contains(k) && !Objects.equals(a.get(k), b.get(k))) {
                    out.add(k);
                }
            }
        }
        return new ArrayList<>(out);
    }

    /** The warning about differing specs, or null when they agree. */
    public String specWarning() {
        List<String> d = specDifferences();
        return d.isEmpty() ? null : "warning: the runs' specs differ in " + String.join(", ", d)
                + ": the verdicts compare different set-ups, not one set-up over time";
    }

    /** One line per breached {@code --fail-if} rule. */
    public List<String> breaches() {
        List<String> out = new ArrayList<>();
        for (GateRule r : rules) {
            r.breach(figure(r.figure())).ifPresent(out::add);
        }
        return out;
    }

    /** One line per rule whose figure had no verdict. */
    public List<String> undecided() {
        List<String> out = new ArrayList<>();
        for (GateRule r : rules) {
            r.undecided(figure(r.figure())).ifPresent(out::add);
        }
        return out;
    }

    private boolean oneRunASide() {
        return baseline.size() == 1 || candidate.size() == 1;
    }

    private static String labels(List<RunData> runs) {
        StringBuilder sb = new StringBuilder();
        for (RunData r : runs) {
            sb.append(sb.length() > 0 ? ", " : "").append(r.label());
        }
        return sb.toString();
    }

    /** A change as a signed percentage ("+12.3 %"), "–" when unknown. */
    static String pct(Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, "%+.1f %%", v * 100);
    }

    private static String value(Figure f, Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, f.isLatency() ? "%.1f" : "%.0f", v);
    }

    /** The verdict section: a heading, what was compared and how, a table, the notes. */
    public String markdown() {
        StringBuilder sb = new StringBuilder("\n## Verdict: candidate against baseline\n\n");
        sb.append("baseline: ").append(labels(baseline)).append(" · candidate: ").append(labels(candidate))
                .append("\n\n| figure | baseline | candidate | change | 95 % interval | Mann–Whitney p | samples | verdict |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (FigureVerdict v : figures) {
            sb.append("| ").append(v.figure().label()).append(" [").append(v.figure().unit()).append("] | ")
                    .append(value(v.figure(), v.baseline())).append(" | ").append(value(v.figure(), v.candidate()))
                    .append(" | ").append(pct(v.change())).append(" | ")
                    .append(v.ciLow() == null ? "–" : pct(v.ciLow()) + " … " + pct(v.ciHigh())).append(" | ")
                    .append(v.mannWhitneyP() == null ? "–" : String.format(Locale.ROOT, "%.3g", v.mannWhitneyP()))
                    .append(" | ").append(v.baselineSamples()).append(" / ").append(v.candidateSamples())
                    .append(" | ").append(v.verdict().words()).append(" |\n");
        }
        sb.append("\nThroughput: the median of the samples (throughput runs: samples.dat; scenarios: the rate of each "
                + "second; trace runs: messages per second of send time); latency: the percentile or mean of every "
                + "latency.hlog interval merged. Significant when the 95 % bootstrap interval (")
                .append(Verdicts.RESAMPLES).append(" draws of runs, then of each run's samples) excludes 0 and the "
                + "Mann–Whitney p < ").append(Verdicts.ALPHA).append("; fewer than ").append(Verdicts.MIN_SAMPLES)
                .append(" samples a side: too few repeats to tell.\n");
        if (oneRunASide()) {
            sb.append("\nOne run on a side: the interval says how steady that run was, not how much runs of the same "
                    + "spec differ; repeat the runs (--baseline DIR... --candidate DIR..., 3 or more each) for that.\n");
        }
        String w = specWarning();
        if (w != null) {
            sb.append('\n').append(w).append('\n');
        }
        List<RunData> all = new ArrayList<>(baseline);
        all.addAll(candidate);
        for (RunData r : all) {
            if (!"ok".equals(r.view().status())) {
                sb.append("\nwarning: ").append(r.label()).append(" has status ").append(r.view().status())
                        .append(": its figures are over the part that ran\n");
            }
        }
        return sb.toString();
    }

    /** compare.json's content. */
    public Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", Json.tool());
        m.put("baseline", runs(baseline));
        m.put("candidate", runs(candidate));
        Map<String, Object> method = new LinkedHashMap<>();
        method.put("confidence", 0.95);
        method.put("resamples", Verdicts.RESAMPLES);
        method.put("seed", Verdicts.SEED);
        method.put("alpha", Verdicts.ALPHA);
        method.put("min_samples", Verdicts.MIN_SAMPLES);
        method.put("one_run_a_side", oneRunASide());
        m.put("method", method);
        m.put("spec_differences", specDifferences());
        List<Map<String, Object>> fs = new ArrayList<>();
        for (FigureVerdict v : figures) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("figure", v.figure().label());
            f.put("unit", v.figure().unit());
            f.put("baseline", v.baseline());
            f.put("candidate", v.candidate());
            f.put("change", v.change());
            f.put("ci95_low", v.ciLow());
            f.put("ci95_high", v.ciHigh());
            f.put("mann_whitney_p", v.mannWhitneyP());
            f.put("baseline_samples", v.baselineSamples());
            f.put("candidate_samples", v.candidateSamples());
            f.put("verdict", v.verdict().words());
            fs.add(f);
        }
        m.put("figures", fs);
        List<Map<String, Object>> gate = new ArrayList<>();
        for (GateRule r : rules) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("rule", r.text());
            g.put("figure", r.figure().label());
            FigureVerdict v = figure(r.figure());
            g.put("breached", r.breach(v).isPresent());
            g.put("judged", r.undecided(v).isEmpty());
            gate.add(g);
        }
        m.put("gate", gate);
        m.put("gate_failed", !breaches().isEmpty());
        return m;
    }

    private static List<Map<String, Object>> runs(List<RunData> runs) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (RunData r : runs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("label", r.label());
            m.put("mode", r.view().modeName());
            m.put("driver", r.view().envelope().driver());
            m.put("spec_hash", r.view().envelope().specHash());
            m.put("status", r.view().status());
            m.put("throughput_samples", r.throughput().length);
            m.put("latency_intervals", r.latency().size());
            out.add(m);
        }
        return out;
    }

    /** Writes compare.json into dir. */
    public Path writeJson(Path dir) throws IOException {
        Path p = dir.resolve("compare.json");
        Json.write(p, json());
        return p;
    }
}

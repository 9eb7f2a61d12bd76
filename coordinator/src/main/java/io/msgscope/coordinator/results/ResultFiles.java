package io.msgscope.coordinator.results;

/** The names of the files a results folder holds, spelled once; docs/results.md says what each one means. */
public final class ResultFiles {
    /** Every mode's summary: status, spec, environment, counters, figures; written last, atomically. */
    public static final String SUMMARY = "summary.json";

    // trace mode's files (the analysis module's writers spell the names of those they write)
    /** Trace mode: every message's times, latency, rates and CPU columns, one row per message. */
    public static final String TRACE_DAT = io.msgscope.analysis.output.TraceDatWriter.FILE_NAME;
    /** A run with faults (issue 32): one row per planned fault, with the trace.dat row it falls at. */
    public static final String FAULTS_DAT = "faults.dat";
    /** Trace mode: trace.dat's min/median/max per bucket of messages, what the scripts plot in a long run. */
    public static final String TRACE_ENVELOPE = io.msgscope.analysis.output.TraceEnvelope.FILE_NAME;
    /** Trace mode: the latency histogram. */
    public static final String LATENCY_HISTOGRAM = io.msgscope.analysis.output.HistogramWriter.FILE_NAME;
    /**
     * Latency as an HdrHistogram interval log (trace mode: per second; throughput: per probe; scenario: per second of
     * the measurement), and trace mode's percentile distribution.
     */
    public static final String LATENCY_HLOG = io.msgscope.analysis.output.HdrOutput.HLOG_FILE_NAME;
    public static final String LATENCY_HGRM = io.msgscope.analysis.output.HdrOutput.HGRM_FILE_NAME;
    /** Trace mode: CPU per message of sender, broker and receiver, and the receiver's network, over the run. */
    public static final String CPU_GP = "cpu.gp";
    public static final String NETWORK_GP = "network.gp";
    /** Trace mode: the latency distribution up to p99 with its modes marked (M8), and its script. */
    public static final String LATENCY_DISTRIBUTION_DAT = "latency-distribution.dat";
    public static final String LATENCY_DISTRIBUTION_GP = "latency-distribution.gp";
    /** Trace mode: the highest latencies (M11), and the script that marks them over the run. */
    public static final String PEAKS_DAT = "peaks.dat";
    public static final String LATENCY_PEAKS_GP = "latency-peaks.gp";

    // throughput mode's files
    /** Throughput mode: the F search, one row per probe, and the script that draws it (search.png). */
    public static final String SEARCH_DAT = "search.dat";
    public static final String SEARCH_GP = "search.gp";
    /** Throughput mode: the final measurement's throughput samples, and the script that draws them. */
    public static final String SAMPLES_DAT = "samples.dat";
    public static final String SAMPLES_GP = "samples.gp";

    // scenario mode's files
    /** Scenario mode: the summary's scalar fields as one CSV row, and as a Markdown table with the notes. */
    public static final String SUMMARY_CSV = "summary.csv";
    public static final String SUMMARY_MD = "summary.md";
    /** Scenario mode: rate and latency per second of the measurement, and the script that draws them. */
    public static final String TIMESERIES_DAT = "timeseries.dat";
    public static final String TIMESERIES_GP = "timeseries.gp";
    /** Scenario mode with faults (issue 32): the messages counted per 100 ms each fault's figures come from. */
    public static final String FAULT_BUCKETS_DAT = "fault-buckets.dat";

    // batch and sweep folders
    /** A batch's runs, one line each: command line, folder, exit code, status, headline figures. */
    public static final String BATCH = "batch.json";
    /** The same runs as a Markdown table. */
    public static final String BATCH_MD = "batch.md";
    /** A sweep's points and their spread over the repeats, with its timing. */
    public static final String SWEEP = "sweep.json";
    /** A sweep's points as a gnuplot table, one row per point and repeat. */
    public static final String SWEEP_DAT = "sweep.dat";
    /** sweep.dat's table comma-separated. */
    public static final String SWEEP_CSV = "sweep.csv";

    private ResultFiles() {
    }
}

package io.msgscope.coordinator.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What trace mode and scenario mode write alike about a backlog (issue 31 item 3): backlog.dat, the broker's reads of
 * its backlog beside the tool's count of messages in flight, with its plot script backlog.gp, and summary.json's
 * {@code broker_view} of an episode.
 */
public final class BacklogFiles {
    /** The file of the broker's reads beside the tool's count, and its plot script. */
    public static final String BACKLOG_DAT = "backlog.dat";
    public static final String BACKLOG_GP = "backlog.gp";

    private BacklogFiles() {
    }

    /**
     * Writes backlog.dat and backlog.gp; returns them.
     *
     * @param origin   the timeline's origin on the reads' clock (ns)
     * @param accepted the confirmed less received at each read, or null when the publisher does not confirm (NaN)
     * @param toolNote how the tool's count is made, for the file's header
     * @param acceptedNote how its floor of what the system accepted is made, for the header
     */
    public static List<Path> write(Path dir, long origin, long[] timeNs, long[] depth, long[] inFlight, long[] accepted,
                                   int samples, String toolNote, String acceptedNote) throws IOException {
        StringBuilder b = new StringBuilder("# time_s broker_depth tool_in_flight tool_accepted_in_flight\n# time_s: "
                + "from the timeline's start (phases' start_s); broker_depth: the broker's count of messages waiting for "
                + "the consumer; tool_in_flight: " + toolNote + "; tool_accepted_in_flight: " + acceptedNote
                + ", NaN when the publisher does not confirm (issue 31)\n");
        for (int k = 0; k < samples; k++) {
            b.append(String.format(Locale.ROOT, "%.6f %d %d %s%n", (timeNs[k] - origin) / 1e9, depth[k], inFlight[k],
                    accepted == null ? "NaN" : Long.toString(accepted[k])));
        }
        Path dat = Files.writeString(dir.resolve(BACKLOG_DAT), b);
        String gp = "# msgscope: the broker's backlog beside the tool's messages in flight (from backlog.dat)\n"
                + "# Run from the run folder: gnuplot " + BACKLOG_GP + "\n"
                + io.msgscope.analysis.output.GnuplotScripts.TERMINAL
                + "set output \"backlog.png\"\nset datafile missing NaN\nset grid\n"
                + "set title \"Backlog: the broker's count and msgscope's messages in flight\"\n"
                + "set xlabel \"time from the timeline's start [s]\"\nset ylabel \"messages\"\nset key top right\n"
                + "plot \"" + BACKLOG_DAT + "\" using 1:2 with linespoints pt 7 ps 0.5 title \"broker\", \\\n"
                + "     \"" + BACKLOG_DAT + "\" using 1:3 with lines title \"msgscope: sent - received\", \\\n"
                + "     \"" + BACKLOG_DAT + "\" using 1:4 with lines title \"msgscope: confirmed - received\"\n";
        return List.of(dat, Files.writeString(dir.resolve(BACKLOG_GP), gp));
    }

    /**
     * The fields an episode of summary.json's {@code backlog} starts with, in trace mode's order: {@code phases} (the
     * paused phases' names) to {@code drain_send_msg_s}; times ns from the timeline's origin, null when unknown.
     * {@code time_to_catch_up_s} is from the resume until every window's median latency from the intended time is
     * within the bound, {@code last_arrival_above_bound_s} from the resume to the last arrival above it (trace mode
     * only: null from windows); see {@link io.msgscope.analysis.CatchUp}.
     */
    public static Map<String, Object> episodeHead(List<String> phases, long pausedNs, long resumedNs, Long peak,
                                                  Long peakAtNs, Long drainedNs, Double drainMsgS, Double boundNs,
                                                  Long catchUpNs, Long lastAboveBoundNs, Double sendMsgS) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phases", phases);
        m.put("paused_at_s", pausedNs / 1e9);
        m.put("resumed_at_s", resumedNs / 1e9);
        m.put("peak_messages", peak);
        m.put("peak_at_s", peakAtNs == null ? null : peakAtNs / 1e9);
        m.put("drained_at_s", drainedNs == null ? null : drainedNs / 1e9);
        m.put("drain_s", drainedNs == null ? null : Math.max(0, drainedNs - resumedNs) / 1e9);
        m.put("drain_msg_s", drainMsgS == null ? null : Json.finite(drainMsgS));
        m.put("catch_up_bound_us", boundNs == null ? null : Json.finite(boundNs / 1e3));
        m.put("time_to_catch_up_s", catchUpNs == null ? null : catchUpNs / 1e9);
        m.put("last_arrival_above_bound_s", lastAboveBoundNs == null ? null : lastAboveBoundNs / 1e9);
        m.put("drain_send_msg_s", sendMsgS == null ? null : Json.finite(sendMsgS));
        return m;
    }

    /**
     * An episode's {@code broker_view}: the reads in its window, the broker's largest count, how it was compared, the
     * largest disagreement with the tool's counts ({@link io.msgscope.analysis.BacklogAnalysis#disagreement}) in
     * messages and as % of the tool's {@code peak} (null when the peak is 0 or unknown), and the widest sent − confirmed
     * at a read (null without confirms); null when nothing was read ({@code agreement} null, as
     * {@link io.msgscope.analysis.BacklogAnalysis#agreement} gives it).
     *
     * @param comparedWith the tool's count the reads were compared with, in words ("sent - received")
     * @param held         what the paused consumer may hold uncounted by the broker, allowed for; null when unbounded
     */
    public static Map<String, Object> brokerView(long[] agreement, Long peak, String comparedWith, Long held) {
        if (agreement == null) {
            return null;
        }
        boolean confirmed = comparedWith.contains("confirmed"); // trace mode's and scenario mode's brackets
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", agreement[0]);
        m.put("peak_messages", agreement[1]);
        m.put("compared_with", comparedWith);
        m.put("consumer_holds_up_to", held);
        m.put("max_unconfirmed_messages", confirmed ? agreement[3] : null);
        m.put("max_disagreement_messages", agreement[2]);
        m.put("max_disagreement_pct_of_peak", peak == null || peak == 0 ? null : 100.0 * agreement[2] / peak);
        return m;
    }
}

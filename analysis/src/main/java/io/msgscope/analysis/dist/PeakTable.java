package io.msgscope.analysis.dist;

import io.msgscope.analysis.output.HumanFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * The console table of {@link PeakAnalysis}'s result (M11), as {@link PeakPlots} writes its files: the analysis
 * computes, this class only formats (issue 15).
 */
public final class PeakTable {

    private PeakTable() {
    }

    /**
     * A short table for people:
     * <pre>
     * 10,000 messages, median 150 µs, highest 1.5 ms (message 12); first/last 5 % = 500 messages
     * above         messages  share     highest  first 5 %  middle  last 5 %
     * 2 × = 300 µs       312  3.12 %    1.5 ms         290      20         2
     * </pre>
     */
    public static String of(PeakAnalysis.Result r) {
        StringBuilder t = new StringBuilder(256);
        t.append(HumanFormat.count(r.length())).append(" messages");
        if (r.present() != r.length()) {
            t.append(" (").append(HumanFormat.count(r.present())).append(" with a latency)");
        }
        if (r.present() == 0) {
            return t.append(", no latency values\n").toString();
        }
        t.append(", median ").append(HumanFormat.duration(r.medianNs())).append(", highest ")
                .append(HumanFormat.duration(r.maxNs())).append(" (message ").append(r.maxIndex()).append(")")
                .append("; first/last 5 % = ").append(HumanFormat.count(r.firstEnd())).append(" messages\n");
        String[] head = {"above", "messages", "share", "highest", "first 5 %", "middle", "last 5 %"};
        List<String[]> rows = new ArrayList<>();
        rows.add(head);
        for (PeakAnalysis.Exceedance e : r.exceedances()) {
            rows.add(new String[] {
                Num.threeFigures(e.factor()) + " × = " + HumanFormat.duration(e.thresholdNs()),
                HumanFormat.count(e.count()),
                Num.threeFigures(100.0 * e.count() / r.present()) + " %",
                e.count() == 0 ? "-" : HumanFormat.duration(e.maxNs()),
                HumanFormat.count(e.inFirst()),
                HumanFormat.count(e.inMiddle()),
                HumanFormat.count(e.inLast())
            });
        }
        int[] width = new int[head.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                if (i > 0) {
                    t.append("  ");
                }
                String cell = row[i];
                String pad = " ".repeat(width[i] - cell.length());
                t.append(i == 0 ? cell + pad : pad + cell);
            }
            t.append('\n');
        }
        return t.toString();
    }
}

package io.msgscope.coordinator.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code compare.html} (issue 29): the page of {@code msgscope compare --out DIR}, self-contained like the report
 * (inline CSS, images by relative path, no scripts): the table compare prints, as an HTML table, its notes, and the
 * plots that were rendered ({@code compare.png}, {@code compare-latency.png}).
 */
public final class ComparePage {
    public static final String FILE = "compare.html";
    private static final List<String> PLOTS = List.of("compare.png", "compare-latency.png");

    private ComparePage() {
    }

    /** Writes dir/compare.html from the Markdown compare prints (its table and the lines around it). */
    public static Path write(Path dir, String markdown) throws IOException {
        Html h = new Html();
        h.el("h1", "msgscope compare");
        List<String> head = null;
        List<List<String>> rows = new ArrayList<>();
        for (String line : markdown.lines().toList()) {
            String t = line.strip();
            if (t.startsWith("|") && t.endsWith("|") && t.length() > 1) {
                List<String> cells = Arrays.stream(t.substring(1, t.length() - 1).split("(?<!\\\\)\\|", -1))
                        .map(c -> c.strip().replace("\\|", "|")).toList();
                if (head == null) {
                    head = cells;
                } else if (!cells.stream().allMatch(c -> c.matches(":?-+:?"))) {
                    rows.add(cells);
                }
            } else if (!t.isEmpty()) {
                flush(h, head, rows);
                head = null;
                rows = new ArrayList<>();
                if (t.startsWith("## ")) { // the verdict's section (issue 34)
                    h.el("h2", t.substring(3));
                } else {
                    h.el("p", t.startsWith("(") && t.endsWith(")") ? t.substring(1, t.length() - 1) : t);
                }
            }
        }
        flush(h, head, rows);
        h.el("h2", "Plots");
        boolean any = false;
        for (String png : PLOTS) {
            if (HtmlReport.isPng(dir.resolve(png))) {
                h.img(png, png);
                any = true;
            }
        }
        if (!any) {
            h.el("p", "No plots: run compare with --plot (needs gnuplot), or 'msgscope plot " + dir + "'.");
        }
        Path page = dir.resolve(FILE);
        Files.writeString(page, Html.page("msgscope compare", h.toString()), StandardCharsets.UTF_8);
        return page;
    }

    private static void flush(Html h, List<String> head, List<List<String>> rows) {
        if (head != null) {
            h.table(head, rows);
        }
    }
}

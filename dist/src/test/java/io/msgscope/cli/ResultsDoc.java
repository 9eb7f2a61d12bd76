package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/results.md's table of files held to what the tool writes (issue 29): the files a row names exist in a
 * results folder, and trace.dat's header has the columns the row lists, in its order.
 */
final class ResultsDoc {
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private ResultsDoc() {
    }

    /** The row of results.md's file table whose first cell names {@code file} (the tests run in dist/). */
    static String row(String file) throws IOException {
        String md = Files.readString(Path.of("..", "docs", "results.md"), StandardCharsets.UTF_8);
        for (String line : md.lines().toList()) {
            if (line.startsWith("| ") && line.indexOf(" |", 2) > 0
                    && codeSpans(line.substring(2, line.indexOf(" |", 2))).contains(file)) {
                return line;
            }
        }
        throw new AssertionError("docs/results.md has no row for " + file);
    }

    /** The file names of the row that names {@code file}, as its first cell lists them. */
    static List<String> files(String file) throws IOException {
        String r = row(file);
        return codeSpans(r.substring(2, r.indexOf(" |", 2)));
    }

    /** The column names the row of {@code file} lists (lower-case words in code spans), in order. */
    static List<String> columns(String file) throws IOException {
        String r = row(file);
        List<String> cols = new ArrayList<>();
        for (String span : codeSpans(r.substring(r.indexOf(" |", 2) + 2))) {
            for (String w : span.split(" ")) {
                if (w.matches("[a-z][a-z0-9_]*")) {
                    cols.add(w);
                }
            }
        }
        return cols;
    }

    /** Every column of {@code header} is one results.md lists for {@code file}, in the order it lists them. */
    static void assertDocumentedColumns(String file, List<String> header) throws IOException {
        List<String> documented = columns(file);
        int at = -1;
        for (String c : header) {
            int i = documented.indexOf(c);
            assertTrue(i >= 0, () -> "docs/results.md does not list " + file + "'s column " + c + ": " + documented);
            assertTrue(i > at, () -> "docs/results.md lists " + file + "'s column " + c + " out of order: " + documented);
            at = i;
        }
    }

    /** Every file the row of {@code file} names exists in {@code dir}. */
    static void assertFilesWritten(String file, Path dir) throws IOException {
        List<String> names = files(file);
        assertTrue(names.size() > 1, names::toString);
        for (String n : names) {
            assertTrue(Files.isRegularFile(dir.resolve(n)), () -> "docs/results.md names " + n + ", not written in " + dir);
        }
        assertEquals(names.size(), names.stream().distinct().count(), names::toString);
    }

    private static List<String> codeSpans(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = CODE.matcher(s);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}

package io.msgscope.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.msgscope.coordinator.results.Json;
import io.msgscope.coordinator.results.ResultsFolder;
import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.Version;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Golden files for every mode's summary.json on fixed inputs (issue 15): the result pipeline may be reorganised, but
 * every field, its order and its number formatting stay as they are, whatever the default locale. Each mode's
 * {@code *GoldenTest} uses this; regenerate after an intended change with {@code -Dmsgscope.golden.update=true} and
 * read the diff.
 */
public final class Golden {
    /** A fixed environment: the golden files do not depend on the machine that runs the test. */
    public static final EnvironmentInfo ENV = new EnvironmentInfo("OpenJDK 64-Bit Server VM 17.0.15", "Linux 6.1 amd64",
            "Test CPU @ 2.0GHz", 2, 1, "golden-host", "00000000-0000-0000-0000-000000000000");

    private Golden() {
    }

    /** The locales every golden file is checked in: decimal commas, Turkish case rules, Arabic and Devanagari digits. */
    public static List<String> locales() {
        return List.of("ROOT", "de-DE", "fr-FR", "tr-TR", "ar-EG", "hi-IN");
    }

    public interface Body {
        void run() throws Exception;
    }

    public static void inLocale(String tag, Body body) throws IOException {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(tag.equals("ROOT") ? Locale.ROOT : Locale.forLanguageTag(tag));
            body.run();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            Locale.setDefault(saved);
        }
    }

    /** summary.json as written, the tool's version replaced by {@code VERSION} so a release does not break it. */
    public static void assertGolden(Path dir, String golden, Map<String, Object> summary) throws IOException {
        Path file = dir.resolve(golden);
        Json.write(file, summary);
        assertGolden(golden, file);
    }

    public static void assertGolden(String golden, Path file) throws IOException {
        String got = masked(Files.readString(file, StandardCharsets.UTF_8));
        if (Boolean.getBoolean("msgscope.golden.update")) {
            Path src = Path.of("src/test/resources/io/msgscope/coordinator/golden", golden);
            Files.writeString(src, got, StandardCharsets.UTF_8);
        }
        try (InputStream in = Golden.class.getResourceAsStream("golden/" + golden)) {
            assertNotNull(in, "missing golden file " + golden + " (run with -Dmsgscope.golden.update=true)");
            assertEquals(new String(in.readAllBytes(), StandardCharsets.UTF_8), got, golden + " differs");
        }
    }

    /** What a mode's folder golden test writes into the reserved folder {@code dir}. */
    public interface FolderWriter {
        void write(Path dir, ResultsFolder folder) throws Exception;
    }

    /**
     * A mode's whole write path against its golden folder {@code MODE-folder}, in the default locale {@code locale}
     * (issue 30): reserves {@code tmp/MODE-golden-LOCALE} with the header {@code mode: MODE}, lets {@code writer} fill
     * it as a run would, and compares every file ({@link #assertGoldenFolder(String, Path)}).
     */
    public static void assertModeFolder(Path tmp, String mode, String locale, FolderWriter writer) throws IOException {
        inLocale(locale, () -> {
            Path dir = tmp.resolve(mode + "-golden-" + locale);
            Map<String, Object> header = new LinkedHashMap<>();
            header.put("mode", mode);
            writer.write(dir, ResultsFolder.reserve(dir, header));
            assertGoldenFolder(mode + "-folder", dir);
        });
    }

    /** How a folder golden test masks a file's bytes (by its name) before comparing them. */
    public interface Mask {
        byte[] apply(String name, byte[] bytes) throws IOException;
    }

    /**
     * Every file a mode wrote into {@code dir} against the golden folder {@code golden} (issue 30): the same names, and
     * each file's bytes the same, but for the tool's version (as {@link #assertGolden(String, Path)}) and an
     * HdrHistogram log's human-readable start date, which follows the default time zone.
     */
    public static void assertGoldenFolder(String golden, Path dir) throws IOException {
        assertGoldenFolder(golden, dir, Golden::maskedBytes);
    }

    /**
     * Every file in {@code dir} against the golden folder {@code golden}, each masked by {@code mask}: the same names
     * and the same bytes. With {@code -Dmsgscope.golden.update=true} the golden folder is written afresh (files no
     * longer written are removed) and compared against itself.
     */
    public static void assertGoldenFolder(String golden, Path dir, Mask mask) throws IOException {
        String[] names = names(dir);
        Path src = Path.of("src/test/resources/io/msgscope/coordinator/golden", golden);
        boolean update = Boolean.getBoolean("msgscope.golden.update");
        if (update) {
            if (Files.isDirectory(src)) {
                for (String old : names(src)) {
                    Files.delete(src.resolve(old));
                }
            }
            Files.createDirectories(src);
            for (String n : names) {
                Files.write(src.resolve(n), mask.apply(n, Files.readAllBytes(dir.resolve(n))));
            }
        }
        Path want = update ? src : resource(golden);
        assertEquals(List.of(names(want)), List.of(names), golden + ": the files written differ");
        for (String n : names) {
            byte[] got = mask.apply(n, Files.readAllBytes(dir.resolve(n)));
            byte[] exp = Files.readAllBytes(want.resolve(n));
            if (!Arrays.equals(exp, got)) {
                assertEquals(new String(exp, StandardCharsets.UTF_8), new String(got, StandardCharsets.UTF_8),
                        golden + "/" + n + " differs");
                throw new AssertionError(golden + "/" + n + " differs in its bytes");
            }
        }
    }

    private static Path resource(String golden) throws IOException {
        java.net.URL url = Golden.class.getResource("golden/" + golden);
        assertNotNull(url, "missing golden folder " + golden + " (run with -Dmsgscope.golden.update=true)");
        try {
            return Path.of(url.toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static String[] names(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    private static byte[] maskedBytes(String name, byte[] b) {
        if (name.endsWith(".json") || name.endsWith(".hlog") || name.endsWith(".csv") || name.endsWith(".md")) {
            return masked(new String(b, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        }
        return b;
    }

    private static String masked(String text) {
        return text
                .replaceAll("(#\\[StartTime: [^,]*, )[^\\]]*\\]", "$1DATE]")
                .replace("\"version\" : \"" + Version.TOOL + "\"", "\"version\" : \"VERSION\"")
                .replace("\"msgscope " + Version.TOOL + "\"", "\"msgscope VERSION\"")
                .replace("msgscope " + Version.TOOL + ",", "msgscope VERSION,") // summary.csv's tool cell
                .replace("| msgscope " + Version.TOOL + " |", "| msgscope VERSION |"); // summary.md's
    }
}

package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** msgscope report on a real small run, opened in a real headless Chromium. */
class ReportIT {
    private static final Pattern IMG = Pattern.compile("<img src=\"([^\"]+)\"");

    @TempDir
    Path tmp;

    static Path chromium() {
        String path = System.getenv("PATH");
        for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
            for (String n : new String[] {"chromium", "chromium-browser"}) {
                Path c = Path.of(d, n);
                if (Files.isExecutable(c)) {
                    return c;
                }
            }
        }
        return null;
    }

    @Test
    void reportOfARealRunOpensInHeadlessChromiumWithEveryImage() throws Exception {
        Path chromium = chromium();
        boolean ci = "true".equals(System.getenv("CI"));
        if (chromium == null && ci) {
            fail("chromium must be installed under CI (.ci/run installs it)");
        }
        Assumptions.assumeTrue(chromium != null, "chromium not installed (apt-get install chromium): report not opened");
        if (!TraceRunIT.gnuplotOnPath() && ci) {
            fail("gnuplot-nox must be installed under CI (.ci/run installs it)");
        }
        Assumptions.assumeTrue(TraceRunIT.gnuplotOnPath(), "gnuplot not installed: the report would have no images");

        Path run = tmp.resolve("run <&> 1");
        MsgscopeProcess r = MsgscopeProcess.start(tmp.resolve("w1"), "run", "--count", "20000", "--rate", "20000",
                "--warmup", "10000", "--out", run.toString());
        assertEquals(0, r.waitFor(300), () -> TraceRunIT.safe(r::err));
        MsgscopeProcess rep = MsgscopeProcess.start(tmp.resolve("w2"), "report", run.toString());
        assertEquals(0, rep.waitFor(300), () -> TraceRunIT.safe(rep::err));
        Path index = run.resolve("index.html");
        String html = Files.readString(index, StandardCharsets.UTF_8);

        List<String> imgs = new ArrayList<>();
        Matcher m = IMG.matcher(html);
        while (m.find()) {
            imgs.add(m.group(1));
        }
        assertTrue(imgs.containsAll(List.of("latency.png", "latency-histogram.png", "throughput.png", "cpu.png")),
                imgs::toString);
        for (String src : imgs) {
            assertFalse(src.contains(":") || src.startsWith("/"), "relative path: " + src);
            Path f = run.resolve(java.net.URLDecoder.decode(src, StandardCharsets.UTF_8));
            byte[] b = Files.readAllBytes(f);
            assertTrue(b.length > 8 && (b[0] & 0xff) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G', src + " is a PNG");
        }
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(html.contains("http://") || html.contains("https://"), "no network references");

        String url = index.toUri().toString();
        Path profile = Files.createDirectories(tmp.resolve("profile"));
        Path dom = tmp.resolve("dom.html");
        int code = chromium(chromium, profile, dom, "--dump-dom", url);
        String dumped = Files.readString(dom, StandardCharsets.UTF_8);
        assertEquals(0, code, dumped);
        assertTrue(dumped.contains("<h1>msgscope trace run &lt;&amp;&gt; 1</h1>"), dumped.length() > 2000
                ? dumped.substring(0, 2000) : dumped);
        assertTrue(dumped.contains("Latency distribution") && dumped.contains("Run spec (to reproduce)"));
        assertEquals(imgs.size(), IMG.matcher(dumped).results().count(), "every image in the loaded DOM");
        Path shot = tmp.resolve("shot.png");
        assertEquals(0, chromium(chromium, profile, tmp.resolve("shot.log"), "--screenshot=" + shot,
                "--window-size=1280,4000", url));
        byte[] s = Files.readAllBytes(shot);
        assertTrue(s.length > 10_000 && s[1] == 'P' && s[2] == 'N' && s[3] == 'G', "screenshot taken");
    }

    static int chromium(Path chromium, Path profile, Path stdout, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile())
                .redirectError(stdout.resolveSibling(stdout.getFileName() + ".err").toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("chromium did not finish within 120 s");
        }
        return p.exitValue();
    }
}

package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The class-data sharing archive dist/pom.xml dumps beside the jar (docs/development.md, "Start-up time"): it is
 * there, it maps, its class list still names this jar's classes, and a run's local agents start with it.
 */
class ClassDataSharingIT {
    /** How a JVM's {@code -Xlog:class+load} names a class mapped from an archive rather than read from the jar. */
    private static final String FROM_ARCHIVE = "source: shared objects file";

    @TempDir
    Path tmp;

    private static Path archive() {
        Path archive = MsgscopeProcess.sharingArchive();
        assertNotNull(archive, "no dist/target/msgscope.jsa newer than msgscope.jar: the package phase's dump failed, "
                + "see dist/target/msgscope.jsa.log");
        return archive;
    }

    @Test
    void theArchiveMapsAndHoldsMsgscopesOwnClasses() throws Exception {
        Path log = tmp.resolve("version.txt");
        // -Xshare:on: a JVM that cannot map the archive exits instead of starting without it
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:on",
                "-XX:SharedArchiveFile=" + archive(), "-Xlog:class+load", "-jar", MsgscopeProcess.jar().toString(), "--version")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("io.msgscope.cli.Main " + FROM_ARCHIVE), "Main is not mapped from the archive:\n"
                + out.lines().filter(l -> l.contains("io.msgscope")).limit(5).toList());
    }

    @Test
    void theClassListNamesOnlyClassesTheJarStillHas() throws Exception {
        // the dump's own report: every listed class it could not find in the jar or the JDK
        List<String> missing = Files.readAllLines(MsgscopeProcess.jar().resolveSibling("msgscope.jsa.log"))
                .stream().filter(l -> l.contains("Cannot find")).toList();
        List<String> listed = Files.readAllLines(Path.of(System.getProperty("user.dir"), "cds", "classes.lst"));
        List<String> ours = missing.stream().filter(l -> l.contains("io/msgscope/")).toList();
        assertTrue(ours.isEmpty(), () -> ours.size() + " of msgscope's classes in dist/cds/classes.lst are gone "
                + "(renamed or removed): run dist/cds/classlist.sh\n" + String.join("\n", ours.subList(0, Math.min(5, ours.size()))));
        // a library upgrade renames a few of its classes: the list is stale once more than 1 % are gone
        assertTrue(missing.size() * 100 <= listed.size(), () -> missing.size() + " of " + listed.size()
                + " classes in dist/cds/classes.lst are gone: run dist/cds/classlist.sh\n"
                + String.join("\n", missing.subList(0, Math.min(5, missing.size()))));
    }

    @Test
    void aRunsLocalAgentsStartWithTheArchiveAndTheUsersAgentOptions() throws Exception {
        archive();
        Path out = tmp.resolve("run");
        // MSGSCOPE_AGENT_JAVA_OPTS reaches every agent, {role} replaced: each logs its class loading to its own file
        MsgscopeProcess p = MsgscopeProcess.start(Map.of("MSGSCOPE_AGENT_JAVA_OPTS",
                        "-Xlog:class+load:file=" + tmp.resolve("{role}-classes.log")), tmp.resolve("work"),
                "run", "--count", "2000", "--rate", "2000", "--warmup", "100", "--out", out.toString());
        assertEquals(0, p.waitFor(180), () -> TraceRunIT.safe(p::out) + TraceRunIT.safe(p::err));
        List<String> notMapped = new ArrayList<>();
        for (String role : List.of("sender", "relay", "receiver")) {
            Path log = tmp.resolve(role + "-classes.log");
            assertTrue(Files.isRegularFile(log), role + ": MSGSCOPE_AGENT_JAVA_OPTS did not reach it");
            String text = Files.readString(log, StandardCharsets.UTF_8);
            if (!text.contains("io.msgscope.cli.Main " + FROM_ARCHIVE)) {
                notMapped.add(role);
            }
        }
        assertTrue(notMapped.isEmpty(), "agents started without the archive: " + notMapped);
    }
}

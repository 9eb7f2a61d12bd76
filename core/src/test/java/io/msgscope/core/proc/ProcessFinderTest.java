package io.msgscope.core.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessFinderTest {
    @TempDir
    Path root;

    private void process(long pid, String comm, String... argv) throws IOException {
        Path dir = Files.createDirectories(root.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        StringBuilder cmd = new StringBuilder();
        for (String a : argv) {
            cmd.append(a).append('\0');
        }
        Files.write(dir.resolve("cmdline"), cmd.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void fakeProc() throws IOException {
        process(1, "systemd", "/sbin/init", "splash");
        process(2, "kthreadd");
        process(100, "mosquitto", "/usr/sbin/mosquitto", "-c", "/etc/mosquitto/mosquitto.conf");
        process(2301, "mosquitto", "mosquitto", "-p", "1884");
        process(200, "beam.smp", "/usr/lib/erlang/erts-13.1.5/bin/beam.smp", "-W", "w", "--", "-root");
        process(300, "java", "/usr/bin/java", "-jar", "mosquitto.jar");
        process(400, "my (weird) proc", "./my (weird) proc");
        process(600, "nats-worker", "./nats-server", "-p", "4222");
        process(700, "rabbitmq-server", "/bin/sh", "/usr/sbin/rabbitmq-server-launcher");
        Files.createDirectories(root.resolve("900")); // vanished: no comm
        Files.createDirectories(root.resolve("net"));
        Files.writeString(root.resolve("stat"), "cpu  1 2 3 4\n");
        Files.createDirectories(root.resolve("self"));
    }

    @Test
    void matchesCommOrArgv0Basename() throws IOException {
        fakeProc();
        ProcessFinder.Result r = ProcessFinder.byName(root, "mosquitto");
        assertEquals(List.of(100L, 2301L), r.pids());
        assertEquals(9, r.scanned());
        assertEquals(List.of(200L), ProcessFinder.byName(root, "beam.smp").pids());
        assertEquals(List.of(400L), ProcessFinder.byName(root, "my (weird) proc").pids());
        assertEquals(List.of(600L), ProcessFinder.byName(root, "nats-server").pids());
        assertEquals(List.of(), ProcessFinder.byName(root, "nats").pids());
        assertEquals(List.of(), ProcessFinder.byName(root, "sbin").pids());
        // comm keeps 15 bytes
        assertEquals(List.of(700L), ProcessFinder.byName(root, "rabbitmq-server-launcher").pids());
        assertThrows(IllegalArgumentException.class, () -> ProcessFinder.byName(root, ""));
    }

    @Test
    void noMatchSaysWhatWasSearched() throws IOException {
        fakeProc();
        ProcessFinder.Result r = ProcessFinder.byName(root, "nats-streaming");
        assertTrue(r.pids().isEmpty());
        assertEquals("no process named 'nats-streaming' among 9 processes (searched " + root
                + "/*/comm and argv[0])", r.noMatchMessage());
    }

    @Test
    void argv0Basename() {
        assertEquals("beam.smp", ProcessFinder.argv0Basename("/usr/bin/beam.smp\0-W\0".getBytes()));
        assertEquals("x", ProcessFinder.argv0Basename("x".getBytes()));
        assertEquals("", ProcessFinder.argv0Basename(new byte[0]));
        assertEquals(-1, ProcessFinder.parsePid("self"));
        assertEquals(123, ProcessFinder.parsePid("123"));
    }

    @Test
    void findsThisJvmOnTheLiveSystem() throws IOException {
        Path proc = Path.of("/proc");
        long self = ProcessHandle.current().pid();
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(proc.resolve(self + "/comm")), "Linux only");
        String comm = Files.readString(proc.resolve(self + "/comm")).strip();
        ProcessFinder.Result r = ProcessFinder.byName(proc, comm);
        assertTrue(r.pids().contains(self), r.toString());
        assertTrue(r.scanned() > 1, r.toString());
    }
}

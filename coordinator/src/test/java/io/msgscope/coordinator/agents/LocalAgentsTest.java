package io.msgscope.coordinator.agents;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How an agent that never reported its control port is described (issue 16: a killed sender was called slow). */
class LocalAgentsTest {
    @TempDir
    Path dir;

    @Test
    void anAgentKilledDuringStartUpIsNamedWithItsSignalAndLastLogLine() throws Exception {
        Path log = dir.resolve("agent-sender.log");
        Files.writeString(log, "loading drivers\n\n");
        Process p = new ProcessBuilder("sh", "-c", "kill -9 $$").start();
        String why = LocalAgents.startFailure(p, log, new ExecutionException(new java.io.IOException("agent output ended")), 30_000);
        assertEquals("agent process " + p.pid() + " was killed by signal 9 (SIGKILL) (exit code 137)"
                + " (agent-sender.log: loading drivers) before it reported its control port", why);
    }

    @Test
    void anAgentThatExitsIsNamedWithItsExitCode() throws Exception {
        Path log = dir.resolve("agent-receiver.log");
        Process p = new ProcessBuilder("sh", "-c", "exit 3").start();
        String why = LocalAgents.startFailure(p, log, new ExecutionException(new java.io.IOException("agent output ended")), 30_000);
        assertEquals("agent process " + p.pid() + " exited with code 3 before it reported its control port", why);
    }

    @Test
    void onlyAnAgentStillRunningIsSaidToBeLateAndItIsKilled() throws Exception {
        Path log = dir.resolve("agent-relay.log");
        Process p = new ProcessBuilder("sleep", "60").start();
        String why = LocalAgents.startFailure(p, log, new TimeoutException(), 30_000);
        assertEquals("did not report its control port within 30000 ms (process " + p.pid() + " killed)", why);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertFalse(p.isAlive());
    }

    @Test
    void exitStatusesAboveOneHundredTwentyEightNameTheSignal() {
        assertEquals("was killed by signal 15 (SIGTERM) (exit code 143)", LocalAgents.Agent.exitStatus(143));
        assertEquals("was killed by signal 10 (exit code 138)", LocalAgents.Agent.exitStatus(138));
        assertEquals("exited with code 1", LocalAgents.Agent.exitStatus(1));
        assertEquals("exited with code 200", LocalAgents.Agent.exitStatus(200));
    }

    @Test
    void theLaunchersSharingArchiveAndTheUsersOptionsReachEveryAgent() {
        assertEquals(java.util.List.of("-XX:SharedArchiveFile=/o/msgscope.jsa", "-Xlog:cds=off", "-Dmsgscope.cds=/o/msgscope.jsa",
                        "-XX:DumpLoadedClassList=/tmp/relay.lst", "-Dx=1"),
                LocalAgents.extraJvmArgs("/o/msgscope.jsa", "  -XX:DumpLoadedClassList=/tmp/{role}.lst \t -Dx=1 ", "relay"));
        assertEquals(java.util.List.of(), LocalAgents.extraJvmArgs(null, null, "sender"));
        assertEquals(java.util.List.of(), LocalAgents.extraJvmArgs(" ", "", "sender"));
    }
}

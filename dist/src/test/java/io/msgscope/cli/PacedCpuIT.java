package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 27 item 6: at a fixed rate the sender parks until each send time and spins the last 50 µs, CPU that is
 * waiting, not work. Through the relay at 10,000 msg/s its work per message stays near the full-speed figure,
 * and the waiting carries the rest; the console names both.
 */
class PacedCpuIT {
    @TempDir
    Path tmp;

    private JsonNode run(String name, String... load) throws Exception {
        Path out = tmp.resolve(name);
        String[] args = new String[load.length + 3];
        args[0] = "run";
        System.arraycopy(load, 0, args, 1, load.length);
        args[load.length + 1] = "--out";
        args[load.length + 2] = out.toString();
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve(name + "-cli"), args);
        JsonNode s = p.awaitOkSummary(out, 180);
        if (name.equals("paced")) {
            assertTrue(p.out().contains("sender thread CPU per message: ") && p.out().contains(" work + ")
                    && p.out().contains(" waiting for the send times"), p.out());
        } else {
            assertTrue(!p.out().contains("waiting for the send times"), "no pacing, no waiting line: " + p.out());
        }
        return s.at("/cpu/sender/time_weighted");
    }

    @Test
    void atAFixedRateTheSendersWorkIsNearFullSpeedAndTheWaitingCarriesTheRest() throws Exception {
        JsonNode full = run("full", "--count", "200000", "--cpu-every", "1000");
        JsonNode paced = run("paced", "--count", "50000", "--rate", "10000", "--warmup", "5000", "--cpu-every", "500");
        double fullWork = full.get("work_ns_per_message").asDouble();
        assertEquals(0.0, full.get("waiting_ns_per_message").asDouble(), "at full speed nothing is waited");
        assertEquals(full.get("cpu_ns_per_message").asDouble(), fullWork, 1e-6);

        double all = paced.get("cpu_ns_per_message").asDouble();
        double work = paced.get("work_ns_per_message").asDouble();
        double waiting = paced.get("waiting_ns_per_message").asDouble();
        System.out.printf("sender CPU per message: full speed %.0f ns; at 10,000 msg/s %.0f ns = %.0f work + %.0f "
                + "waiting%n", fullWork, all, work, waiting);
        assertEquals(all, work + waiting, 1e-6, "work + waiting = all");
        assertTrue(work > 0 && waiting > 0, paced.toString());
        // a paced send costs more than one at full speed: on loopback the sender's write also runs the relay's receive
        // path and wakes its thread, asleep between messages at this rate (awake at full speed), and the caches are
        // cold after a park. How much more is the machine's wake-up cost, not the tool's: 9.2 µs on 2026-11-26, 15.8
        // on 2026-11-27, 20-23 µs on 2026-11-29 on this VM (the commit that landed green two days before measured 23
        // here too), so no bound in µs is asserted (a timed assertion in disguise); the split is what is checked:
        assertTrue(work >= 0.5 * fullWork, "paced work " + work + " ns per message against " + fullWork
                + " ns at full speed: a paced send is no cheaper than one at full speed");
        // the waiting is a large share of it (2026-11-26: 24.9 of 34.1 µs; 2026-11-27 on slower machines 15.5 of
        // 31.3 µs, as the work grew to 15.8): without the split it would be none
        assertTrue(waiting > 0.25 * all, "the pacing's waiting carries a large share of it: " + waiting + " ns of "
                + all + " (work " + work + ")");
    }
}

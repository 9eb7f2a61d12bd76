package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backlog built and drained through the real CLI (issue 31 item 3): the consumers pause for a phase of 20,000
 * messages, the broker keeps them, none arrives before the consumers resume, and every one arrives after; drivers that
 * cannot keep a backlog, and backlog phases that could never end, are refused with one line before anything runs.
 */
class BacklogIT {
    /** 1 s at 2,000 msg/s, 20,000 messages at 10,000 msg/s (2 s) with the consumers paused, 2 s at 2,000: 26,000. */
    static final String PHASES = "base:1s@2k, fill:20kmsg@10k/paused, drain:2s@2k";

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "amqp, amqp://guest:guest@127.0.0.1:5672/%2f, prefetch=100 confirm=50000, 5672, RabbitMQ, 100",
            "nats, nats://127.0.0.1:4222, jetstream=true consumer=pull, 4222, nats-server, 0"})
    void theBrokerKeepsTheBacklogUntilTheConsumersResume(String driver, String uri, String opts, int port,
                                                         String broker, long held) throws Exception {
        DriverRunIT.requireBroker(port, broker);
        Path out = tmp.resolve(driver);
        List<String> args = new ArrayList<>(List.of("run", "--driver", driver, "--uri", uri, "--phases", PHASES,
                "--warmup", "2000", "--out", out.toString()));
        for (String o : opts.split(" ")) {
            args.add("--opt");
            args.add(o);
        }
        JsonNode s = PhasesIT.run(tmp, out, args.toArray(String[]::new));
        assertEquals("ok", s.get("status").asText(), s::toString);
        assertEquals(26_000, s.get("counters").get("messages_received").asLong(), s::toString);
        JsonNode phases = s.get("phases");
        assertEquals(20_000, phases.get(1).get("messages_scheduled").asLong());
        assertEquals(20_000, phases.get(1).get("messages_received").asLong());
        assertTrue(phases.get(1).get("consumers_paused").asBoolean(), phases::toString);
        assertTrue(!phases.get(2).get("consumers_paused").asBoolean(), phases::toString);
        // the backlog section: 20,000 sent with the consumers paused, plus what was in flight at the pause and what left
        // at the resume before the first arrival — less what a sender behind its schedule had not yet sent when the
        // consumers resumed on time (seen: 19,574 at load 13); all drained, at some rate
        JsonNode b = s.get("backlog").get(0);
        assertEquals("fill", b.get("phases").get(0).asText());
        long peak = b.get("peak_messages").asLong();
        assertTrue(peak >= 15_000 && peak <= 20_500, b::toString);
        assertTrue(b.get("drained_at_s").asDouble() >= b.get("resumed_at_s").asDouble(), b::toString);
        assertTrue(b.get("drain_msg_s").asDouble() > 2_000, b::toString);
        assertTrue(b.get("catch_up_bound_us").asDouble() > 0, b::toString);
        assertTrue(b.has("time_to_catch_up_s"), b::toString);
        // the strict figure beside it: when the last message above the bound arrived (null only with a loss: none here)
        JsonNode lastAbove = b.get("last_arrival_above_bound_s");
        assertTrue(lastAbove.isNumber() && lastAbove.asDouble() >= 0, b::toString);
        // the broker's own count, read 10 times a second: it saw the backlog. How closely it agrees with the tool's
        // count is the benchmark's (benchmarks/scripts/backlog.sh, on a quiet box): on a loaded one the broker may
        // enqueue more than a second behind the sends (seen: 70 % of the peak on RabbitMQ at load 14), so only that
        // the figure is there and below the whole backlog
        JsonNode view = b.get("broker_view");
        assertTrue(view.get("samples").asLong() >= 20, view::toString);
        assertTrue(view.get("peak_messages").asLong() >= 15_000, view::toString);
        assertTrue(view.get("max_disagreement_pct_of_peak").asDouble() < 100, view::toString);
        // both publishers confirm (a publisher confirm window wider than the run, so it never holds the sender back; a
        // JetStream publish ack): a read agrees between confirmed - received less what the paused consumer holds
        // uncounted (RabbitMQ: the prefetch; JetStream counts it) and sent - received
        assertEquals("confirmed - received .. sent - received", view.get("compared_with").asText(), view::toString);
        assertEquals(held, view.get("consumer_holds_up_to").asLong(), view::toString);
        List<String> reads = Files.readAllLines(out.resolve("backlog.dat"));
        assertTrue(reads.size() > 30);
        // the figure by hand from backlog.dat: each read from the pause on against that interval
        long worst = 0;
        long open = 0;
        double pausedAt = b.get("paused_at_s").asDouble();
        for (String r : reads.subList(2, reads.size())) {
            String[] f = r.split(" ");
            if (Double.parseDouble(f[0]) >= pausedAt) {
                long depth = Long.parseLong(f[1]);
                long sent = Long.parseLong(f[2]);
                long accepted = Long.parseLong(f[3]);
                long hi = Math.max(sent, accepted);
                worst = Math.max(worst, depth > hi ? depth - hi : Math.max(0, accepted - held - depth));
                open = Math.max(open, sent - accepted);
            }
        }
        assertEquals(open, view.get("max_unconfirmed_messages").asLong(), view::toString);
        assertEquals(worst, view.get("max_disagreement_messages").asLong(), view::toString);
        // the last read is taken after the last arrival: the tool counts nothing in flight (the broker, whose count
        // may trail by the acknowledgements on their way, is not asserted)
        assertNothingInFlightAtTheLastRead(reads.get(reads.size() - 1));
        assertTrue(Files.exists(out.resolve("backlog.gp")));
        // the backlog stays in the broker until the consumers resume, at the end of fill on the timeline — the due
        // time of drain's first message, 22,000 —: no message of fill arrives more than 20 ms before it (the receiver
        // switches up to 1 ms early; a poll under way at the pause's start may still hand over what was sent in its
        // first millisecond or two on a loaded box: at most 100 messages, 10 ms at 10,000 msg/s). Measured from the
        // timeline, not from fill's last send: a sender behind its schedule on a loaded box sends fill's last
        // messages after the resume (the suite of 2026-11-29 saw 5,954 arrive before a last send 0.6 s late)
        long[][] fill = rows(out.resolve("trace.dat"), 2_000, 22_001);
        long resumeAt = fill[fill.length - 1][3];
        long early = 0;
        for (int i = 0; i < fill.length - 1; i++) {
            early += fill[i][2] < resumeAt - 20_000_000L ? 1 : 0;
        }
        long n = early;
        assertTrue(early <= 100, () -> n + " messages of fill arrived while the consumers were paused");
    }

    /**
     * A phase that lasts until drained, then more load (issue 31): 2,000 messages at 2,000 msg/s, 10,000 at 10,000
     * msg/s with the consumer paused, a drain of at most 30 s with publishing stopped, 4,000 at 2,000 msg/s. The drain
     * ends when its backlog has arrived, and the last phase starts then: by hand from trace.dat, the first message of
     * the last phase is due (intended_ns) at the drain's end as summary.json gives it, after every message before it
     * arrived, and soon after the last of them (the receiver's word through the coordinator to the sender).
     */
    @Test
    void aDrainPhaseEndsWhenItsBacklogArrivedAndTheNextPhaseStartsThen() throws Exception {
        DriverRunIT.requireBroker(5672, "RabbitMQ");
        Path out = tmp.resolve("drained");
        JsonNode s = PhasesIT.run(tmp, out, "run", "--driver", "amqp", "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f",
                "--opt", "prefetch=100", "--opt", "confirm=50000", "--phases",
                "base:1s@2k, fill:10kmsg@10k/paused, drain:30s@0/drained, after:2s@2k", "--warmup", "2000",
                "--out", out.toString());
        assertEquals("ok", s.get("status").asText(), s::toString);
        assertEquals(16_000, s.get("counters").get("messages_received").asLong(), s::toString);
        assertEquals("base:1s@2000, fill:10000msg@10000/paused, drain:30s@0/drained, after:2s@2000",
                s.get("spec").get("phases").asText()); // as asked: a replay asks the same cap
        JsonNode drain = s.get("phases").get(2);
        JsonNode until = drain.get("until_drained");
        assertEquals("drained", until.get("ended_by").asText(), drain::toString);
        assertEquals(0, until.get("messages_missing").asLong(), drain::toString);
        assertEquals(30.0, until.get("at_most_s").asDouble());
        assertTrue(s.get("phases").get(1).get("until_drained").isNull());
        double drainEnd = drain.get("end_s").asDouble();
        assertTrue(drainEnd - drain.get("start_s").asDouble() < 20, drain::toString); // far from its cap
        assertEquals(drainEnd, s.get("phases").get(3).get("start_s").asDouble(), 1e-9);
        // by hand from trace.dat: the intended times of messages 0 and 12,000, against the arrivals of those before
        long[][] all = rows(out.resolve("trace.dat"), 0, 16_000);
        assertEquals(12_000, all[12_000][0]);
        long origin = all[0][3];
        long firstAfter = all[12_000][3];
        long lastArrivalBefore = Long.MIN_VALUE;
        for (int i = 0; i < 12_000; i++) {
            lastArrivalBefore = Math.max(lastArrivalBefore, all[i][2]);
        }
        assertEquals(drainEnd, (firstAfter - origin) / 1e9, 1e-6, "the last phase's first message is due at the drain's end");
        assertTrue(firstAfter >= lastArrivalBefore, "the drain ended after its backlog arrived");
        long wordNs = firstAfter - lastArrivalBefore;
        assertTrue(wordNs < 200_000_000L, () -> "the drain ended " + wordNs + " ns after its last arrival");
    }

    /**
     * A drain while publishing goes on (issue 31): 2,000 messages at 2,000 msg/s, 10,000 at 10,000 msg/s with the
     * consumer paused, a drain at 2,000 msg/s of at most 30 s (60,000 messages if it ran to its cap), 2 s at 2,000
     * msg/s. The drain ends when the backlog built before it has arrived, whatever its own messages do; the run then
     * holds the messages the drain sent and the last phase's 4,000, numbered on from the drain's last. By hand from
     * trace.dat: every message the run held arrived once; the last phase's first message is due at the drain's end,
     * after every message of the backlog arrived and soon after the last of them; the drain's last message was due
     * before its end.
     */
    @Test
    void aDrainWhilePublishingEndsWhenTheBacklogBeforeItArrivedAndTheRunHoldsWhatItSent() throws Exception {
        DriverRunIT.requireBroker(5672, "RabbitMQ");
        Path out = tmp.resolve("drained-publishing");
        JsonNode s = PhasesIT.run(tmp, out, "run", "--driver", "amqp", "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f",
                "--opt", "prefetch=100", "--opt", "confirm=100000", "--phases",
                "base:1s@2k, fill:10kmsg@10k/paused, drain:30s@2k/drained, after:2s@2k", "--warmup", "2000",
                "--out", out.toString());
        assertEquals("ok", s.get("status").asText(), s::toString);
        JsonNode drain = s.get("phases").get(2);
        JsonNode until = drain.get("until_drained");
        assertEquals("drained", until.get("ended_by").asText(), drain::toString);
        assertEquals(0, until.get("messages_missing").asLong(), drain::toString);
        long sentInDrain = drain.get("messages_scheduled").asLong();
        assertEquals(sentInDrain, drain.get("messages_sent").asLong(), drain::toString);
        double drainEnd = drain.get("end_s").asDouble();
        assertTrue(drainEnd - drain.get("start_s").asDouble() < 20, drain::toString); // far from its cap
        assertEquals(drainEnd, s.get("phases").get(3).get("start_s").asDouble(), 1e-9);
        long held = 12_000 + sentInDrain + 4_000;
        assertTrue(held < 12_000 + 60_000 + 4_000, () -> held + " messages: the drain ran to its cap");
        assertEquals(held, s.get("spec").get("count").asLong(), s::toString);
        assertEquals(held, s.get("counters").get("messages_received").asLong(), s::toString);
        assertEquals(held, s.get("counters").get("messages_sent").asLong(), s::toString);
        assertEquals("base:1s@2000, fill:10000msg@10000/paused, drain:30s@2000/drained, after:2s@2000",
                s.get("spec").get("phases").asText()); // as asked
        long[][] all = rows(out.resolve("trace.dat"), 0, held);
        try (java.util.stream.Stream<String> lines = Files.lines(out.resolve("trace.dat"))) {
            assertEquals(held, lines.filter(l -> !l.startsWith("#")).count(), "one row per message the run held");
        }
        long origin = all[0][3];
        int firstAfter = (int) (12_000 + sentInDrain);
        long lastBacklogArrival = Long.MIN_VALUE;
        for (int i = 0; i < all.length; i++) {
            assertEquals(i, all[i][0]);
            assertTrue(all[i][2] > 0, "message " + i + " arrived");
            if (i < 12_000) {
                lastBacklogArrival = Math.max(lastBacklogArrival, all[i][2]);
            }
        }
        long after = all[firstAfter][3];
        assertEquals(drainEnd, (after - origin) / 1e9, 1e-6, "the last phase's first message is due at the drain's end");
        assertTrue(all[firstAfter - 1][3] < after, "the drain's last message was due inside it");
        assertTrue(after >= lastBacklogArrival, "the drain ended after its backlog arrived");
        long wordNs = after - lastBacklogArrival;
        assertTrue(wordNs < 200_000_000L, () -> "the drain ended " + wordNs + " ns after its backlog's last arrival");
        // the drain went on publishing at its rate while the backlog drained: 2,000 msg/s within 10 %
        assertEquals(2_000, drain.get("sent_in_span_msg_s").asDouble(), 200, drain::toString);
    }

    /**
     * A phase that ends on the broker's own count of the backlog (issue 31, {@code /backlog=N}): 2,000 messages at 2,000
     * msg/s, then the consumer paused while 5,000 msg/s are sent until RabbitMQ's queue holds 8,000 (at most 30 s), then
     * 2 s at 2,000 msg/s. The phase ends on the first read of the queue's count (passive declare, 10 a second) at 8,000
     * or more, the consumer resumes then, and the run holds what the phase sent. By hand from trace.dat: every message
     * arrived once; the last phase's first message is due at the fill's end.
     */
    @Test
    void aPhaseEndsWhenTheBrokersCountOfTheBacklogReachesItsTarget() throws Exception {
        DriverRunIT.requireBroker(5672, "RabbitMQ");
        Path out = tmp.resolve("backlog-target");
        JsonNode s = PhasesIT.run(tmp, out, "run", "--driver", "amqp", "--uri", "amqp://guest:guest@127.0.0.1:5672/%2f",
                "--opt", "prefetch=100", "--opt", "confirm=100000", "--phases",
                "base:1s@2k, fill:30s@5k/paused/backlog=8k, after:2s@2k", "--warmup", "2000", "--out", out.toString());
        assertEquals("ok", s.get("status").asText(), s::toString);
        JsonNode fill = s.get("phases").get(1);
        JsonNode until = fill.get("until_backlog");
        assertEquals("backlog", until.get("ended_by").asText(), fill::toString);
        assertEquals(8_000, until.get("broker_messages_target").asLong());
        long broker = until.get("broker_messages").asLong();
        assertTrue(broker >= 8_000, fill::toString);
        assertTrue(fill.get("until_drained").isNull());
        long sentInFill = fill.get("messages_scheduled").asLong();
        assertEquals(sentInFill, fill.get("messages_sent").asLong(), fill::toString);
        // the broker counts only what it holds: at most what the phase sent; the reads come every 100 ms, so the phase
        // runs on past 8,000 by about a read's 500 messages plus the word's path (allowed: a second's 5,000)
        assertTrue(sentInFill >= broker && sentInFill <= 8_000 + 5_000, () -> sentInFill + " sent, broker " + broker);
        double fillEnd = fill.get("end_s").asDouble();
        assertTrue(fillEnd - fill.get("start_s").asDouble() < 10, fill::toString);
        assertEquals(fillEnd, s.get("phases").get(2).get("start_s").asDouble(), 1e-9);
        long held = 2_000 + sentInFill + 4_000;
        assertEquals(held, s.get("spec").get("count").asLong(), s::toString);
        assertEquals(held, s.get("counters").get("messages_received").asLong(), s::toString);
        assertEquals("base:1s@2000, fill:30s@5000/paused/backlog=8000, after:2s@2000",
                s.get("spec").get("phases").asText());
        JsonNode episode = s.get("backlog").get(0);
        assertEquals(fillEnd, episode.get("resumed_at_s").asDouble(), 1e-6, episode::toString);
        assertTrue(episode.get("broker_view").get("peak_messages").asLong() >= 8_000, episode::toString);
        long[][] all = rows(out.resolve("trace.dat"), 0, held);
        int firstAfter = (int) (2_000 + sentInFill);
        for (int i = 0; i < all.length; i++) {
            assertTrue(all[i][2] > 0, "message " + i + " arrived");
        }
        assertEquals(fillEnd, (all[firstAfter][3] - all[0][3]) / 1e9, 1e-6, "the last phase's first message is due at "
                + "the fill's end");
        assertTrue(all[firstAfter - 1][3] < all[firstAfter][3]);
    }

    /**
     * backlog.dat's last read ({@code t broker sent-received confirmed-received}), taken after the last arrival: sent −
     * received is 0. Confirmed − received may be a little below 0: the broker delivers a message and confirms it at
     * about the same time, and the publisher's confirmed count is read every 10 ms, so the last confirms may not be
     * counted yet at the read (CI saw -1 once, 2026-11-28); at most 100, five times the last phase's 10 ms of sends.
     * Returns the broker's count.
     */
    static long assertNothingInFlightAtTheLastRead(String last) {
        String[] f = last.split(" ");
        assertEquals(4, f.length, last);
        assertEquals(0, Long.parseLong(f[2]), last);
        long confirmedLessReceived = Long.parseLong(f[3]);
        assertTrue(confirmedLessReceived <= 0 && confirmedLessReceived >= -100, last);
        return Long.parseLong(f[1]);
    }

    @Test
    void driversThatCannotKeepABacklogAndBacklogsThatCannotEndAreRefusedWithOneLine() throws Exception {
        String[][] bad = {
                {"--phases", "a:1s@1k, f:1s@1k/paused, d:1s@1k"}, // the relay
                {"--phases", "a:1s@1k, f:1s@1k/paused, d:1s@1k", "--driver", "nats"}, // core NATS
                {"--phases", "a:1s@1k, f:1s@1k/paused, d:1s@1k", "--driver", "amqp"}, // no prefetch
                {"--phases", "a:1s@1k, f:2kmsg@1k, d:1s@1k"}, // a backlog target with the consumers running
                {"--phases", "a:1s@1k, f:1s@1k/paused"}, // nothing drains
                {"--phases", "a:1s@1k, f:1s@1k/paused, d:10s@1k..2k/drained, b:1s@1k"}}; // a drain that ramps
        String[] says = {"tcp driver: its relay", "core NATS", "prefetch", "only while the consumers are paused",
                "nothing would drain the backlog", "lasts until drained: give it one rate"};
        for (int i = 0; i < bad.length; i++) {
            String err = PhasesIT.refused(tmp, "bad" + i, bad[i]);
            assertTrue(err.contains("--phases: ") && err.contains(says[i]) && !err.contains("\n"), err);
        }
    }

    /**
     * trace.dat's seq, send_ns, recv_ns and intended_ns (MIN_VALUE when unpaced) for sequence numbers {@code from ..
     * to-1}, in the file's order (by sequence).
     */
    static long[][] rows(Path file, long from, long to) throws Exception {
        List<long[]> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ");
                long seq = Long.parseLong(f[0]);
                if (seq >= from && seq < to) {
                    out.add(new long[] {seq, Long.parseLong(f[1]), Long.parseLong(f[2]),
                            f.length > 6 ? Long.parseLong(f[6]) : Long.MIN_VALUE});
                }
            }
        }
        assertEquals(to - from, out.size());
        return out.toArray(long[][]::new);
    }
}

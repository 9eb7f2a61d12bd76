package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * msgscope's drivers against ActiveMQ Artemis (issue 35 item 4): one private broker for the class, started and stopped
 * by {@code deploy/artemis.sh} (the distribution comes through Maven, so there is nothing to skip: a broker that does
 * not start fails the class, with or without CI=true), its CORE, AMQP, MQTT and STOMP acceptors on ports of its own.
 * Through the real CLI: a trace run each of amqp10, mqtt (QoS 1) and stomp ({@code broker=artemis}, receipts and
 * client acks) with every message received, and a scenario each — round-robin for amqp10 and stomp (one anycast queue
 * shared: each message to one subscriber) and fan-out for mqtt (every subscriber gets every message); the artemis core
 * driver's trace runs (anycast with blocking sends, every message confirmed; multicast) and both kinds of scenario;
 * the core driver over TLS; and {@code msgscope clean --driver artemis} removing a queue a run left.
 */
class ArtemisIT {
    private static final int N = 1_000;
    /**
     * 4 s of sending: the checks are of delivery, and a trace run fails below 95 % of its rate; at 500 msg/s amqp10 sent
     * at 432 msg/s on this box at load 11.
     */
    private static final int RATE = 250;

    @TempDir
    static Path tmp;
    private static Path dir;
    private static int base;

    @BeforeAll
    static void startBroker() throws Exception {
        dir = tmp.resolve("artemis");
        base = DeployScripts.freeBase(16616, "a private Artemis", 0, 1, 2, 3, 4);
        long t0 = System.nanoTime();
        try {
            System.out.println(DeployScripts.run("artemis.sh", 300, "start", dir.toString(), "" + base));
        } catch (Exception | AssertionError e) {
            stopBroker();
            throw e;
        }
        System.out.println("private Artemis up in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (dir != null) {
            System.out.println(DeployScripts.run("artemis.sh", 120, "stop", dir.toString()));
        }
    }

    /**
     * The acceptor at {@code offset} from PORT_BASE (0 CORE, 1 AMQP, 2 MQTT, 3 STOMP, 4 CORE over TLS) as
     * {@code scheme://}.
     */
    static String uri(String scheme, int offset) {
        return scheme + "://msgscope:msgscope@127.0.0.1:" + (base + offset);
    }

    @Test
    void amqp10DeliversEveryMessage() throws Exception {
        assertAllDelivered("amqp10", uri("amqp", 1));
        assertScenarioDelivered("amqp10", uri("amqp", 1), "round-robin");
    }

    @Test
    void mqttAtQos1DeliversEveryMessage() throws Exception {
        assertAllDelivered("mqtt", uri("mqtt", 2), "qos=1");
        assertScenarioDelivered("mqtt", uri("mqtt", 2), "fan-out", "qos=1");
    }

    @Test
    void stompOnArtemisAddressesDeliversEveryMessage() throws Exception {
        assertAllDelivered("stomp", uri("stomp", 3), "broker=artemis", "receipts=1");
        assertAllDelivered("stomp", uri("stomp", 3), "broker=artemis", "receipts=1", "kind=topic");
        assertScenarioDelivered("stomp", uri("stomp", 3), "round-robin", "broker=artemis", "receipts=1");
    }

    @Test
    void theCoreDriverDeliversAndConfirmsEveryMessage() throws Exception {
        JsonNode s = assertAllDelivered("artemis", uri("tcp", 0));
        assertEquals(N, s.get("counters").get("messages_acked").asLong(), s.get("counters")::toString);
        assertEquals(0, s.get("counters").get("guarantee_violations").asLong(), s.get("counters")::toString);
        assertAllDelivered("artemis", uri("tcp", 0), "routing=multicast", "confirm=none");
        assertScenarioDelivered("artemis", uri("tcp", 0), "fan-out");
        assertScenarioDelivered("artemis", uri("tcp", 0), "round-robin");
    }

    /**
     * The core driver over the TLS acceptor (issue 35 item 6), whose certificate deploy/artemis.sh made with a CA of
     * its own: trusted through {@code tls_ca}, every message arrives; with the JVM's trust store the run fails at once
     * with the handshake's reason in one line, exit 1.
     */
    @Test
    void theCoreDriverOverTlsTrustsTheCaItIsGiven() throws Exception {
        assertAllDelivered("artemis", uri("ssl", 4), "tls_ca=" + dir.resolve("tls/ca.pem"));
        Path out = tmp.resolve("artemis-untrusted");
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-untrusted"), "run", "--driver", "artemis", "--uri",
                uri("ssl", 4), "--count", "1000", "--out", out.toString());
        int code = p.waitFor(120);
        String said = p.out() + p.err();
        assertEquals(1, code, said);
        assertTrue(said.contains("could not connect to ssl://127.0.0.1:" + (base + 4) + ": TLS handshake failed: "
                + "unable to find valid certification path"), said);
    }

    /**
     * {@code msgscope clean --driver artemis} finds what a run could not remove (here a durable queue of msgscope's
     * naming, made through the core client as a killed run would leave it) and removes it with its address.
     */
    @Test
    void cleanFindsAndRemovesMsgscopesQueuesAndAddresses() throws Exception {
        String name = "msgscope-artemis-left-" + System.nanoTime();
        try (var locator = org.apache.activemq.artemis.api.core.client.ActiveMQClient.createServerLocator(
                "tcp://127.0.0.1:" + base); var factory = locator.createSessionFactory();
             var session = factory.createSession("msgscope", "msgscope", false, true, true, false, 0)) {
            session.createQueue(org.apache.activemq.artemis.api.core.QueueConfiguration.of(name)
                    .setRoutingType(org.apache.activemq.artemis.api.core.RoutingType.ANYCAST).setDurable(true));
        }
        String dry = clean("--dry-run");
        assertTrue(dry.contains("queue " + name) && dry.contains("address " + name), dry);
        assertTrue(clean().contains("queue " + name));
        String after = clean("--dry-run");
        assertFalse(after.contains(name), after);
    }

    private static String clean(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("clean", "--driver", "artemis", "--uri", uri("tcp", 0)));
        args.addAll(List.of(more));
        MsgscopeProcess p = MsgscopeProcess.start(tmp.resolve("wd-clean"), args.toArray(String[]::new));
        int code = p.waitFor(120);
        String err = p.err();
        assertEquals(0, code, err);
        return p.out();
    }

    @Test
    void rabbitMqsDestinationsAreRefusedOnArtemisNamingTheOption() throws Exception {
        Usage.assertUsageError(MsgscopeProcess.start(tmp.resolve("wd-bad"), "run", "--driver", "stomp", "--uri",
                uri("stomp", 3), "--opt", "broker=artemis", "--opt", "kind=exchange", "--count", "1000"), "--opt kind");
    }

    /** A trace run of {@link #N} messages at {@link #RATE} msg/s: all sent, received, none lost, no error. */
    static JsonNode assertAllDelivered(String driver, String uri, String... opts) throws Exception {
        String name = driver + "-" + String.join("-", opts).replace('=', '_');
        Path out = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("run", "--driver", driver, "--uri", uri, "--count", "" + N,
                "--warmup", "200", "--rate", "" + RATE, "--out", out.toString()));
        for (String o : opts) {
            args.addAll(List.of("--opt", o));
        }
        JsonNode s = MsgscopeProcess.start(tmp.resolve("wd-" + name), args.toArray(String[]::new))
                .awaitOkSummary(out, 120);
        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_sent").asLong(), c::toString);
        assertEquals(N, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong(), c::toString);
        assertEquals(driver, s.get("spec").get("driver").asText());
        return s;
    }

    /** A scenario of 1 publisher at 200 msg/s for 2 s and 2 subscribers, every message delivered as it promises. */
    static void assertScenarioDelivered(String driver, String uri, String scenario, String... opts) throws Exception {
        Path out = tmp.resolve(driver + "-" + scenario);
        List<String> args = new ArrayList<>(List.of("scenario", "--driver", driver, "--uri", uri));
        for (String o : opts) {
            args.addAll(List.of("--opt", o));
        }
        args.addAll(List.of("--scenario", scenario, "--publishers", "1", "--subscribers", "2", "--rate", "200",
                "--duration", "2", "--warmup", "1", "--out", out.toString()));
        JsonNode s = MsgscopeProcess.start(tmp.resolve("wd-" + driver + "-" + scenario), args.toArray(String[]::new))
                .awaitOkSummary(out, 120);
        ScenarioResults.assertEveryMessageDelivered(s, scenario, 1, 2, 200, 2);
    }
}

package io.msgscope.driver.stomp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The STOMP driver's URI and options (issue 35 item 3): defaults, destinations, and every bad value named. */
class StompSettingsTest {
    private static DriverSpec spec(String uri, Map<String, String> opts, String destination) {
        return new DriverSpec("", 0, uri, 64, 0, opts, destination);
    }

    private static Map<String, String> opts(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (String s : kv) {
            String[] p = s.split("=", 2);
            m.put(p[0], p[1]);
        }
        return m;
    }

    @Test
    void defaultsAreAnAutoDeletedQueueOnTheLocalBrokerAsGuest() {
        StompSettings s = StompSettings.of(spec("", Map.of(), ""), false);
        assertEquals("127.0.0.1", s.uri().host());
        assertEquals(61613, s.uri().port());
        assertEquals("guest", s.uri().user());
        assertEquals("guest", s.uri().password());
        assertEquals("/", s.vhost());
        assertEquals("client", s.ack());
        assertEquals(0, s.receipts());
        assertEquals(1000, s.maxInflight());
        assertEquals("queue", s.kind());
        assertTrue(s.destination().startsWith("/queue/" + StompSettings.NAME_PREFIX), s.destination());
        assertFalse(s.durable());
        assertFalse(s.persistent());
        assertEquals(0, s.prefetch());
        assertEquals("durable:false\nauto-delete:true\nexclusive:false\n", s.queueHeaders());
        assertFalse(s.reliable(), "no receipts: nothing confirmed");
    }

    @Test
    void theUriGivesUserPasswordPortAndVirtualHost() {
        StompSettings s = StompSettings.of(spec("stomp://bob:s3cret@broker.example:1234/perf%2Fvh", Map.of(), ""), false);
        assertEquals("broker.example", s.uri().host());
        assertEquals(1234, s.uri().port());
        assertEquals("bob", s.uri().user());
        assertEquals("s3cret", s.uri().password());
        assertEquals("perf/vh", s.vhost());
        assertEquals("stomp://broker.example:1234", s.address(), "no credentials in messages");
        StompSettings o = StompSettings.of(spec("stomp://bob:x@h", opts("username=ann", "password=y"), ""), false);
        assertEquals("ann", o.uri().user());
        assertEquals("y", o.uri().password());
        assertEquals(61613, o.uri().port());
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource({
            "queue,     q1,            /queue/q1",
            "topic,     a.b,           /topic/a.b",
            "exchange,  k1,            /exchange/amq.topic/k1",
            "exchange,  amq.direct/k2, /exchange/amq.direct/k2",
            "amq-queue, existing,      /amq/queue/existing"})
    void eachKindHasItsRabbitMqDestination(String kind, String name, String destination) {
        assertEquals(destination, StompSettings.of(spec("", opts("kind=" + kind, "name=" + name), ""), false)
                .destination());
    }

    @Test
    void publishersSendToADeclaredQueueWithoutDeclaringItAgain() {
        assertEquals("/amq/queue/q1", StompSettings.publishDestination("/queue/q1", false));
        assertEquals("/topic/t", StompSettings.publishDestination("/topic/t", false));
        StompSettings p = StompSettings.of(spec("", Map.of(), "/queue/from-subscriber"), true);
        assertEquals("/queue/from-subscriber", p.destination(), "the publisher takes the subscriber's destination");
    }

    @Test
    void onArtemisTheAddressIsTheNameAndTheRoutingTypeAHeader() {
        StompSettings q = StompSettings.of(spec("", opts("broker=artemis"), ""), false);
        assertTrue(q.destination().startsWith(StompSettings.NAME_PREFIX), q.destination());
        assertEquals("subscription-type:ANYCAST\n", q.queueHeaders());
        assertEquals("destination-type:ANYCAST\n", q.sendHeaders());
        assertEquals("q1", StompSettings.publishDestination("q1", true));
        assertEquals("/queue/q1", StompSettings.publishDestination("/queue/q1", true), "no RabbitMQ rewriting");
        StompSettings t = StompSettings.of(spec("", opts("broker=artemis", "kind=topic", "name=a.b",
                "persistent=true"), ""), false);
        assertEquals("a.b", t.destination());
        assertEquals("subscription-type:MULTICAST\n", t.queueHeaders());
        assertEquals("destination-type:MULTICAST\npersistent:true\n", t.sendHeaders());
        assertEquals("persistent:true\n", StompSettings.of(spec("", opts("persistent=true"), ""), false)
                .sendHeaders(), "RabbitMQ: no routing type");
        StompScenarios sc = StompScenarios.INSTANCE;
        DriverSpec rr = spec("", sc.options(Scenario.ROUND_ROBIN, Map.of("broker", "artemis")), "");
        assertEquals("t.1", sc.publisher(rr, "t.1").destination());
        assertEquals("t.1", StompSettings.of(sc.subscriber(rr, "t.1", "g"), false).destination());
    }

    @Test
    void reliableTakesReceiptsAndClientAcks() {
        assertTrue(StompSettings.of(spec("", opts("receipts=1"), ""), false).reliable());
        assertTrue(StompSettings.of(spec("", opts("receipts=10", "ack=client-individual"), ""), false).reliable());
        assertFalse(StompSettings.of(spec("", opts("receipts=1", "ack=auto"), ""), false).reliable());
    }

    @Test
    void durableQueuesAreKeptAndPersistentByDefault() {
        StompSettings s = StompSettings.of(spec("", opts("durable=true"), ""), false);
        assertTrue(s.persistent());
        assertEquals("durable:true\nauto-delete:false\nexclusive:false\n", s.queueHeaders());
        assertFalse(StompSettings.of(spec("", opts("durable=true", "persistent=false"), ""), false).persistent());
        assertEquals("", StompSettings.of(spec("", opts("kind=topic"), ""), false).queueHeaders());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "ack=none|--opt ack|must be auto, client or client-individual",
            "kind=stream|--opt kind|must be queue, topic, exchange or amq-queue",
            "receipts=-1|--opt receipts|between 0 and 1000000",
            "receipts=x|--opt receipts|whole number",
            "max_inflight=0|--opt max_inflight|between 1 and 1000000",
            "receipts=11,max_inflight=10|--opt receipts|at most max_inflight (10)",
            "durable=maybe|--opt durable|true or false",
            "durable=true,kind=topic|--opt durable|is for kind=queue",
            "persistent=2|--opt persistent|true or false",
            "prefetch=70000|--opt prefetch|between 0 and 65535",
            "prefetch=10,ack=auto|--opt prefetch|needs ack=client",
            "name=a:b|--opt name|without ':'",
            "name=|--opt name|non-empty",
            "name=a/b|--opt name|no '/' with kind=queue",
            "kind=amq-queue|--opt name|needs the name of an existing queue",
            "broker=activemq|--opt broker|must be rabbitmq or artemis",
            "broker=artemis,kind=exchange|--opt kind|must be queue (an anycast address) or topic",
            "broker=artemis,kind=amq-queue,name=q|--opt kind|a RabbitMQ destination",
            "broker=artemis,durable=true|--opt durable|creates the queue itself",
            "broker=artemis,prefetch=10|--opt prefetch|Artemis ignores",
            "colour=red|--opt colour|is not an option of the stomp driver"})
    void badOptionsAreNamed(String given, String option, String says) {
        Map<String, String> o = new HashMap<>();
        for (String kv : given.split(",")) {
            String[] p = kv.split("=", 2);
            o.put(p[0], p.length > 1 ? p[1] : "");
        }
        SpecException e = assertThrows(SpecException.class, () -> StompSettings.of(spec("", o, ""), false));
        assertEquals(option, e.option(), e.getMessage());
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }

    @Test
    void badUrisAreNamed() {
        for (String uri : new String[] {"http://127.0.0.1:61613", "stomp:///nohost", "not a uri"}) {
            SpecException e = assertThrows(SpecException.class, () -> StompSettings.of(spec(uri, Map.of(), ""), false));
            assertEquals("--uri", e.option(), e.getMessage());
        }
    }

    @Test
    void scenariosChooseTopicsOrASharedQueue() {
        StompScenarios sc = StompScenarios.INSTANCE;
        assertEquals("topic", sc.options(Scenario.FAN_OUT, Map.of()).get("kind"));
        assertEquals("queue", sc.options(Scenario.ROUND_ROBIN, Map.of()).get("kind"));
        DriverSpec base = spec("", sc.options(Scenario.ROUND_ROBIN, Map.of()), "");
        assertEquals("/amq/queue/t.1", sc.publisher(base, "t.1").destination());
        assertEquals("/queue/t.1", StompSettings.of(sc.subscriber(base, "t.1", "g"), false).destination());
        DriverSpec fan = spec("", sc.options(Scenario.FAN_OUT, Map.of()), "");
        assertEquals("/topic/t.1", sc.publisher(fan, "t.1").destination());
        assertEquals("/topic/t.1", StompSettings.of(sc.subscriber(fan, "t.1", ""), false).destination());
        assertEquals("--opt", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_IN, Map.of("kind", "queue"))).option());
        assertEquals("--opt durable", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_OUT, Map.of("durable", "true"))).option(), "topics are not durable here");
        assertEquals("STOMP receipts every 5, ack=client-individual", sc.qosLabel(Scenario.FAN_OUT,
                Map.of("receipts", "5", "ack", "client-individual")));
        assertTrue(sc.reliable(Map.of("receipts", "1")));
        assertFalse(sc.reliable(Map.of()));
    }

    @Test
    void topicPrefixesAreRoutingKeys() {
        StompDriver d = new StompDriver();
        d.checkTopicPrefix("perf.run-1");
        for (String bad : new String[] {"", "a/b", "a:b", "a b"}) {
            assertEquals("--topic-prefix", assertThrows(SpecException.class, () -> d.checkTopicPrefix(bad)).option());
        }
    }

    @Test
    void stompsAndStompSslAreTlsWithTheNettyEnginesDefaultAndPlainStompTakesNoTlsOption() {
        StompSettings s = StompSettings.of(spec("stomps://127.0.0.1", Map.of(), ""), false);
        assertEquals(61614, s.uri().port());
        assertTrue(s.tls().verify(), "verified by default, as mqtt and nats");
        assertEquals("stomps://127.0.0.1:61614", s.address());
        StompSettings ssl = StompSettings.of(spec("stomp+ssl://127.0.0.1:6360", opts("tls_verify=false"), ""), true);
        assertFalse(ssl.tls().verify());
        assertEquals(null, StompSettings.of(spec("stomp://127.0.0.1", Map.of(), ""), false).tls());
        SpecException e = assertThrows(SpecException.class,
                () -> StompSettings.of(spec("stomp://127.0.0.1", opts("tls_ca=/etc/hostname"), ""), false));
        assertEquals("--opt tls_ca", e.option());
        assertTrue(e.getMessage().contains("stomps://"), e.getMessage());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class,
                () -> StompSettings.of(spec("stomps://127.0.0.1", opts("tls_ca=/no/such.pem"), ""), false)).option());
    }
}

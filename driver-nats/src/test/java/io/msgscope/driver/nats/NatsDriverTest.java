package io.msgscope.driver.nats;

import io.msgscope.core.test.Ci;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.nats.NatsServerRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The NATS driver against the real nats-server on 127.0.0.1:4222 (required under CI=true) and against
 * a private nats-server (with JetStream) started by jnats-server-runner when nats-server is on PATH.
 */
public class NatsDriverTest {
    private static final int N = 5000;
    private static final String SYSTEM = "nats://127.0.0.1:4222";
    private static NatsServerRunner privateServer;

    @BeforeAll
    static void startPrivateServer() throws IOException {
        if (onPath("nats-server")) {
            privateServer = new NatsServerRunner(false, true);
        }
    }

    @AfterAll
    static void stopPrivateServer() throws Exception {
        if (privateServer != null) {
            privateServer.close();
        }
    }

    public static boolean onPath(String exe) {
        String path = System.getenv("PATH");
        for (String d : (path == null ? "" : path).split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", exe));
    }

    public static void requireSystemServer() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 4222), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && Ci.on()) {
            fail("nats-server must listen on 127.0.0.1:4222 under CI=true");
        }
        Assumptions.assumeTrue(up, "nats-server is not listening on 127.0.0.1:4222: real-server test skipped");
    }

    static String privateUri() {
        Ci.require(privateServer != null, "nats-server must be on PATH", "private-server test skipped");
        return privateServer.getURI();
    }

    private static NatsDriver driver() {
        return (NatsDriver) Drivers.load().get("nats");
    }

    @Test
    void coreOnTheSystemServerDeliversEveryMessageOnceInOrder() throws Exception {
        requireSystemServer();
        for (String engine : new String[] {"netty", "jnats"}) {
            RoundTrip rt = RoundTrip.run(driver(), SYSTEM, Map.of("engine", engine), N, 64);
            rt.assertAllOnce(N, true);
            assertTrue(rt.destination.startsWith("msgscope."), rt.destination);
            assertEquals(0L, rt.publisherCounters.get("publish_errors"));
            System.out.println("nats core, engine " + engine + " (system server): " + rt.rate());
        }
    }

    /** engine=jnats in scenario mode: jnats' dispatcher thread pushes to the handler. */
    @Test
    void jnatsPushesOnItsDispatcherThread() throws Exception {
        requireSystemServer();
        pushRoundTrip(Map.of("engine", "jnats"), "msgscope-sub");
    }

    /** JetStream in scenario mode: a push consumer on the dispatcher, a pull consumer on a fetching thread. */
    @Test
    void jetStreamPushesToo() throws Exception {
        requireSystemServer();
        pushRoundTrip(Map.of("jetstream", "true", "storage", "memory"), "msgscope-sub");
        pushRoundTrip(Map.of("jetstream", "true", "storage", "memory", "consumer", "pull"), "msgscope-nats-pull");
    }

    /**
     * Members of a JetStream group opened at the same time (as an agent opening its connections in parallel does)
     * share the one durable consumer: those that lose the race to create it bind to it.
     */
    @Test
    void jetStreamGroupMembersOpenedAtOnceShareTheDurable() throws Exception {
        requireSystemServer();
        for (String consumer : new String[] {"push", "pull"}) {
            String subject = "msgscope.test.group" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current()
                    .nextLong());
            DriverSpec spec = new DriverSpec("", 0, SYSTEM, 64, 0, Map.of("jetstream", "true", "storage", "memory",
                    "subject", subject, "group", "members", "consumer", consumer), "");
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            java.util.List<java.util.concurrent.Future<Subscriber>> opened = new java.util.ArrayList<>();
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int i = 0; i < 4; i++) {
                opened.add(pool.submit(() -> {
                    go.await();
                    return driver().openSubscriber(spec);
                }));
            }
            go.countDown();
            java.util.List<Subscriber> subs = new java.util.ArrayList<>();
            java.util.List<String> failures = new java.util.ArrayList<>();
            for (var f : opened) {
                try {
                    subs.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS));
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause().getMessage());
                }
            }
            pool.shutdown();
            for (Subscriber sub : subs) {
                sub.close();
            }
            assertEquals(java.util.List.of(), failures, consumer);
        }
    }

    private static void pushRoundTrip(Map<String, String> opts, String threadPrefix) throws Exception {
        int n = 2000;
        java.util.concurrent.atomic.AtomicIntegerArray arrivals = new java.util.concurrent.atomic.AtomicIntegerArray(n);
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        java.util.List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<String> ends = new java.util.concurrent.CopyOnWriteArrayList<>();
        DriverSpec spec = new DriverSpec("", 0, SYSTEM, 64, 0, opts, "");
        try (Subscriber sub = driver().openSubscriber(spec)) {
            sub.start((b, off) -> {
                arrivals.incrementAndGet((int) io.msgscope.core.WireHeader.sequence(b, off));
                if (threads.isEmpty()) {
                    threads.add(Thread.currentThread().getName());
                }
                received.incrementAndGet();
            }, ends::add);
            try (Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()))) {
                java.nio.ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < n; i++) {
                    io.msgscope.core.WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, 64);
                }
                pub.drain(30_000);
            }
            io.msgscope.core.test.Await.until(() -> received.get() == n, 10, n + " messages pushed with " + opts);
            for (int i = 0; i < n; i++) {
                assertEquals(1, arrivals.get(i), "arrivals of " + i + " with " + opts);
            }
            assertTrue(threads.get(0).startsWith(threadPrefix), threads + " with " + opts);
            assertEquals("jnats", sub.serverInfo().get("engine"));
        }
        assertEquals(java.util.List.of(), ends, "closing by msgscope is no end to report");
    }

    @Test
    void jetStreamOnTheSystemServerCountsAcks() throws Exception {
        requireSystemServer();
        RoundTrip rt = RoundTrip.run(driver(), "", Map.of("jetstream", "true", "storage", "memory"), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals((long) N, rt.publisherCounters.get("messages_acked"));
        System.out.println("nats jetstream memory (system server): " + rt.rate());
    }

    @Test
    void coreOnAPrivateServer() throws Exception {
        for (String engine : new String[] {"netty", "jnats"}) {
            RoundTrip rt = RoundTrip.run(driver(), privateUri(), Map.of("subject", "msgscope.test.core", "engine", engine),
                    N, 1024);
            rt.assertAllOnce(N, true);
            assertEquals("msgscope.test.core", rt.destination);
        }
    }

    @Test
    void jetStreamFileStorageOnAPrivateServer() throws Exception {
        RoundTrip rt = RoundTrip.run(driver(), privateUri(), Map.of("jetstream", "true"), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals((long) N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        System.out.println("nats jetstream file (private server): " + rt.rate());
    }

    @Test
    void connectionRefusedIsOneLineNamingTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        for (String engine : new String[] {"netty", "jnats"}) {
            long t0 = System.nanoTime();
            DriverSpec spec = new DriverSpec("", 0, "nats://127.0.0.1:" + port, 64, 0, Map.of("engine", engine), "msgscope.x");
            IOException e = assertThrows(IOException.class, () -> driver().openPublisher(spec));
            assertTrue((System.nanoTime() - t0) / 1e9 < 10, "took too long");
            assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            // counted by kind in scenario results (issue 5)
            assertEquals(io.msgscope.core.driver.Fault.Kind.CONNECT_FAILED, io.msgscope.core.driver.Fault.kindOf(e));
            IOException s = assertThrows(IOException.class, () -> driver().openSubscriber(spec));
            assertEquals(io.msgscope.core.driver.Fault.Kind.CONNECT_FAILED, io.msgscope.core.driver.Fault.kindOf(s));
            System.out.println("refused (" + engine + "): " + e.getMessage());
        }
    }

    @Test
    void badOptionsNameTheOption() {
        NatsDriver d = driver();
        assertEquals("--opt subject", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("subject", "a.>"), ""))).option());
        assertEquals("--opt storage", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("storage", "memory"), ""))).option());
        assertEquals("--opt jetstream", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("jetstream", "perhaps"), ""))).option());
        assertEquals("--opt consumer", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("jetstream", "true", "consumer", "both"), ""))).option());
        assertEquals("--opt consumer", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("consumer", "pull"), ""))).option());
        assertEquals("--opt token", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("token", "t", "username", "u"), ""))).option());
        assertEquals("--uri", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "tcp://127.0.0.1:4222", 64, 0, Map.of(), ""))).option());
        SpecException e = assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "netty", "jetstream", "true"), "")));
        assertEquals("--opt engine", e.option());
        assertEquals("--opt engine: netty speaks core NATS only; JetStream (--opt jetstream=true) runs on jnats: drop "
                + "--opt engine or give --opt engine=jnats", e.getMessage());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "hivemq"), ""))).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "nats://127.0.0.1:4222", 64, 0, Map.of("tls_ca", "/etc/hostname"), ""))).option());
        assertEquals("--opt tls_verify", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "tls://127.0.0.1:4222", 64, 0, Map.of("tls_verify", "maybe"), ""))).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "tls://127.0.0.1:4222", 64, 0, Map.of("tls_ca", "/no/such/ca.pem"), ""))).option());
        d.checkOptions(new DriverSpec("", 0, "", 64, 0, Map.of("engine", "jnats", "jetstream", "true"), ""));
        d.checkOptions(new DriverSpec("", 0, "tls://127.0.0.1:4222", 64, 0, Map.of("tls_verify", "false"), ""));
    }
}

package io.msgscope.driver.nats.netty;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.nats.NatsDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine's set-up, flow control and delivery against a scripted server on a local socket, where every
 * byte is known: what CONNECT carries, refusals, max_payload, a server that stops reading, PING/PONG both ways,
 * short payloads, slow-consumer notices and the end of the connection.
 */
class NettyEngineFakeServerTest {
    static final String INFO = "INFO {\"server_id\":\"FAKE\",\"server_name\":\"fake\",\"version\":\"2.9.10\",\"proto\":1,"
            + "\"max_payload\":1048576,\"headers\":true}\r\n";
    private static final ClientContext CONTEXT = new ClientContext(1, List.of());

    @AfterAll
    static void closeContext() {
        CONTEXT.close();
    }

    interface Script {
        void run(Client c) throws Exception;
    }

    /** The server's view of the one client: lines and payloads read, bytes written. */
    static final class Client {
        final DataInputStream in;
        final OutputStream out;
        final List<String> lines = new CopyOnWriteArrayList<>();

        Client(Socket s) throws IOException {
            in = new DataInputStream(s.getInputStream());
            out = s.getOutputStream();
        }

        String readLine() throws IOException {
            String line = io.msgscope.driver.nats.FakeNatsServer.readLine(in);
            lines.add(line);
            return line;
        }

        byte[] readPayload(int n) throws IOException {
            byte[] p = new byte[n];
            in.readFully(p);
            if (in.read() != '\r' || in.read() != '\n') {
                throw new IOException("payload not followed by CRLF");
            }
            return p;
        }

        void send(String s) throws IOException {
            out.write(s.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        /** Reads CONNECT and PING, answers PONG; returns the CONNECT line. */
        String handshake() throws IOException {
            String connect = readLine();
            assertEquals("PING", readLine());
            send("PONG\r\n");
            return connect;
        }
    }

    /** Accepts one client, sends {@code info}, then runs {@code script}. */
    static final class FakeServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final Thread thread;
        volatile Client client;
        volatile Throwable failure;

        FakeServer(String info, Script script) throws IOException {
            thread = new Thread(() -> {
                try (Socket s = server.accept()) {
                    client = new Client(s);
                    client.send(info);
                    script.run(client);
                } catch (Throwable t) {
                    failure = t;
                }
            }, "fake-nats-server");
            thread.start();
        }

        String uri() {
            return "nats://127.0.0.1:" + server.getLocalPort();
        }

        String address() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(10_000);
        }
    }

    static DriverSpec spec(FakeServer s, int size, Map<String, String> opts) {
        Map<String, String> o = new java.util.HashMap<>(opts);
        o.putIfAbsent("subject", "t");
        return new DriverSpec("", 0, s.uri(), size, 0, o, "");
    }

    static Publisher publisher(FakeServer s, int size, Map<String, String> opts) throws IOException {
        return new NatsDriver().openPublisher(spec(s, size, opts).withDestination("t"), CONTEXT);
    }

    static NettyNatsSubscriber subscriber(FakeServer s, Map<String, String> opts) throws IOException {
        return (NettyNatsSubscriber) new NatsDriver().openSubscriber(spec(s, 64, opts), CONTEXT);
    }

    static byte[] message(long seq, int size) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        WireHeader.writeSendTime(b, 0, 1);
        WireHeader.writeSequence(b, 0, seq);
        return b.array();
    }

    static String msg(long sid, byte[] payload) {
        return "MSG t " + sid + " " + payload.length + "\r\n" + new String(payload, StandardCharsets.ISO_8859_1) + "\r\n";
    }

    /** Waits for a condition the event loop brings about (10 s at most). */
    static void await(BooleanSupplier done, String what) {
        io.msgscope.core.test.Await.until(done, 10, what);
    }

    @Test
    void connectCarriesTheCredentialsWithVerboseAndPedanticOff() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            done.await(10, TimeUnit.SECONDS);
        })) {
            try (Publisher p = publisher(s, 64, Map.of("username", "alice", "password", "p\"w\\d"))) {
                String connect = s.client.lines.get(0);
                assertTrue(connect.startsWith("CONNECT {") && connect.endsWith("}"), connect);
                for (String field : new String[] {"\"verbose\":false", "\"pedantic\":false", "\"tls_required\":false",
                        "\"name\":\"msgscope-pub\"", "\"lang\":\"java\"", "\"protocol\":1", "\"echo\":false",
                        "\"user\":\"alice\"", "\"pass\":\"p\\\"w\\\\d\""}) {
                    assertTrue(connect.contains(field), field + " in " + connect);
                }
                assertFalse(connect.contains("auth_token"), connect);
                assertEquals(Map.of("publish_errors", 0L), p.counters());
            }
            done.countDown();
        }
    }

    @Test
    void aTokenAndUriUserInfoGoIntoConnect() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            done.await(10, TimeUnit.SECONDS);
        })) {
            try (Publisher p = publisher(s, 64, Map.of("token", "t0k"))) {
                String connect = s.client.lines.get(0);
                assertTrue(connect.contains("\"auth_token\":\"t0k\"") && !connect.contains("\"user\""), connect);
            }
            done.countDown();
        }
        CountDownLatch done2 = new CountDownLatch(1);
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            done2.await(10, TimeUnit.SECONDS);
        })) {
            DriverSpec spec = new DriverSpec("", 0, "nats://bob:s%40cret@127.0.0.1:" + s.server.getLocalPort(), 64, 0,
                    Map.of(), "t");
            try (Publisher p = new NatsDriver().openPublisher(spec, CONTEXT)) {
                String connect = s.client.lines.get(0);
                assertTrue(connect.contains("\"user\":\"bob\",\"pass\":\"s@cret\""), connect);
            }
            done2.countDown();
        }
    }

    @Test
    void anAuthorizationViolationIsARefusalNamingTheServer() throws Exception {
        try (FakeServer s = new FakeServer(INFO.replace("\"proto\"", "\"auth_required\":true,\"proto\""), c -> {
            c.readLine();
            c.readLine();
            c.send("-ERR 'Authorization Violation'\r\n");
            c.in.read(); // until the client closes
        })) {
            IOException e = assertThrows(IOException.class, () -> subscriber(s, Map.of("username", "u", "password",
                    "secret-pw")));
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e));
            assertEquals("NATS at " + s.address() + " refused the connection: -ERR 'Authorization Violation'",
                    e.getMessage());
        }
    }

    @Test
    void aMessageSizeAboveMaxPayloadIsRefusedBeforeSending() throws Exception {
        for (boolean pub : new boolean[] {true, false}) {
            try (FakeServer s = new FakeServer(INFO.replace("1048576", "100"), c -> {
                c.handshake();
                c.in.read();
            })) {
                SpecException e = assertThrows(SpecException.class, () -> {
                    if (pub) {
                        publisher(s, 128, Map.of()).close();
                    } else {
                        new NatsDriver().openSubscriber(spec(s, 128, Map.of()), CONTEXT).close();
                    }
                });
                assertEquals("--size", e.option());
                assertEquals("--size: must be at most 100 bytes with NATS at " + s.address() + " (its max_payload), got 128",
                        e.getMessage());
                s.thread.join(10_000);
                assertEquals(2, s.client.lines.size(), "nothing but CONNECT and PING written: " + s.client.lines);
            }
        }
    }

    @Test
    void offerReturnsFalseInsteadOfWaitingOnAServerThatStopsReading() throws Exception {
        CountDownLatch readOn = new CountDownLatch(1);
        AtomicLong pubs = new AtomicLong();
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            readOn.await(30, TimeUnit.SECONDS);
            while (true) {
                String line = c.readLine();
                if (line.startsWith("PUB t 1024")) {
                    c.readPayload(1024);
                    pubs.incrementAndGet();
                } else if (line.equals("PING")) {
                    c.send("PONG\r\n");
                }
            }
        })) {
            try (Publisher p = publisher(s, 1024, Map.of())) {
                ByteBuffer buf = ByteBuffer.wrap(message(0, 1024)).order(ByteOrder.LITTLE_ENDIAN);
                long accepted = 0;
                boolean refused = false;
                for (int i = 0; i < 1_000_000 && !refused; i++) {
                    if (p.offer(buf, 0, 1024)) {
                        accepted++;
                    } else {
                        refused = true;
                    }
                }
                assertTrue(refused, "offer said false once the socket and the queue were full");
                assertTrue(accepted > 0 && accepted < 100_000, "accepted " + accepted);
                readOn.countDown();
                long before = accepted;
                await(() -> {
                    try {
                        return p.offer(buf, 0, 1024);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }, "offer taking messages again once the server reads");
                p.drain(10_000);
                assertTrue(pubs.get() >= before + 1, pubs.get() + " PUBs read, " + before + " offered before");
            }
        }
    }

    @Test
    void drainIsAPingPongRoundTripBehindThePublishes() throws Exception {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            while (true) {
                String line = c.readLine();
                if (line.equals("PING")) {
                    seen.add(line);
                    c.send("PONG\r\n");
                } else {
                    byte[] payload = c.readPayload(64);
                    seen.add(line + " seq " + WireHeader.sequence(ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN), 0));
                }
            }
        })) {
            try (Publisher p = publisher(s, 64, Map.of())) {
                ByteBuffer buf = ByteBuffer.allocate(3 * 64).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < 3; i++) {
                    WireHeader.writeSequence(buf, i * 64, i);
                }
                p.send(buf, 0, 3 * 64);
                p.drain(5_000);
                assertEquals(List.of("PUB t 64 seq 0", "PUB t 64 seq 1", "PUB t 64 seq 2", "PING"), seen);
                ByteBuffer direct = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
                WireHeader.writeSequence(direct, 0, 3);
                assertTrue(p.offer(direct, 0, 64));
                p.drain(5_000);
                assertEquals("PUB t 64 seq 3", seen.get(4), "a direct buffer is copied the same way");
            }
        }
    }

    @Test
    void drainFailsNamingTheServerWhenNoPongComes() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            done.await(10, TimeUnit.SECONDS);
        })) {
            try (Publisher p = publisher(s, 64, Map.of())) {
                p.send(ByteBuffer.wrap(message(0, 64)), 0, 64);
                IOException e = assertThrows(IOException.class, () -> p.drain(200));
                assertEquals("NATS at " + s.address() + " did not answer a PING within 200 ms after 1 messages",
                        e.getMessage());
            }
            done.countDown();
        }
    }

    @Test
    void aPublisherFailsOnceTheServerSentAnError() throws Exception {
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            c.readLine();
            c.readPayload(64);
            c.send("-ERR 'Permissions Violation for Publish to \"t\"'\r\n");
            c.in.read();
        })) {
            try (Publisher p = publisher(s, 64, Map.of())) {
                ByteBuffer buf = ByteBuffer.wrap(message(0, 64));
                p.send(buf, 0, 64);
                Fault f = assertThrows(Fault.class, () -> {
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (System.nanoTime() < deadline) {
                        p.offer(buf, 0, 64);
                        LockSupport.parkNanos(1_000_000);
                    }
                });
                assertEquals(Fault.Kind.REFUSED, f.kind());
                assertTrue(f.getMessage().startsWith("connection to NATS at " + s.address() + " lost after ")
                        && f.getMessage().endsWith("(the server sent -ERR 'Permissions Violation for Publish to \"t\"')"),
                        f.getMessage());
                assertEquals(1L, p.counters().get("publish_errors"));
                assertEquals("NATS at " + s.address() + " sent -ERR 'Permissions Violation for Publish to \"t\"'",
                        p.firstError());
            }
        }
    }

    @Test
    void pushDeliveryOnTheEventLoopWithShortPayloadsSlowConsumerNoticesAndTheEnd() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            assertEquals("SUB t g 1", c.readLine());
            assertEquals("PING", c.readLine());
            c.send("PONG\r\n");
            c.send(msg(1, message(0, 64)) + msg(1, message(1, 64)) + "PING\r\n");
            assertEquals("PONG", c.readLine());
            started.await(10, TimeUnit.SECONDS);
            c.send(msg(1, message(2, 64)) + msg(1, new byte[10]) + "-ERR 'Slow Consumer'\r\n" + msg(1, message(3, 64))
                    + msg(9, message(4, 64)) + msg(1, message(5, 64)));
            c.in.read();
        })) {
            NettyNatsSubscriber sub = subscriber(s, Map.of("group", "g"));
            assertEquals("t", sub.destination());
            await(() -> sub.connection().pingsAnswered() == 1, "the server's PING answered");
            List<Long> seqs = new CopyOnWriteArrayList<>();
            List<String> threads = new CopyOnWriteArrayList<>();
            List<String> ends = new CopyOnWriteArrayList<>();
            sub.start((b, off) -> {
                seqs.add(WireHeader.sequence(b, off));
                threads.add(Thread.currentThread().getName());
                assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
            }, ends::add);
            started.countDown();
            await(() -> !ends.isEmpty(), "the end of the connection reported");
            assertEquals(List.of(0L, 1L, 2L, 3L), seqs, "what came before start first, in order; nothing after the error");
            assertTrue(threads.stream().allMatch(t -> t.startsWith("msgscope-io")), threads.toString());
            assertEquals(List.of("connection to NATS at " + s.address() + " lost (the server sent a MSG for subscription "
                    + "id 9; this connection made only id 1)"), ends);
            assertEquals(Map.of("errors", 2L, "short_payloads", 1L, "slow_consumer_events", 1L), sub.counters());
            assertEquals(ends.get(0), sub.closeReason());
            sub.close();
            assertEquals(1, ends.size(), "ended once, not again on close");
            assertEquals("fake", sub.serverInfo().get("server_name"));
            assertEquals("netty", sub.serverInfo().get("engine"));
        }
    }

    @Test
    void pollReturnsMinusOneOnceTheServerSentAnError() throws Exception {
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            c.readLine();
            c.readLine();
            c.send("PONG\r\n");
            c.send(msg(1, message(0, 64)) + "-ERR 'Unknown Protocol Operation'\r\n");
            c.in.read();
        })) {
            try (Subscriber sub = subscriber(s, Map.of())) {
                List<Long> seqs = new ArrayList<>();
                int total = 0;
                int n;
                while ((n = sub.poll((b, off) -> seqs.add(WireHeader.sequence(b, off)), 10_000)) > 0) {
                    total += n;
                }
                assertEquals(-1, n);
                assertEquals(1, total);
                assertEquals(List.of(0L), seqs);
                assertEquals("connection to NATS at " + s.address() + " lost (the server sent -ERR 'Unknown Protocol "
                        + "Operation')", sub.closeReason());
            }
        }
    }

    @Test
    void aSubscriptionRefusedIsARefusal() throws Exception {
        try (FakeServer s = new FakeServer(INFO, c -> {
            c.handshake();
            c.readLine();
            c.readLine();
            c.send("-ERR 'Permissions Violation for Subscription to \"t\"'\r\n");
            c.in.read();
        })) {
            Fault f = assertThrows(Fault.class, () -> subscriber(s, Map.of()));
            assertEquals(Fault.Kind.REFUSED, f.kind());
            assertEquals("NATS at " + s.address() + " did not take the subscription to 't' (the server sent -ERR "
                    + "'Permissions Violation for Subscription to \"t\"')", f.getMessage());
        }
    }

    @Test
    void tlsAskedOfAServerWithoutItFailsToConnect() throws Exception {
        try (FakeServer s = new FakeServer(INFO, c -> c.in.read())) {
            DriverSpec spec = new DriverSpec("", 0, s.uri().replace("nats://", "tls://"), 64, 0, Map.of("subject", "t"), "");
            Fault f = assertThrows(Fault.class, () -> new NatsDriver().openSubscriber(spec, CONTEXT));
            assertEquals(Fault.Kind.CONNECT_FAILED, f.kind());
            assertEquals("NATS at " + s.address() + " offers no TLS (its INFO has neither tls_required nor "
                    + "tls_available), but --uri asks for tls://", f.getMessage());
        }
    }

    @Test
    void aFailedTlsHandshakeIsAConnectFailure() throws Exception {
        try (FakeServer s = new FakeServer(INFO.replace("\"proto\"", "\"tls_required\":true,\"proto\""), c -> {
            c.in.read(); // the ClientHello
            c.send("this is not TLS\r\n");
        })) {
            Fault f = assertThrows(Fault.class, () -> subscriber(s, Map.of()));
            assertEquals(Fault.Kind.CONNECT_FAILED, f.kind());
            assertTrue(f.getMessage().startsWith("TLS handshake with NATS at " + s.address() + " failed: "), f.getMessage());
            assertFalse(f.getMessage().contains("\n"), f.getMessage());
        }
    }

    @Test
    void aServerThatSaysNothingBeforeClosingIsAConnectFailure() throws Exception {
        try (FakeServer s = new FakeServer("", c -> { })) {
            Fault f = assertThrows(Fault.class, () -> subscriber(s, Map.of()));
            assertEquals(Fault.Kind.CONNECT_FAILED, f.kind());
            assertEquals("cannot connect to NATS at " + s.address() + ": the server closed it", f.getMessage());
            assertNull(s.failure);
        }
    }
}

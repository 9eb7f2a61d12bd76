package io.msgscope.driver.kafka;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * A Kafka broker in this JVM for the tests (issue 19): one KRaft node that is broker and controller at once, its
 * client listener on 127.0.0.1 at the given port (0 = a free one), its controller on another free port, its log in a
 * temporary folder that {@link #close} removes. Formatted like {@code kafka-storage.sh format} with the latest
 * production metadata version, then started; topics are never created automatically (a test sees a missing topic as
 * missing), internal topics have replication 1, a new group starts at once.
 *
 * <p>{@link #main} runs one until it is killed, for the benchmark script and for trying the driver by hand:
 * {@code java -cp <test classpath> io.msgscope.driver.kafka.EmbeddedKafka 9092}.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final int port;
    private final int sslPort;
    private final Path dir;
    private final KafkaRaftServer server;
    private org.apache.kafka.clients.admin.Admin admin;
    private boolean stopped;

    private EmbeddedKafka(int port, int sslPort, Path dir, KafkaRaftServer server) {
        this.port = port;
        this.sslPort = sslPort;
        this.dir = dir;
        this.server = server;
    }

    /** A broker on a free port. */
    public static EmbeddedKafka start() throws Exception {
        return start(0);
    }

    /** A broker on {@code port} (0 = a free one). */
    public static EmbeddedKafka start(int port) throws Exception {
        return start(port, 0, null);
    }

    /**
     * A broker on {@code port} with an SSL listener as well on {@code sslPort} (0 = a free one) when {@code certs} is
     * not null: a folder of {@code TestCertificates} whose {@code server.pem} and {@code server.key} it presents (a
     * PEM keystore: {@code ssl.keystore.type=PEM}, the chain and the key inline).
     */
    public static EmbeddedKafka start(int port, int sslPort, Path certs) throws Exception {
        int p = port == 0 ? freePort() : port;
        int ssl = certs == null ? -1 : sslPort == 0 ? freePort() : sslPort;
        int controller = freePort();
        Path dir = Files.createTempDirectory("msgscope-kafka");
        try {
            Map<String, Object> props = new HashMap<>();
            props.put("process.roles", "broker,controller");
            props.put("node.id", "1");
            props.put("controller.quorum.voters", "1@127.0.0.1:" + controller);
            String tls = certs == null ? "" : ",SSL://127.0.0.1:" + ssl;
            props.put("listeners", "PLAINTEXT://127.0.0.1:" + p + tls + ",CONTROLLER://127.0.0.1:" + controller);
            props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + p + tls);
            props.put("controller.listener.names", "CONTROLLER");
            props.put("inter.broker.listener.name", "PLAINTEXT");
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT");
            if (certs != null) {
                props.put("ssl.keystore.type", "PEM");
                props.put("ssl.keystore.certificate.chain", Files.readString(certs.resolve("server.pem")));
                props.put("ssl.keystore.key", Files.readString(certs.resolve("server.key")));
            }
            props.put("log.dirs", dir.toString());
            props.put("auto.create.topics.enable", "false");
            props.put("offsets.topic.replication.factor", "1");
            props.put("offsets.topic.num.partitions", "1");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            props.put("group.initial.rebalance.delay.ms", "0");
            props.put("num.partitions", "1");
            KafkaConfig config = new KafkaConfig(props, false);
            new Formatter().setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(1).setClusterId(Uuid.randomUuid().toString())
                    .setControllerListenerName("CONTROLLER").setMetadataLogDirectory(dir.toString())
                    .setDirectories(java.util.List.of(dir.toString()))
                    .setReleaseVersion(MetadataVersion.latestProduction()).run();
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            EmbeddedKafka k = new EmbeddedKafka(p, ssl, dir, server);
            awaitListening(p);
            if (certs != null) {
                awaitListening(ssl);
            }
            return k;
        } catch (Exception | Error e) {
            delete(dir);
            throw e;
        }
    }

    private static void awaitListening(int port) throws IOException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the embedded Kafka broker did not listen on 127.0.0.1:" + port + " in 60 s");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
            }
        }
    }

    public int port() {
        return port;
    }

    /** The driver's URI for this broker. */
    public String uri() {
        return "kafka://127.0.0.1:" + port;
    }

    /** The driver's URI for the SSL listener (a broker started with certificates only). */
    public String sslUri() {
        return "kafka+ssl://127.0.0.1:" + sslPort;
    }

    public int sslPort() {
        return sslPort;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** An Admin client of this broker for the tests' own checks, closed with it. */
    public synchronized org.apache.kafka.clients.admin.Admin admin() {
        if (admin == null) {
            admin = org.apache.kafka.clients.admin.Admin.create(java.util.Map.of(
                    org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
        }
        return admin;
    }

    /** The broker's topics now. */
    public java.util.Set<String> topics() throws Exception {
        return admin().listTopics().names().get(15, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Stops the broker (a test's "broker killed mid-run"), keeping its folder until {@link #close}. */
    public synchronized void stop() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(1));
            admin = null;
        }
        if (!stopped) {
            stopped = true;
            server.shutdown();
            server.awaitShutdown();
        }
    }

    @Override
    public void close() throws IOException {
        stop();
        delete(dir);
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Runs a broker on the port given (default 9092) until the process is killed; prints its URI. With two more
     * arguments, {@code SSLPORT CERTDIR}, an SSL listener too on SSLPORT with CERTDIR's {@code server.pem} and
     * {@code server.key} (PEM, the key unencrypted PKCS#8).
     */
    public static void main(String[] args) throws Exception {
        EmbeddedKafka k = args.length > 2 ? start(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Path.of(args[2]))
                : start(args.length > 0 ? Integer.parseInt(args[0]) : 9092);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                k.close();
            } catch (IOException e) {
                // exiting anyway
            }
        }));
        System.out.println("kafka broker ready at " + k.uri() + (k.sslPort > 0 ? " and " + k.sslUri() : ""));
        System.out.flush();
        Thread.currentThread().join();
    }
}

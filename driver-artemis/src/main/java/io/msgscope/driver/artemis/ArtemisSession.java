package io.msgscope.driver.artemis;

import io.msgscope.core.driver.Fault;
import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.ActiveMQSecurityException;
import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One connection to the broker with one core session on it (A1: a publisher's or subscriber's own): a server locator
 * for the URI's host and port that does not reconnect (a lost connection ends the run, as for the stomp driver), its
 * session factory and a session with auto-commit sends and acks. Closing closes all three.
 */
final class ArtemisSession implements AutoCloseable {
    /** How long connecting and each blocking call (a blocking send, creating a queue) may take. */
    static final long CALL_TIMEOUT_MS = 30_000;

    final ServerLocator locator;
    final ClientSessionFactory factory;
    final ClientSession session;
    private final ArtemisSettings settings;

    private ArtemisSession(ArtemisSettings settings, ServerLocator locator, ClientSessionFactory factory,
                           ClientSession session) {
        this.settings = settings;
        this.locator = locator;
        this.factory = factory;
        this.session = session;
    }

    /** Connects and opens the session; a refusal (no broker, bad credentials) is a one-line {@link Fault}. */
    static ArtemisSession open(ArtemisSettings s, String side) throws IOException {
        ServerLocator locator = null;
        ClientSessionFactory factory = null;
        try {
            locator = ActiveMQClient.createServerLocator(s.locatorUrl());
            locator.setReconnectAttempts(0).setInitialConnectAttempts(1).setCallTimeout(CALL_TIMEOUT_MS)
                    .setBlockOnDurableSend(s.block()).setBlockOnNonDurableSend(s.block())
                    .setConsumerWindowSize(s.consumerWindow()).setUseGlobalPools(true);
            factory = locator.createSessionFactory();
            ClientSession session = factory.createSession(s.uri().user(), s.uri().password(), false, true, true,
                    false, locator.getAckBatchSize());
            return new ArtemisSession(s, locator, factory, session);
        } catch (Exception e) {
            if (factory != null) {
                factory.close();
            }
            if (locator != null) {
                locator.close();
            }
            Fault.Kind kind = e instanceof ActiveMQSecurityException ? Fault.Kind.REFUSED : Fault.Kind.CONNECT_FAILED;
            String tls = kind == Fault.Kind.CONNECT_FAILED && s.tls() != null
                    ? ArtemisTls.whyHandshakeFails(s.tls(), s.uri().host(), s.uri().port()) : null;
            throw new Fault(kind, "artemis: the " + side + " could not connect to " + s.url() + ": "
                    + (tls != null ? tls : describe(e)), e);
        }
    }

    /** One line for an Artemis exception: its type and message. */
    static String describe(Throwable e) {
        if (e instanceof ActiveMQException a) {
            return a.getType() + " " + a.getMessage();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** What the client knows of the broker: the protocol, and the broker's version as the session negotiated it. */
    Map<String, String> serverInfo() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("protocol", "Artemis core");
        m.put("server_version", String.valueOf(session.getVersion()));
        m.put("routing", settings.routingName());
        if (settings.tls() != null) {
            m.put("tls", settings.tls().label());
        }
        return Map.copyOf(m);
    }

    /** Why the session is unusable, or null while it works. */
    String lostReason() {
        if (session.isClosed() || factory.isClosed()) {
            return "artemis: the connection to " + settings.url() + " is closed";
        }
        return null;
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (ActiveMQException | RuntimeException e) {
            // closing anyway
        }
        factory.close();
        locator.close();
    }
}

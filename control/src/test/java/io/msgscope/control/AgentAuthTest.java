package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.msgscope.core.Version;
import io.msgscope.proto.AuthChallenge;
import io.msgscope.proto.AuthRequest;
import io.msgscope.proto.AuthResponse;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.ErrorReport;
import io.msgscope.proto.Role;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's check of the coordinator's proof of the shared secret (issue 36): ControlSecurityTest and
 * ControlPlaneIT drive real coordinators, which never send a bad proof, so here a hand-written coordinator
 * on an {@link EmbeddedAgent} sends a wrong one, one out of order and a replayed one. Every proof the test
 * sends is computed by hand ({@link SharedSecretTest#proof}); without TLS the channel binding is empty.
 * A refused coordinator gets one usage error, the connection closes, nothing it sends after is answered
 * and no role is made.
 */
class AgentAuthTest {
    private static final String WRONG_PROOF =
            "authentication failed: wrong shared secret (or a relayed proof: a man in the middle)";
    private static final String OUT_OF_ORDER = "authentication response out of order";

    @TempDir
    Path tmp;

    private final FakeRole.Factory factory = new FakeRole.Factory();
    private final List<EmbeddedAgent> agents = new ArrayList<>();
    private SharedSecret secret;

    @BeforeEach
    void loadSecret() throws Exception {
        secret = SharedSecretTest.load(tmp, SharedSecretTest.KEY);
    }

    @AfterEach
    void closeAll() {
        agents.forEach(EmbeddedAgent::close);
    }

    private EmbeddedAgent agent(SharedSecret s) {
        EmbeddedAgent a = new EmbeddedAgent(factory, s);
        agents.add(a);
        return a;
    }

    private static Envelope request(byte[] coordinatorNonce) {
        return Envelope.newBuilder().setAuthRequest(AuthRequest.newBuilder()
                .setCoordinatorNonce(ByteString.copyFrom(coordinatorNonce))).build();
    }

    private static Envelope response(byte[] proof) {
        return Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder()
                .setCoordinatorProof(ByteString.copyFrom(proof))).build();
    }

    /** Sends the nonce and returns the agent's challenge, its proof checked by hand. */
    private static AuthChallenge challenge(EmbeddedAgent a, byte[] cn) throws Exception {
        a.send(request(cn));
        AuthChallenge c = a.next(Envelope.BodyCase.AUTH_CHALLENGE).getAuthChallenge();
        assertTrue(c.getRequired());
        byte[] an = c.getAgentNonce().toByteArray();
        assertEquals(SharedSecret.NONCE_BYTES, an.length);
        assertArrayEquals(SharedSecretTest.proof(SharedSecretTest.KEY, "agent", cn, an, new byte[0]),
                c.getAgentProof().toByteArray(), "the agent's proof");
        return c;
    }

    private static byte[] coordinatorProof(String key, byte[] cn, AuthChallenge c) throws Exception {
        return SharedSecretTest.proof(key, "coordinator", cn, c.getAgentNonce().toByteArray(), new byte[0]);
    }

    /** The refusal: one usage error saying {@code why}, the connection closed, nothing more, no role. */
    private void assertRefused(EmbeddedAgent a, String why) throws Exception {
        ErrorReport err = a.next(Envelope.BodyCase.ERROR).getError();
        assertEquals(why, err.getMessage());
        assertTrue(err.getUsage());
        assertTrue(a.closed(), "the agent closed the connection");
        assertTrue(a.nothingMoreWritten(), "nothing answered after the refusal");
        assertTrue(factory.made.isEmpty(), "no role made for a refused coordinator");
    }

    @Test
    void theRightProofOpensTheSession() throws Exception {
        EmbeddedAgent a = agent(secret);
        byte[] cn = SharedSecret.nonce();
        AuthChallenge c = challenge(a, cn);
        a.send(response(coordinatorProof(SharedSecretTest.KEY, cn, c)));
        a.next(Envelope.BodyCase.AUTH_OK);
        assertEquals(Role.RELAY, a.handshake().getRole());
        assertFalse(a.closed());
    }

    @Test
    void aProofUnderAnotherSecretIsRefused() throws Exception {
        EmbeddedAgent a = agent(secret);
        byte[] cn = SharedSecret.nonce();
        AuthChallenge c = challenge(a, cn);
        // the Hello rides in the same read as the bad proof: it must go unanswered
        a.sendInOneRead(response(coordinatorProof("another-secret-0123456789", cn, c)),
                EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        assertRefused(a, WRONG_PROOF);
    }

    @Test
    void theAgentsOwnProofReflectedIsRefused() throws Exception {
        EmbeddedAgent a = agent(secret);
        AuthChallenge c = challenge(a, SharedSecret.nonce());
        a.sendInOneRead(response(c.getAgentProof().toByteArray()), EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        assertRefused(a, WRONG_PROOF);
    }

    @Test
    void anEmptyOrTruncatedProofIsRefused() throws Exception {
        for (int length : new int[] {0, 31}) {
            EmbeddedAgent a = agent(secret);
            byte[] cn = SharedSecret.nonce();
            byte[] right = coordinatorProof(SharedSecretTest.KEY, cn, challenge(a, cn));
            a.send(response(java.util.Arrays.copyOf(right, length)));
            assertRefused(a, WRONG_PROOF);
        }
    }

    @Test
    void aProofBeforeTheNonceExchangeIsOutOfOrder() throws Exception {
        EmbeddedAgent a = agent(secret);
        a.sendInOneRead(response(new byte[32]), EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        assertRefused(a, OUT_OF_ORDER);
    }

    @Test
    void aProofToAnAgentWithoutASecretIsOutOfOrder() throws Exception {
        EmbeddedAgent a = agent(null);
        a.send(response(new byte[32]));
        assertRefused(a, OUT_OF_ORDER);
    }

    @Test
    void aHelloBeforeTheProofIsRefused() throws Exception {
        EmbeddedAgent a = agent(secret);
        challenge(a, SharedSecret.nonce());
        a.send(EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        ErrorReport err = a.next(Envelope.BodyCase.ERROR).getError();
        assertTrue(err.getMessage().startsWith("this agent requires the shared secret"), err.getMessage());
        assertTrue(a.closed());
        assertTrue(factory.made.isEmpty());
    }

    /**
     * A recorded good conversation replayed on a new connection, the coordinator's nonce included: the
     * agent's fresh nonce makes the old proof wrong.
     */
    @Test
    void aProofReplayedOnAnotherConnectionIsRefused() throws Exception {
        EmbeddedAgent first = agent(secret);
        byte[] cn = SharedSecret.nonce();
        AuthChallenge c1 = challenge(first, cn);
        byte[] recorded = coordinatorProof(SharedSecretTest.KEY, cn, c1);
        first.send(response(recorded));
        first.next(Envelope.BodyCase.AUTH_OK);

        EmbeddedAgent second = agent(secret);
        AuthChallenge c2 = challenge(second, cn);
        assertFalse(c1.getAgentNonce().equals(c2.getAgentNonce()), "the agent's nonce is fresh");
        second.sendInOneRead(response(recorded), EmbeddedAgent.hello(Version.PROTOCOL, Role.RELAY));
        assertRefused(second, WRONG_PROOF);
    }

    @Test
    void aProofReplayedOnItsOwnConnectionIsOutOfOrder() throws Exception {
        EmbeddedAgent a = agent(secret);
        byte[] cn = SharedSecret.nonce();
        byte[] proof = coordinatorProof(SharedSecretTest.KEY, cn, challenge(a, cn));
        a.send(response(proof));
        a.next(Envelope.BodyCase.AUTH_OK);
        a.send(response(proof));
        assertRefused(a, OUT_OF_ORDER);
    }
}

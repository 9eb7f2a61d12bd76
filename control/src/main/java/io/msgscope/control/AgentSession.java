package io.msgscope.control;

import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Environment;
import io.msgscope.proto.Heartbeat;
import io.msgscope.proto.Hello;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import java.util.function.Supplier;

/**
 * The agent's side of one coordinator connection: checks the handshake (protocol version, role),
 * hands the spec to a fresh {@link AgentRole}, relays phase starts and ends, and streams the trace
 * back. Blocking work (socket set-up, upload) runs on a session worker thread ({@link RoleWorker}),
 * never on the event loop. Errors travel as frames; a dropped connection closes the role, so the agent is ready for
 * the next run.
 */
public final class AgentSession extends SimpleChannelInboundHandler<Envelope> {
    private enum State { AUTH, HELLO, SPEC, PREPARED, REFUSED, CLOSED }

    /** What the session needs from its server (issue 14): who may take the agent, and where refusals go. */
    interface Gate {
        /**
         * The peer has authenticated: the agent becomes this session's. False when it is busy with
         * another session (or the connection was dropped meanwhile): the session then refuses.
         */
        boolean claim(Channel ch);

        /** Logs a refused peer (rate-limited). */
        void refused(Channel ch, String why);

        /** True when a completed TLS handshake (client certificate from the CA) is the whole authentication. */
        boolean tlsOnly();
    }

    /** No server (tests on an embedded channel): the agent is always free, refusals go to stderr. */
    private static Gate standalone(Role role) {
        return new Gate() {
            @Override
            public boolean claim(Channel ch) {
                return true;
            }

            @Override
            public void refused(Channel ch, String why) {
                System.err.println("msgscope agent (" + Frames.name(role) + "): refused control connection from "
                        + ch.remoteAddress() + ": " + why);
            }

            @Override
            public boolean tlsOnly() {
                return false;
            }
        };
    }

    private final Role role;
    private final Runnable onEnd;
    private final RoleWorker work;
    private volatile State state;
    private final SharedSecret secret;
    private final Gate gate;
    /** The channel binding the proofs cover: SHA-256 of this agent's TLS certificate, empty without TLS. */
    private byte[] binding = new byte[0];
    private boolean authenticated;
    private byte[] coordinatorNonce;
    private byte[] agentNonce;

    public AgentSession(Role role, Supplier<AgentRole> roleFactory, Runnable onEnd) {
        this(role, roleFactory, onEnd, null);
    }

    /** With a shared secret the coordinator must authenticate before anything else (issues 6, 14). */
    public AgentSession(Role role, Supplier<AgentRole> roleFactory, Runnable onEnd, SharedSecret secret) {
        this(role, roleFactory, onEnd, secret, standalone(role));
    }

    AgentSession(Role role, Supplier<AgentRole> roleFactory, Runnable onEnd, SharedSecret secret, Gate gate) {
        this.secret = secret;
        this.gate = gate;
        this.state = secret != null ? State.AUTH : State.HELLO;
        this.role = role;
        this.onEnd = onEnd;
        this.work = new RoleWorker(role, roleFactory);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            Channel ch = ctx.channel();
            if (!done.isSuccess()) {
                refuse(ch, "TLS handshake failed: " + ControlTls.describe(done.cause()), false);
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            binding = ControlTls.binding(ssl.engine().getSession(), true);
            if (gate.tlsOnly()) {
                authenticated(ch); // the client certificate was checked against the CA in the handshake
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The peer has proven itself: take the agent, or tell it the agent is busy. */
    private boolean authenticated(Channel ch) {
        if (authenticated) {
            return true;
        }
        if (!gate.claim(ch)) {
            state = State.REFUSED;
            ch.config().setAutoRead(false);
            ch.writeAndFlush(Frames.error(role, "agent busy with another run", false)).addListener(f -> ch.close());
            return false;
        }
        authenticated = true;
        return true;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope env) {
        Channel ch = ctx.channel();
        if (state == State.REFUSED || state == State.CLOSED) {
            return; // refused: what the peer sent after is dropped unread, and not logged again
        }
        if (env.getBodyCase() == Envelope.BodyCase.AUTH_REQUEST) {
            onAuthRequest(ch, env.getAuthRequest().getCoordinatorNonce().toByteArray());
            return;
        }
        if (env.getBodyCase() == Envelope.BodyCase.AUTH_RESPONSE) {
            onAuthResponse(ch, env.getAuthResponse().getCoordinatorProof().toByteArray());
            return;
        }
        if (state == State.AUTH) {
            refuse(ch, "this agent requires the shared secret (--secret-file or MSGSCOPE_SECRET); "
                    + "got " + env.getBodyCase() + " before authenticating", true);
            return;
        }
        switch (env.getBodyCase()) {
            case HELLO -> onHello(ch, env.getHello());
            case SPEC -> {
                if (state != State.SPEC) {
                    fail(ch, "run spec received out of order (state " + state + ")");
                    return;
                }
                state = State.PREPARED;
                work.prepare(ch, env.getSpec());
            }
            case GO -> {
                AgentRole r = requirePrepared(ch, "go");
                if (r != null) {
                    if (env.getGo().getStartEpochNs() != 0) {
                        r.startAt(env.getGo().getStartEpochNs());
                    }
                    r.start(env.getGo().getPhase(), new AgentRole.PhaseListener() {
                        @Override
                        public void done(PhaseDone done) {
                            ch.writeAndFlush(Envelope.newBuilder().setPhaseDone(done).build());
                        }

                        @Override
                        public void failed(String message) {
                            ch.writeAndFlush(Frames.error(role, message, false));
                        }

                        @Override
                        public void phaseEnded(io.msgscope.proto.PhaseEnd end) {
                            ch.writeAndFlush(Envelope.newBuilder().setPhaseEnd(end).build());
                        }
                    });
                }
            }
            case SENDER_FINISHED -> {
                AgentRole r = requirePrepared(ch, "sender-finished");
                if (r != null) {
                    r.senderFinished(env.getSenderFinished().getSent());
                }
            }
            case FAULTS_GO -> {
                long received = System.nanoTime();
                AgentRole r = requirePrepared(ch, "faults-go");
                if (r != null) {
                    r.startFaults(received + env.getFaultsGo().getStartInNs());
                }
            }
            case PHASE_END -> {
                AgentRole r = requirePrepared(ch, "phase-end");
                if (r != null) {
                    r.phaseEnded(env.getPhaseEnd());
                }
            }
            case STOP -> {
                AgentRole r = requirePrepared(ch, "stop");
                if (r != null) {
                    r.endEarly();
                }
            }
            case UPLOAD_REQUEST -> {
                AgentRole r = requirePrepared(ch, "upload");
                if (r != null) {
                    work.upload(ch, r);
                }
            }
            case FLOW_PROBE -> {
                AgentRole r = requirePrepared(ch, "flow probe");
                if (r != null) {
                    work.flow(ch, r, env.getFlowProbe());
                }
            }
            case SCENARIO_QUERY -> {
                AgentRole r = requirePrepared(ch, "scenario request");
                if (r != null) {
                    work.scenario(ch, r, env.getScenarioQuery());
                }
            }
            case CLOCK_PROBE -> {
                long now = System.nanoTime();
                io.msgscope.core.Clock c = io.msgscope.core.Clock.process();
                // the test hook (issue 33) shifts the monotonic answer as it shifts a trace sender's uploaded times
                long mono = c.shift() == null ? now : now + c.shift().at(now);
                ch.writeAndFlush(Envelope.newBuilder().setClockProbe(env.getClockProbe().toBuilder().setAgentNs(mono)
                        .setAgentEpochNs(c.toEpoch(now))).build());
            }
            case HEARTBEAT -> ch.writeAndFlush(Envelope.newBuilder()
                    .setHeartbeat(Heartbeat.newBuilder().setNanos(System.nanoTime()).setProgress(work.progress())).build());
            case ABORT, BYE -> ch.close();
            default -> fail(ch, "unexpected frame " + env.getBodyCase());
        }
    }

    /**
     * The coordinator's nonce: the agent answers with its own and its proof over both and the binding.
     * Without a secret it says so (required = false): a coordinator with a secret then refuses it.
     */
    private void onAuthRequest(Channel ch, byte[] cn) {
        if (agentNonce != null || authenticated && secret != null) {
            refuse(ch, "a second authentication request on one connection", true);
            return;
        }
        if (cn.length != SharedSecret.NONCE_BYTES) {
            refuse(ch, "malformed authentication request (nonce of " + cn.length + " bytes)", true);
            return;
        }
        coordinatorNonce = cn;
        agentNonce = SharedSecret.nonce();
        io.msgscope.proto.AuthChallenge.Builder c = io.msgscope.proto.AuthChallenge.newBuilder()
                .setAgentNonce(com.google.protobuf.ByteString.copyFrom(agentNonce)).setRequired(secret != null);
        if (secret != null) {
            c.setAgentProof(com.google.protobuf.ByteString.copyFrom(secret.agentProof(cn, agentNonce, binding)));
        }
        ch.writeAndFlush(Envelope.newBuilder().setAuthChallenge(c).build());
    }

    private void onAuthResponse(Channel ch, byte[] proof) {
        if (secret == null || state != State.AUTH || agentNonce == null) {
            refuse(ch, "authentication response out of order", true);
            return;
        }
        if (!SharedSecret.matches(secret.coordinatorProof(coordinatorNonce, agentNonce, binding), proof)) {
            refuse(ch, "authentication failed: wrong shared secret (or a relayed proof: a man in the middle)", true);
            return;
        }
        if (!authenticated(ch)) {
            return;
        }
        state = State.HELLO;
        ch.writeAndFlush(Envelope.newBuilder().setAuthOk(io.msgscope.proto.AuthOk.getDefaultInstance()).build());
    }

    /**
     * Refuses a peer: logged (rate-limited), told in one frame when {@code tell}, disconnected; nothing it
     * sends after is read. The agent keeps serving.
     */
    private void refuse(Channel ch, String why, boolean tell) {
        state = State.REFUSED;
        ch.config().setAutoRead(false);
        gate.refused(ch, why);
        if (tell) {
            ch.writeAndFlush(Frames.error(role, why, true)).addListener(f -> ch.close());
        } else {
            ch.close();
        }
    }

    private void onHello(Channel ch, Hello hello) {
        if (state != State.HELLO) {
            fail(ch, "second handshake on one connection");
            return;
        }
        if (hello.getProtocolVersion() != Version.PROTOCOL) {
            ch.writeAndFlush(Frames.error(role, "control protocol version mismatch: agent speaks "
                    + Version.PROTOCOL + " (msgscope " + Version.TOOL + "), coordinator speaks "
                    + hello.getProtocolVersion() + " (msgscope " + hello.getToolVersion()
                    + "); run the same msgscope version on both sides", true)).addListener(f -> ch.close());
            return;
        }
        if (hello.getRole() != role) {
            ch.writeAndFlush(Frames.error(role, "this agent serves the role " + Frames.name(role)
                    + ", not " + Frames.name(hello.getRole()), true)).addListener(f -> ch.close());
            return;
        }
        if (!authenticated(ch)) { // no credentials (loopback): a valid Hello is all there is to check
            return;
        }
        state = State.SPEC;
        EnvironmentInfo e = EnvironmentInfo.current();
        ch.writeAndFlush(Envelope.newBuilder().setHelloAck(HelloAck.newBuilder()
                .setProtocolVersion(Version.PROTOCOL).setRole(role).setToolVersion(Version.TOOL)
                .setHost(e.hostname()).setPid(ProcessHandle.current().pid())
                .setEnvironment(Environment.newBuilder().setJvm(e.jvm()).setOs(e.os()).setCpuModel(e.cpuModel())
                        .setLogicalCores(e.logicalCores()).setPhysicalCores(e.physicalCores())
                        .setHostname(e.hostname()).setBootId(e.bootId()))).build());
    }

    private AgentRole requirePrepared(Channel ch, String what) {
        AgentRole r = work.current();
        if (r == null || state != State.PREPARED) {
            fail(ch, what + " before the run spec was accepted");
            return null;
        }
        return r;
    }

    private void fail(Channel ch, String message) {
        ch.writeAndFlush(Frames.error(role, message, false)).addListener(f -> ch.close());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        work.end(onEnd);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state != State.REFUSED && state != State.CLOSED) {
            String why = cause instanceof javax.net.ssl.SSLException || cause.getCause() instanceof javax.net.ssl.SSLException
                    ? ControlTls.describe(cause) : describe(cause);
            if (authenticated) {
                System.err.println("msgscope agent (" + Frames.name(role) + "): closing control connection from "
                        + ctx.channel().remoteAddress() + ": " + why);
            } else {
                gate.refused(ctx.channel(), why);
            }
        }
        state = State.REFUSED;
        ctx.channel().config().setAutoRead(false);
        ctx.close();
    }

    /** A one-line description of an exception: its message, or its class when it has none. */
    public static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}

package io.msgscope.control;

import io.msgscope.core.EnvironmentInfo;
import io.msgscope.core.SpecException;
import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Environment;
import io.msgscope.proto.Heartbeat;
import io.msgscope.proto.Hello;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Role;
import io.msgscope.proto.UploadDone;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The agent's side of one coordinator connection: checks the handshake (protocol version, role),
 * hands the spec to a fresh {@link AgentRole}, relays phase starts and ends, and streams the trace
 * back. Blocking work (socket set-up, upload) runs on a session worker thread, never on the event
 * loop. Errors travel as frames; a dropped connection closes the role, so the agent is ready for
 * the next run.
 */
public final class AgentSession extends SimpleChannelInboundHandler<Envelope> {
    private enum State { AUTH, HELLO, SPEC, PREPARED, CLOSED }

    private final Role role;
    private final Supplier<AgentRole> roleFactory;
    private final Runnable onEnd;
    private final ExecutorService worker;
    private volatile State state;
    private volatile AgentRole current;
    private final SharedSecret secret;
    private byte[] agentNonce;

    public AgentSession(Role role, Supplier<AgentRole> roleFactory, Runnable onEnd) {
        this(role, roleFactory, onEnd, null);
    }

    /** With a shared secret the coordinator must authenticate before anything else (issue 6). */
    public AgentSession(Role role, Supplier<AgentRole> roleFactory, Runnable onEnd, SharedSecret secret) {
        this.secret = secret;
        this.state = secret != null ? State.AUTH : State.HELLO;
        this.role = role;
        this.roleFactory = roleFactory;
        this.onEnd = onEnd;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, Frames.name(role) + "-session");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope env) {
        Channel ch = ctx.channel();
        if (env.getBodyCase() == Envelope.BodyCase.AUTH_REQUEST) {
            onAuthRequest(ch, env.getAuthRequest().getCoordinatorNonce().toByteArray());
            return;
        }
        if (env.getBodyCase() == Envelope.BodyCase.AUTH_RESPONSE) {
            onAuthResponse(ch, env.getAuthResponse().getCoordinatorProof().toByteArray());
            return;
        }
        if (state == State.AUTH) {
            reject(ch, "this agent requires the shared secret (--secret-file or MSGSCOPE_SECRET); "
                    + "got " + env.getBodyCase() + " before authenticating");
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
                worker.execute(() -> prepare(ch, env));
            }
            case GO -> {
                AgentRole r = requirePrepared(ch, "go");
                if (r != null) {
                    r.start(env.getGo().getPhase(), new AgentRole.PhaseListener() {
                        @Override
                        public void done(PhaseDone done) {
                            ch.writeAndFlush(Envelope.newBuilder().setPhaseDone(done).build());
                        }

                        @Override
                        public void failed(String message) {
                            ch.writeAndFlush(Frames.error(role, message, false));
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
            case UPLOAD_REQUEST -> {
                AgentRole r = requirePrepared(ch, "upload");
                if (r != null) {
                    worker.execute(() -> upload(ch, r));
                }
            }
            case FLOW_PROBE -> {
                AgentRole r = requirePrepared(ch, "flow probe");
                if (r != null) {
                    worker.execute(() -> {
                        try {
                            ch.writeAndFlush(Envelope.newBuilder().setFlowResult(r.flow(env.getFlowProbe())).build());
                        } catch (Exception e) {
                            ch.writeAndFlush(Frames.error(role, "throughput probe failed: " + describe(e), false));
                        }
                    });
                }
            }
            case SCENARIO_QUERY -> {
                AgentRole r = requirePrepared(ch, "scenario request");
                if (r != null) {
                    worker.execute(() -> {
                        try {
                            ch.writeAndFlush(Envelope.newBuilder().setScenarioReport(r.scenario(env.getScenarioQuery()))
                                    .build());
                        } catch (SpecException e) {
                            ch.writeAndFlush(Frames.error(role, e.getMessage(), true));
                        } catch (Exception e) {
                            ch.writeAndFlush(Frames.error(role, "scenario request failed: " + describe(e), false,
                                    io.msgscope.core.driver.Fault.kindOf(e).name()));
                        }
                    });
                }
            }
            case CLOCK_PROBE -> {
                long now = System.nanoTime();
                ch.writeAndFlush(Envelope.newBuilder().setClockProbe(env.getClockProbe().toBuilder().setAgentNs(now)
                        .setAgentEpochNs(io.msgscope.core.Clock.process().toEpoch(now))).build());
            }
            case HEARTBEAT -> ch.writeAndFlush(Envelope.newBuilder()
                    .setHeartbeat(Heartbeat.newBuilder().setNanos(System.nanoTime())).build());
            case ABORT, BYE -> ch.close();
            default -> fail(ch, "unexpected frame " + env.getBodyCase());
        }
    }

    private void onAuthRequest(Channel ch, byte[] coordinatorNonce) {
        agentNonce = SharedSecret.nonce();
        io.msgscope.proto.AuthChallenge.Builder c = io.msgscope.proto.AuthChallenge.newBuilder()
                .setAgentNonce(com.google.protobuf.ByteString.copyFrom(agentNonce)).setRequired(secret != null);
        if (secret != null) {
            c.setAgentProof(com.google.protobuf.ByteString.copyFrom(secret.agentProof(coordinatorNonce)));
        }
        ch.writeAndFlush(Envelope.newBuilder().setAuthChallenge(c).build());
    }

    private void onAuthResponse(Channel ch, byte[] proof) {
        if (secret == null) {
            ch.writeAndFlush(Envelope.newBuilder().setAuthOk(io.msgscope.proto.AuthOk.getDefaultInstance()).build());
            return;
        }
        if (state != State.AUTH || agentNonce == null
                || !SharedSecret.matches(secret.coordinatorProof(agentNonce), proof)) {
            reject(ch, "authentication failed: wrong shared secret");
            return;
        }
        state = State.HELLO;
        ch.writeAndFlush(Envelope.newBuilder().setAuthOk(io.msgscope.proto.AuthOk.getDefaultInstance()).build());
    }

    /** Refuses a coordinator: logged, told in one frame, disconnected; the agent keeps serving. */
    private void reject(Channel ch, String why) {
        System.err.println("msgscope agent (" + Frames.name(role) + "): rejected control connection from "
                + ch.remoteAddress() + ": " + why);
        ch.writeAndFlush(Frames.error(role, why, true)).addListener(f -> ch.close());
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
        state = State.SPEC;
        EnvironmentInfo e = EnvironmentInfo.current();
        ch.writeAndFlush(Envelope.newBuilder().setHelloAck(HelloAck.newBuilder()
                .setProtocolVersion(Version.PROTOCOL).setRole(role).setToolVersion(Version.TOOL)
                .setHost(e.hostname()).setPid(ProcessHandle.current().pid())
                .setEnvironment(Environment.newBuilder().setJvm(e.jvm()).setOs(e.os()).setCpuModel(e.cpuModel())
                        .setLogicalCores(e.logicalCores()).setPhysicalCores(e.physicalCores())
                        .setHostname(e.hostname()).setBootId(e.bootId()))).build());
    }

    private void prepare(Channel ch, Envelope env) {
        try {
            AgentRole r = roleFactory.get();
            current = r;
            if (state == State.CLOSED) {
                r.close();
                return;
            }
            ch.writeAndFlush(Envelope.newBuilder().setReady(r.prepare(env.getSpec())).build());
        } catch (SpecException e) {
            ch.writeAndFlush(Frames.error(role, e.getMessage(), true));
        } catch (Exception | OutOfMemoryError e) {
            ch.writeAndFlush(Frames.error(role, "cannot prepare the run: " + describe(e), false,
                    io.msgscope.core.driver.Fault.kindOf(e).name()));
        }
    }

    private void upload(Channel ch, AgentRole r) {
        long[] chunks = {0};
        try {
            r.upload((series, values, count) -> {
                for (int from = 0; from < count; from += Frames.CHUNK_VALUES) {
                    int n = Math.min(Frames.CHUNK_VALUES, count - from);
                    // wait for each chunk to be written: bounded memory whatever the trace size
                    ch.writeAndFlush(Frames.chunk(series, from, values, from, n)).sync();
                    chunks[0]++;
                }
            });
            ch.writeAndFlush(Envelope.newBuilder().setUploadDone(UploadDone.newBuilder().setChunks(chunks[0]))
                    .build());
        } catch (Exception e) {
            ch.writeAndFlush(Frames.error(role, "upload failed: " + describe(e), false));
        }
    }

    private AgentRole requirePrepared(Channel ch, String what) {
        AgentRole r = current;
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
        // the session ends once the role has closed: a once-mode agent exits only after its clean-up
        // (e.g. deleting the JetStream streams the run made), and a daemon takes no new run before
        AgentRole r = current;
        if (r == null) {
            onEnd.run();
        } else {
            worker.execute(() -> {
                try {
                    r.close();
                } finally {
                    onEnd.run();
                }
            });
        }
        worker.shutdown();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        System.err.println("msgscope agent (" + Frames.name(role) + "): closing control connection from "
                + ctx.channel().remoteAddress() + ": " + describe(cause));
        ctx.close();
    }

    /** A one-line description of an exception: its message, or its class when it has none. */
    public static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}

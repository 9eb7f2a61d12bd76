package io.msgscope.control;

import io.msgscope.core.SpecException;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.FlowProbe;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.UploadDone;
import io.netty.channel.Channel;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The blocking side of one {@link AgentSession}: makes the session's {@link AgentRole}, prepares it, uploads its
 * trace, answers throughput probes and scenario requests, and closes it at the end, all on the session's worker
 * thread, never on the event loop. Each answer, result or error, goes back to the coordinator as a frame.
 */
final class RoleWorker {
    /**
     * Test hook (issue 16's fault matrix): a pause after each uploaded chunk, so a test can kill an agent while its
     * own trace is on the way; read from the environment the agents inherit, 0 (no pause) unless set.
     */
    static final long UPLOAD_PAUSE_MS = uploadPauseMs(System.getenv("MSGSCOPE_TEST_UPLOAD_PAUSE_MS"));

    private final Role role;
    private final Supplier<AgentRole> roleFactory;
    private final ExecutorService worker;
    private volatile AgentRole current;
    private volatile boolean closed;

    RoleWorker(Role role, Supplier<AgentRole> roleFactory) {
        this.role = role;
        this.roleFactory = roleFactory;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, Frames.name(role) + "-session");
            t.setDaemon(true);
            return t;
        });
    }

    static long uploadPauseMs(String value) {
        try {
            return value == null || value.isBlank() ? 0 : Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The role made by {@link #prepare}, null before. */
    AgentRole current() {
        return current;
    }

    /** The current role's progress for a heartbeat answer; 0 before a role exists or when it fails to say. */
    long progress() {
        AgentRole r = current;
        try {
            return r == null ? 0 : r.progress();
        } catch (RuntimeException e) {
            return 0; // a heartbeat is never lost to a progress report
        }
    }

    /** Makes a fresh role and prepares it for {@code spec}; answers Ready or the error. */
    void prepare(Channel ch, RunSpec spec) {
        worker.execute(() -> {
            try {
                AgentRole r = roleFactory.get();
                current = r;
                if (closed) {
                    r.close();
                    return;
                }
                ch.writeAndFlush(Envelope.newBuilder().setReady(r.prepare(spec)).build());
            } catch (SpecException e) {
                ch.writeAndFlush(Frames.error(role, e.getMessage(), true));
            } catch (Exception | OutOfMemoryError e) {
                ch.writeAndFlush(Frames.error(role, "cannot prepare the run: " + AgentSession.describe(e), false,
                        io.msgscope.core.driver.Fault.kindOf(e).name()));
            }
        });
    }

    /** Streams the role's trace in chunks, each written before the next, then UploadDone. */
    void upload(Channel ch, AgentRole r) {
        worker.execute(() -> {
            long[] chunks = {0};
            try {
                r.upload((series, values, count) -> {
                    for (int from = 0; from < count; from += Frames.CHUNK_VALUES) {
                        int n = Math.min(Frames.CHUNK_VALUES, count - from);
                        // wait for each chunk to be written: bounded memory whatever the trace size
                        ch.writeAndFlush(Frames.chunk(series, from, values, from, n)).sync();
                        chunks[0]++;
                        if (UPLOAD_PAUSE_MS > 0) {
                            Thread.sleep(UPLOAD_PAUSE_MS);
                        }
                    }
                });
                ch.writeAndFlush(Envelope.newBuilder().setUploadDone(UploadDone.newBuilder().setChunks(chunks[0]))
                        .build());
            } catch (Exception e) {
                ch.writeAndFlush(Frames.error(role, "upload failed: " + AgentSession.describe(e), false));
            }
        });
    }

    /** Runs a throughput probe and answers its result. */
    void flow(Channel ch, AgentRole r, FlowProbe probe) {
        worker.execute(() -> {
            try {
                ch.writeAndFlush(Envelope.newBuilder().setFlowResult(r.flow(probe)).build());
            } catch (Exception e) {
                ch.writeAndFlush(Frames.error(role, "throughput probe failed: " + AgentSession.describe(e), false));
            }
        });
    }

    /** Answers a scenario request. */
    void scenario(Channel ch, AgentRole r, ScenarioQuery query) {
        worker.execute(() -> {
            try {
                ch.writeAndFlush(Envelope.newBuilder().setScenarioReport(r.scenario(query)).build());
            } catch (SpecException e) {
                ch.writeAndFlush(Frames.error(role, e.getMessage(), true));
            } catch (Exception e) {
                ch.writeAndFlush(Frames.error(role, "scenario request failed: " + AgentSession.describe(e), false,
                        io.msgscope.core.driver.Fault.kindOf(e).name()));
            }
        });
    }

    /**
     * The connection is gone: {@code onEnd} runs once the role has closed, so a once-mode agent exits only after its
     * clean-up (e.g. deleting the JetStream streams the run made), and a daemon takes no new run before.
     */
    void end(Runnable onEnd) {
        closed = true;
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
}

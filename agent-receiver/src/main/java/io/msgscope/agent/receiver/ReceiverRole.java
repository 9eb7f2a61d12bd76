package io.msgscope.agent.receiver;

import io.msgscope.control.AgentRole;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.ReceiveRecorder;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.Endpoint;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;

import java.nio.ByteBuffer;

/**
 * Receives on its own connection and thread (M5.6), taking I_n first thing for every message (Q2)
 * into a preallocated array indexed by sequence (D5); warm-up messages (negative sequence) are
 * only counted. One receive loop runs from the warm-up to the end of the measurement: the
 * warm-up phase ends when every warm-up message arrived; the measurement ends when every measured
 * message arrived, or when the sender has finished and nothing arrived for the drain timeout
 * (the rest is lost), or when the connection closes.
 */
public final class ReceiverRole implements AgentRole {
    private static final long POLL_MS = 50;

    private final Driver driver;
    private RunSpec spec;
    private ReceiveRecorder recorder;
    private Subscriber subscriber;
    private RoleThread thread;
    private volatile boolean stopped;
    private volatile long senderSent = -1;
    private volatile PhaseListener measureListener;
    private final Handler handler = new Handler();

    public ReceiverRole(Driver driver) {
        this.driver = driver;
    }

    /** The per-message callback: one object for the whole run, no allocation per message. */
    private final class Handler implements MessageHandler {
        long warmupReceived;
        long bytes;
        long lastArrivalNs;

        @Override
        public void onMessage(ByteBuffer buffer, int offset) {
            final long t = System.nanoTime();
            final long seq = WireHeader.sequence(buffer, offset);
            if (seq < 0) {
                warmupReceived++;
            } else {
                recorder.recordReceive(seq, t);
            }
            lastArrivalNs = t;
        }
    }

    @Override
    public Role role() {
        return Role.RECEIVER;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        this.spec = spec;
        recorder = new ReceiveRecorder((int) spec.getCount());
        thread = new RoleThread("msgscope-receiver", spec.getPinCpu());
        subscriber = driver.openSubscriber(new Endpoint(spec.getConnectHost(), spec.getConnectPort(),
                spec.getSocketBuffer()), spec.getSize());
        return thread.ready().setRole(Role.RECEIVER).build();
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (phase == Phase.MEASURE) {
            measureListener = listener; // the receive loop is already running
            return;
        }
        thread.submit(() -> receiveLoop(listener));
    }

    @Override
    public void senderFinished(long sent) {
        senderSent = sent;
    }

    private void receiveLoop(PhaseListener warmupListener) {
        final Subscriber sub = subscriber;
        final Handler h = handler;
        final ReceiveRecorder rec = recorder;
        final long warmup = spec.getWarmupCount();
        final long drainNs = spec.getDrainTimeoutMs() * 1_000_000L;
        boolean warmupReported = false;
        long allocatedAtMeasureStart = -1;
        boolean eof = false;
        long finishedSeenNs = 0;
        try {
            while (!stopped) {
                if (!warmupReported && h.warmupReceived >= warmup) {
                    warmupListener.done(PhaseDone.newBuilder().setPhase(Phase.WARMUP)
                            .setReceived(h.warmupReceived).build());
                    warmupReported = true;
                    allocatedAtMeasureStart = thread.allocatedBytes();
                }
                if (rec.complete()) {
                    break;
                }
                int n = sub.poll(h, POLL_MS);
                if (n < 0) {
                    eof = true;
                    break;
                }
                if (n == 0 && senderSent >= 0) {
                    long now = System.nanoTime();
                    if (finishedSeenNs == 0) {
                        finishedSeenNs = now;
                    }
                    if (now - Math.max(h.lastArrivalNs, finishedSeenNs) > drainNs) {
                        break; // the sender is done and nothing came for the drain timeout
                    }
                }
            }
        } catch (Exception e) {
            fail(warmupReported ? null : warmupListener, "receiving failed after " + rec.received()
                    + " measured messages: " + io.msgscope.control.AgentSession.describe(e));
            return;
        }
        if (stopped) {
            return;
        }
        if (!warmupReported) {
            warmupListener.failed("connection closed during the warm-up after " + h.warmupReceived + " of "
                    + warmup + " warm-up messages");
            return;
        }
        PhaseDone done = PhaseDone.newBuilder().setPhase(Phase.MEASURE).setReceived(rec.received())
                .setDuplicates(rec.duplicates()).setReordered(rec.reordered()).setOutOfRange(rec.outOfRange())
                .setBytes(rec.received() * spec.getSize()).setFirstNs(rec.firstNs()).setLastNs(rec.lastNs())
                .setTimedOut(!rec.complete() && !eof)
                .setHotThreadAllocatedBytes(allocatedAtMeasureStart < 0 ? -1
                        : thread.allocatedBytes() - allocatedAtMeasureStart).build();
        PhaseListener l = awaitMeasureListener();
        if (l != null) {
            l.done(done);
        }
    }

    private PhaseListener awaitMeasureListener() {
        // the coordinator registers the measure phase before the sender starts, so this is
        // already set unless the run was torn down
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (measureListener == null && !stopped && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return measureListener;
    }

    private void fail(PhaseListener warmupListener, String message) {
        if (warmupListener != null) {
            warmupListener.failed(message);
        } else {
            PhaseListener l = awaitMeasureListener();
            if (l != null) {
                l.failed(message);
            }
        }
    }

    @Override
    public void upload(TraceSink sink) throws Exception {
        sink.series(Series.RECV_NS, recorder.recvNs(), (int) spec.getCount());
    }

    @Override
    public void close() {
        stopped = true;
        if (thread != null) {
            thread.close();
        }
        try {
            if (subscriber != null) {
                subscriber.close();
            }
        } catch (Exception e) {
            // closing anyway
        }
    }
}

package io.msgscope.control;

import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

/**
 * What one agent measures. The {@link AgentSession} drives it through the lifecycle
 * handshake → spec ({@link #prepare}) → warm-up and measure ({@link #start}) → upload → close;
 * the role does the work on its own named thread and never on the control channel's event loop.
 */
public interface AgentRole {
    Role role();

    /** Takes the spec, allocates the trace arrays, binds or connects the data sockets. */
    Ready prepare(RunSpec spec) throws Exception;

    /** Starts a phase on the role's own thread; calls the listener exactly once when it ends. */
    void start(Phase phase, PhaseListener listener);

    /**
     * Messages the role has handled so far in the measurement (sent, received), read on the control channel's
     * event loop for each heartbeat answer: cheap, never blocking; 0 where the role counts none (issue 18).
     */
    default long progress() {
        return 0;
    }

    /**
     * The sender finished a phase after sending {@code sent} messages (receiver only): first the warm-up
     * (so a warm-up whose messages stopped arriving can end after the drain timeout), then the measurement.
     */
    default void senderFinished(long sent) {
    }

    /**
     * End the current phase now and report it done with what was sent so far (sender only; the run was interrupted,
     * issue 29); a role that has nothing to cut short ignores it.
     */
    default void endEarly() {
    }

    /**
     * The next {@link #start} begins its timeline at {@code epochNs} (scenario mode on phases that end on a word, issue
     * 31: every agent on one instant, so that an intended send time tells the phase it is in on every agent); called
     * on the control channel's event loop just before that start. A role that starts on its own ignores it.
     */
    default void startAt(long epochNs) {
    }

    /**
     * The measurement's clock starts at {@code originNs} (this agent's monotonic ns): apply the spec's faults at their
     * times from it (probe only, issue 32); a role without faults ignores it. Called on the control channel's event
     * loop: must not block.
     */
    default void startFaults(long originNs) {
    }

    /**
     * A phase that lasts until drained ended (issue 31), forwarded by the coordinator: the sender hears that the
     * receiver saw the end, the receiver hears how long the sender made it. Called on the control channel's event
     * loop: must not block; a role without drain phases ignores it.
     */
    default void phaseEnded(io.msgscope.proto.PhaseEnd end) {
    }

    /** Streams the recorded series to the coordinator. */
    void upload(TraceSink sink) throws Exception;

    /**
     * Runs one flow-controlled throughput probe (A5-A7) and returns its samples; blocking. Only the
     * flow role implements it.
     */
    default io.msgscope.proto.FlowResult flow(io.msgscope.proto.FlowProbe probe) throws Exception {
        throw new UnsupportedOperationException(Frames.name(role()) + " agents do not run throughput probes");
    }

    /**
     * Answers one scenario-mode request (seed 002: set-up, progress, reset, final results); blocking.
     * Only the publishers and subscribers roles implement it.
     */
    default io.msgscope.proto.ScenarioReport scenario(io.msgscope.proto.ScenarioQuery query) throws Exception {
        throw new UnsupportedOperationException(Frames.name(role()) + " agents do not run scenarios");
    }

    /** Stops any running phase and releases every socket and thread; idempotent. */
    void close();

    /** How a phase ends. */
    interface PhaseListener {
        void done(PhaseDone done);

        void failed(String message);

        /** Tells the coordinator, which forwards it, that a drain phase ended (issue 31); must not block. */
        default void phaseEnded(io.msgscope.proto.PhaseEnd end) {
        }
    }
}

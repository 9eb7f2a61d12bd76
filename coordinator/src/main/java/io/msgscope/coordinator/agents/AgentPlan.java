package io.msgscope.coordinator.agents;

import io.msgscope.control.ControlCredentials;
import io.msgscope.proto.Role;

import java.io.IOException;
import java.util.List;

/**
 * Where a mode gets its agents (issue 30): it asks for the agent, or the agents, of a role and connects to what it is
 * given, not knowing whether that is a JVM started on this box for it ({@link LocalAgents}) or a daemon on another
 * host named with {@code --agent} ({@link RemoteAgents}); a run may mix the two, remote for the roles given and local
 * for the rest ({@link RemoteAgents#plan}). Closing the plan stops the local JVMs it started; remote daemons live on.
 * How long each step may take is {@link Deadlines}'.
 */
public interface AgentPlan extends AutoCloseable {
    /**
     * Every agent of {@code role}: those given for it, else one started now (within {@link Deadlines#START_MS}).
     * Only scenarios take several agents of a role.
     *
     * @throws LocalAgents.StartFailure a local agent died or did not report its control port in time
     */
    List<AgentEndpoint> agents(Role role) throws IOException;

    /**
     * Starts the agents of {@code roles} this plan starts itself side by side, before the mode asks for them one by
     * one with {@link #agents(Role)}; roles given remotely are left alone. A plan that starts nothing ignores it.
     */
    default void prepare(List<Role> roles) throws IOException {
    }

    /** The agent of {@code role}, for the modes that take one per role ({@link RemoteAgents#parse} refuses more). */
    default AgentEndpoint agent(Role role) throws IOException {
        return agents(role).get(0);
    }

    /** What the control channel proves to these agents and checks of them (local agents carry their own secret). */
    ControlCredentials credentials();

    /** Stops the agents the plan started (they are given a moment to exit on their own first). */
    @Override
    void close();
}

package io.msgscope.control;

/** An agent failed, timed out or disappeared; the message says which agent and why. */
public final class AgentFailure extends Exception {
    private final String agent;
    private final boolean usage;
    private final String kind;

    public AgentFailure(String agent, String message, boolean usage) {
        this(agent, message, usage, "");
    }

    /** @param kind the error's kind as the agent reported it ({@code Fault.Kind} name), empty when unknown */
    public AgentFailure(String agent, String message, boolean usage, String kind) {
        super(agent + ": " + message);
        this.agent = agent;
        this.usage = usage;
        this.kind = kind == null ? "" : kind;
    }

    /** The error's kind as reported by the agent ({@code Fault.Kind} name), empty when the agent is gone or did not say. */
    public String kind() {
        return kind;
    }

    public String agent() {
        return agent;
    }

    /** True when the agent rejected bad input (exit code 2) rather than failing a run (exit 1). */
    public boolean usage() {
        return usage;
    }
}

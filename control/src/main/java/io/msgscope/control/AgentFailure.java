package io.msgscope.control;

/** An agent failed, timed out or disappeared; the message says which agent and why. */
public final class AgentFailure extends Exception {
    private final String agent;
    private final boolean usage;

    public AgentFailure(String agent, String message, boolean usage) {
        super(agent + ": " + message);
        this.agent = agent;
        this.usage = usage;
    }

    public String agent() {
        return agent;
    }

    /** True when the agent rejected bad input (exit code 2) rather than failing a run (exit 1). */
    public boolean usage() {
        return usage;
    }
}

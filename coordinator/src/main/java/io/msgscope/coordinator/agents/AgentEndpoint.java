package io.msgscope.coordinator.agents;

/**
 * Where the coordinator reaches an agent: a child process it started on this box, or a daemon on
 * another host ({@code msgscope agent --listen HOST:PORT}, given with {@code --agent ROLE=HOST:PORT}).
 */
public interface AgentEndpoint {
    String host();

    int port();

    /** Null while the agent lives or when the coordinator cannot tell (remote agents); else why it died. */
    String deathReason();

    /** A remote agent daemon: its death shows as a lost connection or missing heartbeats. */
    static AgentEndpoint remote(String host, int port) {
        return new AgentEndpoint() {
            @Override
            public String host() {
                return host;
            }

            @Override
            public int port() {
                return port;
            }

            @Override
            public String deathReason() {
                return null;
            }

            @Override
            public String toString() {
                return host + ":" + port;
            }
        };
    }
}

package io.msgscope.coordinator.agents;

import io.msgscope.proto.Affinity;
import io.msgscope.proto.HelloAck;

/** Where an agent ran and what it obtained, for the results. */
public record AgentInfo(String role, HelloAck hello, Affinity affinity, String address) {

    public AgentInfo(String role, HelloAck hello, Affinity affinity) {
        this(role, hello, affinity, "");
    }
}

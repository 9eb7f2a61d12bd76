package io.msgscope.coordinator.agents;

import io.msgscope.control.ControlCredentials;
import io.msgscope.core.SpecException;
import io.msgscope.proto.Role;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one agent plan (issue 30): the roles given with --agent are the daemons', every other role is started here. */
class AgentPlanTest {
    /** A local plan that records what it was asked for instead of starting JVMs. */
    static final class Recording implements AgentPlan {
        final List<Role> started = new ArrayList<>();
        boolean closed;

        @Override
        public List<AgentEndpoint> agents(Role role) {
            started.add(role);
            return List.of(AgentEndpoint.remote("127.0.0.1", 40_000 + role.getNumber()));
        }

        @Override
        public ControlCredentials credentials() {
            return ControlCredentials.NONE;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static RemoteAgents given(String... agents) {
        RemoteAgents r = new RemoteAgents();
        r.agents = List.of(agents);
        return r;
    }

    @Test
    void aRoleGivenWithAgentIsTheDaemonsAndTheOthersAreStartedLocally() throws Exception {
        RemoteAgents remote = given("relay=127.0.0.1:7001");
        Recording local = new Recording();
        ControlCredentials creds = remote.credentials();
        try (AgentPlan plan = RemoteAgents.mixed(remote.parseMany(), creds, local)) {
            assertEquals("127.0.0.1:7001", plan.agent(Role.RELAY).toString());
            assertEquals(40_000 + Role.FLOW.getNumber(), plan.agent(Role.FLOW).port());
            assertEquals(List.of(Role.FLOW), local.started, "only the role not given is started here");
            assertSame(creds, plan.credentials());
            assertFalse(local.closed);
        }
        assertTrue(local.closed, "closing the plan stops the local agents");
    }

    @Test
    void severalAgentsOfAScenarioRoleAreAnsweredInTheOrderGiven() throws Exception {
        RemoteAgents remote = given("publishers=127.0.0.1:7001", "publishers=127.0.0.1:7002");
        Recording local = new Recording();
        try (AgentPlan plan = RemoteAgents.mixed(remote.parseMany(), ControlCredentials.NONE, local)) {
            assertEquals(List.of("127.0.0.1:7001", "127.0.0.1:7002"),
                    plan.agents(Role.PUBLISHERS).stream().map(Object::toString).toList());
            assertEquals(1, plan.agents(Role.SUBSCRIBERS).size());
            assertEquals(List.of(Role.SUBSCRIBERS), local.started);
        }
    }

    @Test
    void agentIsParsedOnceAndEveryQuestionIsAnsweredFromThatParse() {
        RemoteAgents remote = given("sender=127.0.0.1:7001", "receiver=127.0.0.1:7002");
        Map<Role, List<AgentEndpoint>> first = remote.parseMany();
        remote.agents = List.of("sender=127.0.0.1:9"); // what a second parse would see
        assertSame(first, remote.parseMany());
        assertTrue(remote.given(Role.RECEIVER));
        assertFalse(remote.given(Role.RELAY));
        assertEquals(7001, remote.parse().get(Role.SENDER).port());
    }

    @Test
    void aRoleGivenTwiceIsRefusedWhereOnlyOneAgentPerRoleRuns() {
        RemoteAgents remote = given("flow=127.0.0.1:7001", "flow=127.0.0.1:7002");
        SpecException e = assertThrows(SpecException.class, remote::parse);
        assertTrue(e.getMessage().startsWith("--agent: flow is given 2 times"), e.getMessage());
    }
}

package io.msgscope.driver.redis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * Redis in scenario mode: keys of levels separated by ':' (Redis' own convention), each beginning with
 * {@code msgscope:} unless {@code --topic-prefix} says otherwise. With streams, every subscriber has a consumer group
 * of its own (fan-in, fan-out, straight-run: each sees every entry of its stream) and round-robin's subscribers share
 * one group (each entry goes to one of them); streams keep every entry until acknowledged, so a loss fails the run.
 * Pub/sub is at most once (losses are counted, not failed) and has no groups: round-robin is refused.
 */
final class RedisScenarios implements ScenarioSupport {
    static final RedisScenarios INSTANCE = new RedisScenarios();

    @Override
    public char separator() {
        return ':';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", "key", "group");
        boolean streams = streams(user);
        if (scenario == Scenario.ROUND_ROBIN && !streams) {
            throw new SpecException("--opt mode", "round-robin needs mode=streams (consumers sharing one group): "
                    + "Redis pub/sub delivers every message to every subscriber");
        }
        return user;
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return streams(options) ? "Redis Streams, consumer groups, XACK" : "Redis pub/sub (at most once)";
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return streams(options);
    }

    private static boolean streams(Map<String, String> options) {
        return RedisSettings.of(new DriverSpec("", 0, "", 0, 0, options, ""), false).streams();
    }

    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put("key", topic);
        if (!group.isEmpty()) {
            o.put("group", group);
        }
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o, "");
    }
}

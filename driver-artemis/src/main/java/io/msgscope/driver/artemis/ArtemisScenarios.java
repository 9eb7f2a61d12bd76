package io.msgscope.driver.artemis;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * Artemis' core protocol in scenario mode: a topic is an address (levels separated by '.', Artemis' own delimiter).
 * Fan-in, fan-out and straight-run subscribe with {@code routing=multicast}, a subscription queue per subscriber, so in
 * fan-out each gets every message; round-robin's subscribers share the one anycast queue of the address, which hands
 * each message to one of them. The scenario chooses {@code routing} and {@code address}. Delivery is a promise, and a
 * loss fails the run, with {@code confirm=block} (the default): every send the broker answered is confirmed.
 */
final class ArtemisScenarios implements ScenarioSupport {
    static final ArtemisScenarios INSTANCE = new ArtemisScenarios();

    @Override
    public char separator() {
        return '.';
    }

    @Override
    public Map<String, String> options(Scenario scenario, Map<String, String> user) {
        ScenarioSupport.refuseChosen(user, "", "", ArtemisSettings.ROUTING, ArtemisSettings.ADDRESS);
        Map<String, String> o = new HashMap<>(user);
        o.put(ArtemisSettings.ROUTING, scenario == Scenario.ROUND_ROBIN ? "anycast" : "multicast");
        of(o); // every bad value named now, before any agent starts
        return Map.copyOf(o);
    }

    @Override
    public String qosLabel(Scenario scenario, Map<String, String> options) {
        return of(options).label();
    }

    @Override
    public boolean reliable(Map<String, String> options) {
        return of(options).block();
    }

    private static ArtemisSettings of(Map<String, String> options) {
        Map<String, String> o = new HashMap<>(options);
        o.putIfAbsent(ArtemisSettings.ADDRESS, "label");
        return ArtemisSettings.of(new DriverSpec("", 0, "", 0, 0, o, ""), false);
    }

    @Override
    public DriverSpec subscriber(DriverSpec base, String topic, String group) {
        return withAddress(base, topic);
    }

    @Override
    public DriverSpec publisher(DriverSpec base, String topic) {
        return withAddress(base, topic);
    }

    private static DriverSpec withAddress(DriverSpec base, String topic) {
        Map<String, String> o = new HashMap<>(base.options());
        o.put(ArtemisSettings.ADDRESS, topic);
        return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(), o,
                topic);
    }
}

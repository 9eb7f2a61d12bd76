package io.msgscope.core.driver;

import io.msgscope.core.SpecException;
import io.msgscope.core.scenario.Scenario;

import java.util.Map;

/**
 * How a driver takes part in seed 002's scenarios (Q6): what a topic looks like, what the options mean
 * for delivery, and how one publisher or subscriber connection of a scenario is specified. The
 * coordinator and the agents ask the driver instead of switching on its name (issue 13, M10).
 */
public interface ScenarioSupport {
    /** The separator of topic levels: straight-run's pair {@code i} uses {@code base + separator + i}. */
    char separator();

    /** The topic base when {@code --topic-prefix} is not given, e.g. {@code msgscope/fan-in-1a2b}. */
    default String defaultBase(Scenario scenario, String runId) {
        return "msgscope" + separator() + scenario.label() + "-" + runId;
    }

    /**
     * Checks the user's {@code --opt} options against the scenario and returns the options every
     * connection gets (a driver may add its own, e.g. ZeroMQ routes scenarios through its proxy).
     * Options the scenario chooses itself (topic, group) are refused.
     *
     * @throws io.msgscope.core.SpecException naming the option
     */
    Map<String, String> options(Scenario scenario, Map<String, String> userOptions);

    /**
     * Refuses, for {@link #options}, the options a scenario chooses itself when the user gave one of them. With
     * {@code what} (what the scenario makes of them) the first one given is named: "--opt K: is chosen by the scenario
     * (WHAT); do not give it" and the {@code hint}; with {@code what} empty, all of them at once: "--opt: A and B are
     * chosen by the scenario; do not give them".
     *
     * @throws SpecException when the user gave one of {@code chosen}
     */
    static void refuseChosen(Map<String, String> user, String what, String hint, String... chosen) {
        for (String k : chosen) {
            if (user.containsKey(k)) {
                if (what.isEmpty()) {
                    throw new SpecException("--opt", String.join(" and ", chosen)
                            + " are chosen by the scenario; do not give them");
                }
                throw new SpecException("--opt " + k, "is chosen by the scenario (" + what + "); do not give it"
                        + hint);
            }
        }
    }

    /** The delivery guarantee in words for the results and the progress line, e.g. "QoS 1", "core NATS". */
    String qosLabel(Scenario scenario, Map<String, String> options);

    /** True when these options promise delivery, so that a lost message fails the run (Q6). */
    boolean reliable(Map<String, String> options);

    /**
     * The spec of one subscriber connection of a scenario.
     *
     * @param group non-empty for round-robin: the subscribers share one subscription of this name
     */
    DriverSpec subscriber(DriverSpec base, String topic, String group);

    /** The spec of one publisher connection of a scenario. */
    default DriverSpec publisher(DriverSpec base, String topic) {
        return base.withDestination(topic);
    }
}

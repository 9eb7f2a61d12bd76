package io.msgscope.core.driver;

/**
 * The drivers msgscope takes when none is named: the one place outside the drivers that spells a driver's name
 * (issue 30; the coordinator's {@code LayoutRulesTest} keeps every other name inside its own driver).
 */
public final class DefaultDrivers {
    /** run, throughput, sweep and a spec without a driver: raw TCP through the built-in relay, no broker. */
    public static final String MEASURING = "tcp";
    /** scenario: ZeroMQ through the built-in proxy, the one pub/sub system that needs no broker. */
    public static final String SCENARIO = "zmq";

    private DefaultDrivers() {
    }
}

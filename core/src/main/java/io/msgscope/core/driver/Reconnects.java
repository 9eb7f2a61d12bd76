package io.msgscope.core.driver;

/**
 * Clients that reconnect without hiding anything (issue 32 item 3): the option every driver reads and the counters
 * every reconnecting driver reports, named and defined once here so the NATS, MQTT and AMQP drivers mean the same.
 *
 * <ul>
 *   <li>{@value #OPTION} ({@code --opt reconnect=true}): off by default, so a lost connection ends the run visibly as
 *   before. On, the client reconnects to the same or another server of its URI list, subscribes again (or resumes
 *   its session) and republishes what the protocol's guarantee requires.</li>
 *   <li>{@value #CONFIRMED}: measured messages the system under test confirmed (a JetStream publish ack, a
 *   publisher confirm, a PUBACK) at least once.</li>
 *   <li>{@value #UNCONFIRMED}: measured messages sent and never confirmed when the run ended (still waiting, or given
 *   up); {@value #CONFIRMED} + {@value #UNCONFIRMED} is the number of measured messages sent.</li>
 *   <li>{@value #REPUBLISHED}: publishes sent again because the first one was not confirmed (a message republished
 *   twice counts twice); each may arrive twice, which the trace counts as a duplicate.</li>
 *   <li>{@value #DEDUPLICATED}: republished copies the system recognised as already stored and dropped (a JetStream
 *   publish ack flagged duplicate: the copies carry the first one's {@code Nats-Msg-Id}); they arrive once.</li>
 *   <li>{@value #PUBLISHER_RECONNECTS} and {@value #SUBSCRIBER_RECONNECTS}: connections the client got back after
 *   losing them (the two sides apart, since the results add the drivers' counters up).</li>
 * </ul>
 *
 * A confirmed message the subscriber never received is a guarantee violation ({@link Publisher#unconfirmed}).
 */
public final class Reconnects {
    public static final String OPTION = "reconnect";
    public static final String CONFIRMED = "messages_confirmed";
    public static final String UNCONFIRMED = "messages_unconfirmed";
    public static final String REPUBLISHED = "messages_republished";
    public static final String DEDUPLICATED = "messages_deduplicated";
    public static final String PUBLISHER_RECONNECTS = "publisher_reconnects";
    public static final String SUBSCRIBER_RECONNECTS = "subscriber_reconnects";

    private Reconnects() {
    }

    /** Whether {@code --opt reconnect=true} was given (checked as a boolean by {@link DriverSpec#boolOption}). */
    public static boolean on(DriverSpec spec) {
        return spec.boolOption(OPTION, false);
    }

    /** The same from the run's driver options as the coordinator holds them. */
    public static boolean on(java.util.Map<String, String> options) {
        String v = options.get(OPTION);
        return v != null && java.util.Set.of("true", "yes", "on", "1").contains(v.trim().toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * Adds to {@code into} each of {@code keys} that {@code from} holds: a role's connections' counts summed (scenario
     * mode); a key no connection reports stays absent (unknown, not 0).
     */
    public static void addCounts(java.util.Map<String, Long> into, java.util.Map<String, Long> from, String... keys) {
        for (String k : keys) {
            Long v = from.get(k);
            if (v != null) {
                into.merge(k, v, Long::sum);
            }
        }
    }
}

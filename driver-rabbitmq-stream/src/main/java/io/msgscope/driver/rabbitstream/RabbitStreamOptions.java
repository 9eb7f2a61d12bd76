package io.msgscope.driver.rabbitstream;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.util.Set;

/**
 * The {@code --opt} keys of the RabbitMQ stream driver (issue 35 item 1), read and checked once before any
 * connection is made; both sides read the whole set, so a bad value is bad usage (exit 2) whichever side uses it.
 *
 * @param offset         {@code offset}: where a consumer starts: {@code first} (the default: the stream is the
 *                       run's own), {@code last}, {@code next} or {@code timestamp:EPOCH_MS}
 * @param timestampMs    the epoch milliseconds of {@code offset=timestamp:...}; -1 otherwise
 * @param subEntrySize   {@code sub_entry_size}: messages per sub-entry (the producer packs them into one entry of
 *                       the stream's log); 1 (the default) = no sub-entry batching
 * @param batchSize      {@code batch_size}: messages the producer accumulates before it writes a publish frame
 * @param dynamicBatch   {@code dynamic_batch}: the producer writes what it has as soon as its queue runs dry (true,
 *                       the default); false: it waits up to 100 ms for {@code batch_size} messages (the client's
 *                       classic batching: a higher rate at high load, 100 ms more latency at low load)
 * @param maxUnconfirmed {@code max_unconfirmed}: published messages without a confirm the producer keeps outstanding
 *                       before {@code send} blocks (the publisher window)
 * @param credits        {@code credits}: chunks the broker may send a consumer ahead of its asking (its initial
 *                       credits, topped up one per chunk); 0 (the default) = the client's default
 * @param singleActive   {@code single_active}: consumers join as single active consumers (one of them gets the
 *                       messages, the others take over when it goes)
 * @param stream         {@code stream}: a stream of the user's to use (neither created nor deleted); empty = a stream
 *                       per run, created by the subscriber and deleted when it closes
 */
public record RabbitStreamOptions(String offset, long timestampMs, int subEntrySize, int batchSize,
                                  boolean dynamicBatch, int maxUnconfirmed, int credits, boolean singleActive,
                                  String stream) {
    public static final String OFFSET = "offset";
    public static final String SUB_ENTRY_SIZE = "sub_entry_size";
    public static final String BATCH_SIZE = "batch_size";
    public static final String DYNAMIC_BATCH = "dynamic_batch";
    public static final String MAX_UNCONFIRMED = "max_unconfirmed";
    public static final String CREDITS = "credits";
    public static final String SINGLE_ACTIVE = "single_active";
    public static final String STREAM = "stream";

    public static final Set<String> KEYS = Set.of(OFFSET, SUB_ENTRY_SIZE, BATCH_SIZE, DYNAMIC_BATCH, MAX_UNCONFIRMED,
            CREDITS, SINGLE_ACTIVE, STREAM, io.msgscope.core.driver.TlsOptions.CA, io.msgscope.core.driver.TlsOptions.VERIFY);

    static final int DEFAULT_BATCH_SIZE = 100;
    static final int DEFAULT_MAX_UNCONFIRMED = 10_000;
    /** RabbitMQ's limit on a queue's name. */
    static final int MAX_NAME_BYTES = 255;

    /** Reads and checks every option; a bad value names the option. */
    public static RabbitStreamOptions of(DriverSpec spec) {
        spec.requireKnownOptions(RabbitStreamDriver.NAME, KEYS);
        String offset = spec.option(OFFSET, "first");
        long ts = -1;
        if (offset.startsWith("timestamp:")) {
            try {
                ts = Long.parseLong(offset.substring("timestamp:".length()));
            } catch (NumberFormatException e) {
                ts = -1;
            }
            if (ts < 0) {
                throw new SpecException("--opt " + OFFSET, "timestamp:EPOCH_MS needs milliseconds since the epoch "
                        + "(0 or more), got '" + offset + "'");
            }
            offset = "timestamp";
        } else if (!Set.of("first", "last", "next").contains(offset)) {
            throw new SpecException("--opt " + OFFSET, "must be first, last, next or timestamp:EPOCH_MS, got '"
                    + offset + "'");
        }
        int subEntry = (int) spec.longOption(SUB_ENTRY_SIZE, 1, 1, 65_535);
        int batch = (int) spec.longOption(BATCH_SIZE, DEFAULT_BATCH_SIZE, 1, 65_535);
        boolean dynamic = spec.boolOption(DYNAMIC_BATCH, true);
        int maxUnconfirmed = (int) spec.longOption(MAX_UNCONFIRMED, DEFAULT_MAX_UNCONFIRMED, 1, 1 << 20);
        int credits = (int) spec.longOption(CREDITS, 0, 0, 1_000);
        boolean single = spec.boolOption(SINGLE_ACTIVE, false);
        String stream = spec.option(STREAM, "");
        if (spec.options().containsKey(STREAM) && (stream.isEmpty()
                || stream.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_NAME_BYTES
                || stream.chars().anyMatch(Character::isISOControl))) {
            throw new SpecException("--opt " + STREAM, "must be 1 to " + MAX_NAME_BYTES
                    + " bytes without control characters, got '" + stream + "'");
        }
        return new RabbitStreamOptions(offset, ts, subEntry, batch, dynamic, maxUnconfirmed, credits, single, stream);
    }
}

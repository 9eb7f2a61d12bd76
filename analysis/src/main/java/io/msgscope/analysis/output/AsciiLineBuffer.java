package io.msgscope.analysis.output;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A byte buffer for writing ASCII text files fast and without the default Locale: numbers are
 * formatted digit by digit (decimal point always '.', no grouping), flushed to an output stream
 * when full. Not thread-safe; package-private helper of the writers.
 */
final class AsciiLineBuffer {

    private static final byte[] NAN = {'N', 'a', 'N'};
    private static final long[] POWERS_OF_TEN = {
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
        1_000_000_000L
    };
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final byte[] buf;
    private final byte[] digits = new byte[20];
    private int pos;

    AsciiLineBuffer(OutputStream out, int capacity) {
        this.out = out;
        this.buf = new byte[Math.max(capacity, 256)];
    }

    private void ensure(int room) throws IOException {
        if (pos + room > buf.length) {
            flush();
        }
    }

    /** Writes buffered bytes to the stream (does not flush the stream itself). */
    void flush() throws IOException {
        if (pos > 0) {
            out.write(buf, 0, pos);
            pos = 0;
        }
    }

    AsciiLineBuffer ascii(String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            if (pos == buf.length) {
                flush();
            }
            char c = s.charAt(i);
            buf[pos++] = c < 128 ? (byte) c : (byte) '?';
        }
        return this;
    }

    AsciiLineBuffer ch(char c) throws IOException {
        ensure(1);
        buf[pos++] = (byte) c;
        return this;
    }

    AsciiLineBuffer newline() throws IOException {
        return ch('\n');
    }

    AsciiLineBuffer nan() throws IOException {
        ensure(NAN.length);
        System.arraycopy(NAN, 0, buf, pos, NAN.length);
        pos += NAN.length;
        return this;
    }

    /** Decimal digits of {@code v}, '-' for negatives. */
    AsciiLineBuffer number(long v) throws IOException {
        ensure(21);
        if (v == Long.MIN_VALUE) {
            System.arraycopy(MIN_LONG, 0, buf, pos, MIN_LONG.length);
            pos += MIN_LONG.length;
            return this;
        }
        if (v < 0) {
            buf[pos++] = '-';
            v = -v;
        }
        int d = 0;
        do {
            digits[d++] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
        while (d > 0) {
            buf[pos++] = digits[--d];
        }
        return this;
    }

    /**
     * {@code v} rounded half-up (away from zero) to {@code decimals} (0..9) places, always with
     * exactly that many decimals; NaN and infinities as {@code NaN}.
     */
    AsciiLineBuffer fixed(double v, int decimals) throws IOException {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return nan();
        }
        long scale = POWERS_OF_TEN[decimals];
        double scaled = Math.abs(v) * scale;
        if (scaled >= 9.0e18) {
            return ascii(BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_UP).toPlainString());
        }
        long q = (long) Math.floor(scaled + 0.5);
        if (v < 0 && q != 0) {
            ch('-');
        }
        number(q / scale);
        if (decimals > 0) {
            ensure(decimals + 1);
            buf[pos++] = '.';
            long frac = q % scale;
            for (int i = decimals - 1; i >= 0; i--) {
                buf[pos + i] = (byte) ('0' + (frac % 10));
                frac /= 10;
            }
            pos += decimals;
        }
        return this;
    }
}

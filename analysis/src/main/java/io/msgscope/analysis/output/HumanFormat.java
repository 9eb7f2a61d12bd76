package io.msgscope.analysis.output;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers for people, independent of the default Locale: counts with comma groups, durations
 * and rates to three significant figures.
 */
public final class HumanFormat {

    private static final MathContext THREE_FIGURES = new MathContext(3, RoundingMode.HALF_UP);
    private static final BigDecimal THOUSAND = BigDecimal.valueOf(1_000);
    private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);
    private static final BigDecimal BILLION = BigDecimal.valueOf(1_000_000_000);

    private HumanFormat() {
    }

    /** {@code 1000000} → {@code "1,000,000"}; always comma groups of three. */
    public static String count(long value) {
        if (value < 0) {
            return "-" + group(value == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(-value));
        }
        return group(Long.toString(value));
    }

    /**
     * A duration given in ns, to at most three significant figures with trailing zeros dropped,
     * in the largest unit below it: "812 ns", "41 µs", "230 µs", "1.9 ms", "2.35 s".
     */
    public static String duration(double ns) {
        if (Double.isNaN(ns) || Double.isInfinite(ns)) {
            return Double.isNaN(ns) ? "n/a" : (ns > 0 ? "∞" : "-∞");
        }
        if (ns == 0) {
            return "0 ns";
        }
        BigDecimal rounded = new BigDecimal(ns).round(THREE_FIGURES);
        BigDecimal magnitude = rounded.abs();
        String unit;
        BigDecimal scaled;
        if (magnitude.compareTo(THOUSAND) < 0) {
            unit = " ns";
            scaled = rounded;
        } else if (magnitude.compareTo(MILLION) < 0) {
            unit = " µs";
            scaled = rounded.movePointLeft(3);
        } else if (magnitude.compareTo(BILLION) < 0) {
            unit = " ms";
            scaled = rounded.movePointLeft(6);
        } else {
            unit = " s";
            scaled = rounded.movePointLeft(9);
        }
        return plain(scaled) + unit;
    }

    /**
     * A rate in msg/s rounded to three significant figures, then grouped: 812,345 → "812,000",
     * 1,234,567 → "1,230,000", 950 → "950", 12.345 → "12.3".
     */
    public static String rate(double msgPerSec) {
        if (Double.isNaN(msgPerSec) || Double.isInfinite(msgPerSec)) {
            return Double.isNaN(msgPerSec) ? "n/a" : (msgPerSec > 0 ? "∞" : "-∞");
        }
        if (msgPerSec == 0) {
            return "0";
        }
        BigDecimal rounded = new BigDecimal(msgPerSec).round(THREE_FIGURES);
        String text = plain(rounded);
        boolean negative = text.startsWith("-");
        if (negative) {
            text = text.substring(1);
        }
        int dot = text.indexOf('.');
        String integer = dot < 0 ? text : text.substring(0, dot);
        String fraction = dot < 0 ? "" : text.substring(dot);
        return (negative ? "-" : "") + group(integer) + fraction;
    }

    /** Plain decimal text without trailing fractional zeros ("230", "1.9"). */
    private static String plain(BigDecimal value) {
        BigDecimal v = value.stripTrailingZeros();
        if (v.scale() < 0) {
            v = v.setScale(0);
        }
        return v.toPlainString();
    }

    private static String group(String digits) {
        int len = digits.length();
        StringBuilder sb = new StringBuilder(len + len / 3);
        for (int i = 0; i < len; i++) {
            if (i > 0 && (len - i) % 3 == 0) {
                sb.append(',');
            }
            sb.append(digits.charAt(i));
        }
        return sb.toString();
    }
}

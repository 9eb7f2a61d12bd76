package io.msgscope.analysis.distribution;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Locale-independent number text for data files and gnuplot scripts: the decimal point is
 * always '.', there is never a grouping separator. Package-private helper.
 */
final class Num {

    private Num() {
    }

    /**
     * {@code v} with exactly {@code decimals} decimals, rounded half-up from its shortest
     * decimal representation; "NaN" for NaN and infinities; never "-0.000".
     */
    static String fixed(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "NaN";
        }
        BigDecimal bd = BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_UP);
        if (bd.signum() == 0) {
            bd = bd.abs();
        }
        return bd.toPlainString();
    }

    /**
     * {@code v} in scientific notation with {@code significant} digits, e.g. {@code 1.23450e-07};
     * zero as {@code 0}; "NaN" for NaN and infinities.
     */
    static String scientific(double v, int significant) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "NaN";
        }
        if (v == 0) {
            return "0";
        }
        BigDecimal bd = BigDecimal.valueOf(v).round(new MathContext(significant, RoundingMode.HALF_UP));
        String digits = bd.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - bd.scale();
        StringBuilder d = new StringBuilder(digits);
        while (d.length() < significant) {
            d.append('0');
        }
        d.setLength(significant);
        StringBuilder s = new StringBuilder(significant + 6);
        if (bd.signum() < 0) {
            s.append('-');
        }
        s.append(d.charAt(0));
        if (significant > 1) {
            s.append('.').append(d, 1, significant);
        }
        s.append('e').append(exponent < 0 ? '-' : '+');
        int abs = Math.abs(exponent);
        if (abs < 10) {
            s.append('0');
        }
        return s.append(abs).toString();
    }

    /**
     * {@code v} to three significant figures without trailing zeros and without exponent:
     * 150.04 → "150", 1.60 → "1.6", 0.01234 → "0.0123", 97.649 → "97.6".
     */
    static String threeFigures(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        if (v == 0) {
            return "0";
        }
        BigDecimal bd = BigDecimal.valueOf(v).round(new MathContext(3, RoundingMode.HALF_UP)).stripTrailingZeros();
        if (bd.scale() < 0) {
            bd = bd.setScale(0);
        }
        return bd.toPlainString();
    }

    /** Decimals that show a quantity of size {@code step} with about four significant digits (0..9). */
    static int decimalsFor(double step) {
        if (!(step > 0) || Double.isInfinite(step)) {
            return 3;
        }
        int d = 3 - (int) Math.floor(Math.log10(step));
        return Math.max(0, Math.min(9, d));
    }
}

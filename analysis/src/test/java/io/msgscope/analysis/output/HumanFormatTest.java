package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class HumanFormatTest {

    @Test
    void countsAreCommaGrouped() {
        assertEquals("0", HumanFormat.count(0));
        assertEquals("999", HumanFormat.count(999));
        assertEquals("1,000", HumanFormat.count(1000));
        assertEquals("1,000,000", HumanFormat.count(1_000_000));
        assertEquals("12,345,678", HumanFormat.count(12_345_678));
        assertEquals("-1,234", HumanFormat.count(-1234));
        assertEquals("-9,223,372,036,854,775,808", HumanFormat.count(Long.MIN_VALUE));
    }

    @Test
    void durationsHaveThreeSignificantFiguresAtMost() {
        assertEquals("812 ns", HumanFormat.duration(812));
        assertEquals("41 µs", HumanFormat.duration(41_000));
        assertEquals("230 µs", HumanFormat.duration(230_000));
        assertEquals("1.9 ms", HumanFormat.duration(1_900_000));
        assertEquals("2.35 s", HumanFormat.duration(2_350_000_000d));
        assertEquals("2.35 s", HumanFormat.duration(2_348_765_432d));
        assertEquals("1.23 µs", HumanFormat.duration(1_234));
        assertEquals("1 µs", HumanFormat.duration(999.6)); // rounds up into the next unit
        assertEquals("0.5 ns", HumanFormat.duration(0.5));
        assertEquals("0 ns", HumanFormat.duration(0));
        assertEquals("n/a", HumanFormat.duration(Double.NaN));
    }

    @Test
    void ratesAreRoundedThenGrouped() {
        assertEquals("812,000", HumanFormat.rate(812_345));
        assertEquals("1,230,000", HumanFormat.rate(1_234_567));
        assertEquals("950", HumanFormat.rate(950));
        assertEquals("12.3", HumanFormat.rate(12.345));
        assertEquals("1,000", HumanFormat.rate(999.7));
        assertEquals("0", HumanFormat.rate(0));
    }

    @Test
    void independentOfDefaultLocale() {
        Locale saved = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            assertEquals("1,230,000", HumanFormat.rate(1_234_567));
            assertEquals("1.9 ms", HumanFormat.duration(1_900_000));
            assertEquals("1,000,000", HumanFormat.count(1_000_000));
        } finally {
            Locale.setDefault(saved);
        }
    }
}

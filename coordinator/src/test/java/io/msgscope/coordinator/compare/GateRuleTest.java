package io.msgscope.coordinator.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.coordinator.compare.FigureVerdict.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code --fail-if} rules (issue 34). */
class GateRuleTest {
    @Test
    void parsesFigureDirectionAndSignedPercent() {
        GateRule p99 = GateRule.parse("p99 > +10%");
        assertEquals(Figure.P99, p99.figure());
        assertTrue(p99.above());
        assertEquals(0.10, p99.threshold(), 1e-12);
        GateRule tp = GateRule.parse("throughput<-5%");
        assertEquals(Figure.THROUGHPUT, tp.figure());
        assertFalse(tp.above());
        assertEquals(-0.05, tp.threshold(), 1e-12);
        assertEquals(Figure.P999, GateRule.parse(" P99.9 > 2.5 % ").figure());
        assertEquals(0.025, GateRule.parse("p999 > 2.5%").threshold(), 1e-12);
        assertEquals(Figure.MEAN, GateRule.parse("mean > +0%").figure());
    }

    @ParameterizedTest
    @ValueSource(strings = {"p99 >> 10%", "p99 > 10", "p99 = 10%", "", "p99 > +10%%", "> 10%", "p99 > ten%"})
    void refusesWhatDoesNotParse(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GateRule.parse(text));
        assertTrue(e.getMessage().contains("is not FIGURE > +N% or FIGURE < -N%"), e.getMessage());
    }

    @Test
    void refusesAnUnknownFigureNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GateRule.parse("p42 > 5%"));
        assertEquals("'p42 > 5%': unknown figure p42 (known: throughput, mean, p50, p90, p95, p99, p99.9)",
                e.getMessage());
    }

    private static FigureVerdict v(Figure f, double change, Verdict verdict) {
        return new FigureVerdict(f, 100.0, 100 * (1 + change), change, change - 0.01, change + 0.01, 0.001, 10, 10,
                verdict);
    }

    @Test
    void breachedOnlyWhenSignificantAndBeyondTheThresholdInItsDirection() {
        GateRule p99 = GateRule.parse("p99 > +10%");
        assertEquals("REGRESSION p99: +23.0 % (95 % interval +22.0 % … +24.0 %), worse, beyond 'p99 > +10%'",
                p99.breach(v(Figure.P99, 0.23, Verdict.WORSE)).orElseThrow());
        assertTrue(p99.breach(v(Figure.P99, 0.23, Verdict.SAME)).isEmpty(), "not significant");
        assertTrue(p99.breach(v(Figure.P99, 0.08, Verdict.WORSE)).isEmpty(), "within the threshold");
        assertTrue(p99.breach(v(Figure.P99, -0.3, Verdict.BETTER)).isEmpty(), "the other way");
        GateRule tp = GateRule.parse("throughput < -5%");
        assertTrue(tp.breach(v(Figure.THROUGHPUT, -0.06, Verdict.WORSE)).isPresent());
        assertTrue(tp.breach(v(Figure.THROUGHPUT, -0.04, Verdict.WORSE)).isEmpty());
        FigureVerdict few = new FigureVerdict(Figure.THROUGHPUT, 1.0, 2.0, 1.0, null, null, null, 3, 3, Verdict.TOO_FEW);
        assertTrue(tp.breach(few).isEmpty());
        assertEquals("gate: 'throughput < -5%' not judged: throughput is too few repeats to tell",
                tp.undecided(few).orElseThrow());
    }
}

package io.msgscope.coordinator.compare;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code --fail-if} rule of the regression gate (issue 34): {@code FIGURE > +N%} or {@code FIGURE < -N%}, e.g.
 * {@code p99 > +10%} or {@code throughput < -5%}. It is breached when the figure's change is significant (the verdict
 * is better or worse) and beyond the threshold in the direction written.
 *
 * @param figure    the figure
 * @param above     {@code >}: breached above the threshold; {@code <}: below it
 * @param threshold the threshold as a fraction (0.10 for +10 %)
 * @param text      the rule as given
 */
public record GateRule(Figure figure, boolean above, double threshold, String text) {
    private static final Pattern RULE =
            Pattern.compile("\\s*([A-Za-z0-9.]+)\\s*([<>])\\s*([+-]?)\\s*(\\d+(?:\\.\\d+)?)\\s*%\\s*");

    /** Parses a rule; the exception's message says what is wrong, for a one-line refusal naming the option. */
    public static GateRule parse(String text) {
        Matcher m = RULE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not FIGURE > +N% or FIGURE < -N% (e.g. 'p99 > +10%')");
        }
        Figure f = Figure.named(m.group(1)).orElseThrow(() -> new IllegalArgumentException("'" + text
                + "': unknown figure " + m.group(1) + " (known: " + Figure.names() + ")"));
        double pct = Double.parseDouble(m.group(4));
        double threshold = (m.group(3).equals("-") ? -pct : pct) / 100;
        return new GateRule(f, m.group(2).equals(">"), threshold, text.strip());
    }

    /** The line saying the rule is breached, or empty when it is not (or the figure has no significant change). */
    public Optional<String> breach(FigureVerdict v) {
        if (!v.significant() || v.change() == null) {
            return Optional.empty();
        }
        boolean beyond = above ? v.change() > threshold : v.change() < threshold;
        if (!beyond) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "REGRESSION %s: %s (95 %% interval %s … %s), %s, beyond '%s'",
                figure.label(), VerdictReport.pct(v.change()), VerdictReport.pct(v.ciLow()),
                VerdictReport.pct(v.ciHigh()), v.verdict().words(), text));
    }

    /** The line saying the rule could not be judged (too few samples, unknown figure), or empty. */
    public Optional<String> undecided(FigureVerdict v) {
        if (v.verdict() == FigureVerdict.Verdict.TOO_FEW || v.verdict() == FigureVerdict.Verdict.UNKNOWN) {
            return Optional.of("gate: '" + text + "' not judged: " + figure.label() + " is " + v.verdict().words());
        }
        return Optional.empty();
    }
}

package io.msgscope.coordinator.compare;

/**
 * One figure's verdict (issue 34): the candidate against the baseline. Unknown figures are null, never 0.
 *
 * @param figure    which figure
 * @param baseline  the baseline group's figure (throughput: median of the samples; latency: the percentile or mean of
 *                  every interval merged), null when it has none
 * @param candidate the candidate group's, as {@code baseline}
 * @param change    candidate / baseline − 1 (0.1 = +10 %), null when either is unknown or the baseline is 0
 * @param ciLow     the 95 % bootstrap interval of {@code change}, lower end; null with too few samples
 * @param ciHigh    its upper end
 * @param mannWhitneyP the two-sided p of the Mann–Whitney U test between the two groups' samples; null with too few
 * @param baselineSamples  the samples (throughput samples, or latency intervals holding a message) of the baseline
 * @param candidateSamples the candidate's
 * @param verdict   better, worse, no significant difference, too few repeats to tell, or unknown
 */
public record FigureVerdict(Figure figure, Double baseline, Double candidate, Double change, Double ciLow,
                            Double ciHigh, Double mannWhitneyP, int baselineSamples, int candidateSamples,
                            Verdict verdict) {
    /** The verdict words. */
    public enum Verdict {
        BETTER("better"), WORSE("worse"), SAME("no significant difference"), TOO_FEW("too few repeats to tell"),
        UNKNOWN("unknown");

        private final String words;

        Verdict(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /** The change is significant: the interval excludes 0 and the rank test agrees. */
    public boolean significant() {
        return verdict == Verdict.BETTER || verdict == Verdict.WORSE;
    }
}

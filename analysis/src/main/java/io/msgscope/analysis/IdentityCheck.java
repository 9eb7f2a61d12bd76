package io.msgscope.analysis;

/**
 * Result of checking the M12 identity on the recorded data: for every n ≥ M with O_n, O_{n−M},
 * I_n and I_{n−M} all present, {@code (I_n − I_{n−M}) − (O_n − O_{n−M}) == L_n − L_{n−M}}
 * exactly in long arithmetic (for M = 1, RO_n − SO_n = L_n − L_{n−1}), with L the raw,
 * unclamped latency I − O.
 *
 * @param checked number of sequences n for which all four times were present
 * @param violations how many of them broke the exact identity
 * @param maxAbsErrorNs the largest |M·(RO_n − SO_n) − (L_n − L_{n−M})| in double arithmetic,
 *     i.e. the rounding error of the floating-point form; 0 when nothing was checked
 */
public record IdentityCheck(long checked, long violations, double maxAbsErrorNs) {

    /** True when no checked sequence violated the identity. */
    public boolean holds() {
        return violations == 0;
    }
}

package io.almanac.journal;

import java.time.Duration;

/**
 * How much of a task's windows its state keeps hot (R30): at most {@code windows}, none done for
 * longer than {@code maxAge}; the others stay in the journal.
 *
 * @param windows the most windows kept
 * @param maxAge how long a done window stays
 */
public record HotState(int windows, Duration maxAge) {}

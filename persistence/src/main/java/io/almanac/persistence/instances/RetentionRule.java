package io.almanac.persistence.instances;

import io.almanac.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which rows retention moves to the history table (R30): rows of windows that are done for good
 * ({@link #STATUSES}) whose last change is older than the retention. Pure; the SQL of retention
 * selects exactly these rows ({@link #cutoff(Instant)} and {@link #STATUSES}).
 *
 * @param retention how long a done row stays after its last change
 */
record RetentionRule(Duration retention) {

  /**
   * The statuses retention moves: final, or done and only reopened by an operator. FINAL_FAILED
   * (the intervention queue) and the active statuses stay.
   */
  static final Set<InstanceStatus> STATUSES = EnumSet.of(InstanceStatus.SUCCEEDED, InstanceStatus.CANCELLED,
      InstanceStatus.SKIPPED, InstanceStatus.MISSED, InstanceStatus.RESOLVED);

  RetentionRule {
    Objects.requireNonNull(retention, "retention");
  }

  /**
   * @param now the current time
   * @return rows last changed before this instant (exclusive) may move
   */
  Instant cutoff(Instant now) {
    return now.minus(retention);
  }

  /**
   * @param row a live row
   * @param now the current time
   * @return whether retention moves it now
   */
  boolean due(InstanceRow row, Instant now) {
    return STATUSES.contains(row.status()) && row.updatedAt().isBefore(cutoff(now));
  }
}

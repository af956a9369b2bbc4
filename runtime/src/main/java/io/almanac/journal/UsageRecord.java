package io.almanac.journal;

import io.almanac.Usage;

/**
 * What one attempt used, as the journal holds it on the event that ended the attempt ({@link
 * TaskJournal.AttemptSucceeded}, {@link TaskJournal.AttemptFailed}, {@link
 * TaskJournal.LateResultRecorded}): the journal's own type, converted from the public {@link Usage}
 * at the edge. Persisted: a component is never renamed without a migration.
 *
 * @param model the model the attempt called, or null when not reported
 * @param tokensIn tokens sent
 * @param tokensOut tokens received
 * @param costMicros the cost, in millionths of the operator's unit
 */
public record UsageRecord(String model, long tokensIn, long tokensOut, long costMicros) {

  /**
   * @param usage a job's reported usage, or null
   * @return its record, or null for none
   */
  public static UsageRecord of(Usage usage) {
    return usage == null ? null : new UsageRecord(usage.model(), usage.tokensIn(), usage.tokensOut(), usage.costMicros());
  }
}

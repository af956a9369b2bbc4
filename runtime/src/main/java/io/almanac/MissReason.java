package io.almanac;

/** Why a past window (missed during downtime or a pause) is not caught up (R12, R14). */
public enum MissReason implements ReasonCode {
  /** Older than the task's catch-up horizon (R14). */
  OUTSIDE_HORIZON,
  /**
   * The task's {@link CatchUpPolicy} does not run it: mode NONE (R12, the default), or past the
   * policy's span after the window's start. The name is kept from when one backfill policy decided
   * both retries and catch-up: it is persisted.
   */
  BACKFILL_NOT_ALLOWED
}

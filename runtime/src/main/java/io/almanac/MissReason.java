package io.almanac;

/** Why a past window (missed during downtime or a pause) is not caught up (R12, R14). */
public enum MissReason {
  /** Older than the task's catch-up horizon (R14). */
  OUTSIDE_HORIZON,
  /** The task is not backfillable (R12, the default). */
  BACKFILL_NOT_ALLOWED
}

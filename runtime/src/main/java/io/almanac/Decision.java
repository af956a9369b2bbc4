package io.almanac;

/** What a task decided about a window it was asked to run: by the trigger, or by an operator (R7, R31). */
public enum Decision {
  /** A new instance was created (or a done one reopened), PENDING: it will run. */
  SCHEDULED,
  /** The window already had an instance; nothing changed (R5). */
  DUPLICATE,
  /** Recorded as SKIPPED with its reason (R7). */
  SKIPPED,
  /** Recorded as MISSED with its reason (R12, R14). */
  MISSED,
  /** The window is older than the hot state (R30); nothing changed. Its history is in the journal. */
  ARCHIVED
}

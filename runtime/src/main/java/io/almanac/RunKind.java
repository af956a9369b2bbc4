package io.almanac;

/** Why an instance runs (R18): a job can behave differently on a retry or a backfill. */
public enum RunKind {
  /** The first run of a window, fired on time by the trigger. */
  FIRST,
  /** A retry of a window whose previous attempt failed or timed out (R15). */
  RETRY,
  /** A catch-up or operator backfill of a past window (R12, R13). */
  BACKFILL,
  /** Started by an operator: run now, or retry of a FINAL_FAILED or cancelled window (R31). */
  MANUAL,
  /**
   * The window's previous attempt was interrupted (its node stopped past its grace, died, or was
   * fenced out; {@link InterruptCause}): it runs again at once, without spending a retry. A job can
   * read it to continue rather than start over (its effect ledger holds what it already did).
   */
  RESUME
}

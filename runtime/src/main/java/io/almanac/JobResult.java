package io.almanac;

import java.util.Objects;

/**
 * What an attempt of an agent job produced (R22): on success a bounded summary and an optional
 * artifact URI (never the full output), on failure a bounded reason. The bounds are settings
 * ({@code almanac.task.max-summary-length}, {@code max-reason-length}, {@code max-artifact-uri-length});
 * a result over them is refused with an error naming the field, never truncated silently.
 *
 * @param outcome succeeded or failed
 * @param summary a short summary of a success (may be empty, never null)
 * @param artifactUri where the full output lives, or null
 * @param reason why it failed (null on success)
 */
public record JobResult(Outcome outcome, String summary, String artifactUri, String reason) {

  /**
   * The outcome of an attempt as the job reports it. Persisted by name (a late result's, {@code
   * TaskJournal.LateResultRecorded}): a constant is never renamed without a migration.
   */
  public enum Outcome {
    /** The job did its work. */
    SUCCEEDED,
    /** The job failed; the task's retry policy decides what happens next. */
    FAILED
  }

  /** Canonical constructor; normalises a null summary to empty. */
  public JobResult {
    Objects.requireNonNull(outcome, "outcome");
    summary = summary == null ? "" : summary;
  }

  /**
   * @param summary a short summary of what was done
   * @return a successful result without artifact
   */
  public static JobResult success(String summary) {
    return new JobResult(Outcome.SUCCEEDED, summary, null, null);
  }

  /**
   * @param summary a short summary of what was done
   * @param artifactUri where the full output is kept
   * @return a successful result pointing at its artifact
   */
  public static JobResult success(String summary, String artifactUri) {
    return new JobResult(Outcome.SUCCEEDED, summary, artifactUri, null);
  }

  /**
   * @param reason why the attempt failed
   * @return a failed result
   */
  public static JobResult failure(String reason) {
    return new JobResult(Outcome.FAILED, "", null, reason == null ? "failed" : reason);
  }

  /** @return true when the outcome is {@link Outcome#SUCCEEDED} */
  public boolean succeeded() {
    return outcome == Outcome.SUCCEEDED;
  }
}

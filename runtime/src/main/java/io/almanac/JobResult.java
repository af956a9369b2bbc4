package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.util.Objects;

/**
 * What an attempt of an agent job produced (R22): on success a bounded summary and an optional
 * artifact URI (never the full output), on failure a bounded reason. The bounds are settings
 * ({@code almanac.task.max-summary-length}, {@code max-reason-length}, {@code max-artifact-uri-length});
 * a result over them is refused with an error naming the field, never truncated silently. Made by
 * {@link #success(String)}, {@link #success(String, String)} and {@link #failure(String)}.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"outcome", "summary", "artifactUri", "reason", "retryAfter", "pool"})
public final class JobResult extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "outcome", "summary", "artifactUri", "reason",
      "retryAfter", "pool", "usage");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final Outcome outcome;
  private final String summary;
  private final String artifactUri;
  private final String reason;
  /** A throttled result's wait; null otherwise. */
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  private final java.time.Duration retryAfter;
  /** The pool a throttled result names, or null (all the task's pools). */
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  private final String pool;

  /**
   * The outcome of an attempt as the job reports it. Persisted by name (a late result's, {@code
   * TaskJournal.LateResultRecorded}): a constant is never renamed without a migration.
   */
  public enum Outcome {
    /** The job did its work. */
    SUCCEEDED,
    /** The job failed; the task's retry policy decides what happens next. */
    FAILED,
    /**
     * The job was throttled by the service it calls (an HTTP 429, a provider's {@code Retry-After}):
     * the window is tried again after the wait, not counted against the retry cap, and the pool
     * pauses its admissions for as long.
     */
    THROTTLED
  }

  /** Normalises a null summary to empty. */
  @JsonCreator
  private JobResult(@JsonProperty("outcome") Outcome outcome, @JsonProperty("summary") String summary,
      @JsonProperty("artifactUri") String artifactUri, @JsonProperty("reason") String reason,
      @JsonProperty("retryAfter") java.time.Duration retryAfter, @JsonProperty("pool") String pool) {
    Objects.requireNonNull(outcome, "outcome");
    summary = summary == null ? "" : summary;
    this.outcome = outcome;
    this.summary = summary;
    this.artifactUri = artifactUri;
    this.reason = reason;
    this.retryAfter = retryAfter;
    this.pool = pool;
  }

  /**
   * @param summary a short summary of what was done
   * @return a successful result without artifact
   */
  public static JobResult success(String summary) {
    return new JobResult(Outcome.SUCCEEDED, summary, null, null, null, null);
  }

  /**
   * @param summary a short summary of what was done
   * @param artifactUri where the full output is kept
   * @return a successful result pointing at its artifact
   */
  public static JobResult success(String summary, String artifactUri) {
    return new JobResult(Outcome.SUCCEEDED, summary, artifactUri, null, null, null);
  }

  /**
   * @param reason why the attempt failed
   * @return a failed result
   */
  public static JobResult failure(String reason) {
    return new JobResult(Outcome.FAILED, "", null, reason == null ? "failed" : reason, null, null);
  }

  /** @return true when the outcome is {@link Outcome#SUCCEEDED} */
  public boolean succeeded() {
    return outcome == Outcome.SUCCEEDED;
  }

  /** @return succeeded or failed */
  public Outcome outcome() {
    return outcome;
  }

  /** @return a short summary of a success (may be empty, never null) */
  public String summary() {
    return summary;
  }

  /** @return where the full output lives, or null */
  public String artifactUri() {
    return artifactUri;
  }

  /** @return why it failed (null on success) */
  public String reason() {
    return reason;
  }

  // ---- throttling (resource pools)

  /**
   * The longest wait a throttled result may ask for: 366 days, the longest retry delay ({@link
   * RetryPolicy#MAX_DELAY}). Bounded so that a provider's absurd {@code Retry-After} is refused
   * where the job makes its result (the attempt then fails with that refusal), never later in the
   * executor or the pools' store.
   */
  public static final java.time.Duration MAX_RETRY_AFTER = RetryPolicy.MAX_DELAY;

  /**
   * The service the job calls throttled it: the attempt ends THROTTLED, does not count against the
   * task's retry cap, the window is tried again after {@code retryAfter}, and every pool the task
   * names pauses its admissions for as long, across the cluster.
   *
   * @param retryAfter how long to wait (a provider's {@code Retry-After}); positive, at most {@link
   *     #MAX_RETRY_AFTER}
   * @return a throttled result
   * @throws InvalidSpecException ({@code retryAfter}) if it is null, zero, negative or above {@link
   *     #MAX_RETRY_AFTER}
   */
  public static JobResult throttled(java.time.Duration retryAfter) {
    return throttled(retryAfter, null);
  }

  /**
   * As {@link #throttled(java.time.Duration)}, pausing only the named pool (for a task that names
   * several and whose job knows which one refused).
   *
   * @param retryAfter how long to wait; positive, at most {@link #MAX_RETRY_AFTER}
   * @param pool the pool that throttled, one the task names; null pauses all of them
   * @return a throttled result
   * @throws InvalidSpecException ({@code retryAfter}) if it is null, zero, negative or above {@link
   *     #MAX_RETRY_AFTER}
   */
  public static JobResult throttled(java.time.Duration retryAfter, String pool) {
    if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
      throw new InvalidSpecException("retryAfter", retryAfter, "a throttled result waits a positive time");
    }
    if (retryAfter.compareTo(MAX_RETRY_AFTER) > 0) {
      throw new InvalidSpecException("retryAfter", retryAfter, "a throttled result waits at most " + MAX_RETRY_AFTER
          + " (366 days, the longest retry delay)");
    }
    return new JobResult(Outcome.THROTTLED, "", null, "throttled: retry after " + retryAfter
        + (pool == null ? "" : " (pool " + pool + ")"), retryAfter, pool);
  }

  /** @return true when the outcome is {@link Outcome#THROTTLED} */
  public boolean throttled() {
    return outcome == Outcome.THROTTLED;
  }

  /** @return a throttled result's wait, or null */
  public java.time.Duration retryAfter() {
    return retryAfter;
  }

  /** @return the pool a throttled result names, or null (all the task's pools, or not throttled) */
  public String pool() {
    return pool;
  }

  // Usage: what the attempt used (model, tokens, cost), reported with the result.

  /**
   * Set only by {@link #withUsage} on a new result (and by JSON reading); never changed afterwards.
   * Not written when null, so a result without usage is written as before usage existed.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private Usage usage;

  /**
   * This result with what the attempt used: the task sums it per day in its zone, and a task's daily
   * budget is measured against that sum ({@link TaskSpec.Builder#budgetPerDay}). Report it on a
   * failure too: a failed attempt spent money as well.
   *
   * @param usage the model, tokens and cost of the attempt, or null for none
   * @return a result equal to this one but for its usage
   */
  public JobResult withUsage(Usage usage) {
    JobResult r = new JobResult(outcome, summary, artifactUri, reason, retryAfter, pool);
    r.usage = usage;
    return r;
  }

  /** @return what the attempt used, or null when the job did not report it */
  public Usage usage() {
    return usage;
  }
}

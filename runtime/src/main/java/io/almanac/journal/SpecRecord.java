package io.almanac.journal;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A task's spec as the journal persists it and as it travels between nodes: the journal's own type,
 * separate from the public {@link TaskSpec}, so that the API can change without a journal migration
 * (only {@link #of} and {@link #toSpec} change with it). It holds only strings, numbers, instants,
 * durations and enums, and its JSON is exactly what {@code TaskSpec} wrote when specs were persisted
 * directly (same property names, nesting and encodings), so journals written then read unchanged;
 * specs of the shape before retries and catch-up were separate policies are read through {@link
 * TaskSpecMigration}. Persisted: a component is never renamed without a migration, and a new one is
 * added last, nullable, so journals written before it read as before.
 *
 * <p>A record is data, not validated: reading it never refuses. {@link #toSpec()} builds the
 * public spec through {@code TaskSpec}'s and the policies' constructors, which check the policies
 * as reading the journal did before this type existed. A missing component reads as the default
 * {@code TaskSpec} gives it (see the canonical constructor).
 *
 * @param id the task's id
 * @param cron the cron expression without the zone, or null for a one-shot task
 * @param zone the zone id
 * @param window the window spec's name
 * @param dst the daylight-saving policy
 * @param overlap the overlap policy
 * @param retry the retry policy
 * @param catchUp the catch-up policy
 * @param lease the lease policy
 * @param job the job's name, or null
 * @param description free text, or null
 * @param once the one-shot instant, or null for a cron task (absent from specs written before
 *     one-shot tasks existed)
 */
public record SpecRecord(
    String id,
    String cron,
    String zone,
    String window,
    Dst dst,
    OverlapPolicy overlap,
    Retry retry,
    CatchUp catchUp,
    Lease lease,
    String job,
    String description,
    Instant once) {

  /**
   * Fills missing components with the defaults of {@link TaskSpec}'s canonical constructor (a
   * one-shot task's window {@code per-firing} and zone {@code UTC}); it does not validate.
   */
  @JsonCreator
  public SpecRecord {
    window = window == null ? (once != null ? WindowSpec.PER_FIRING.name() : WindowSpec.DAILY.name()) : window;
    zone = zone == null && once != null ? "UTC" : zone;
    dst = dst == null ? Dst.of(DstPolicy.DEFAULT) : dst;
    overlap = overlap == null ? OverlapPolicy.DEFAULT : overlap;
    retry = retry == null ? Retry.of(RetryPolicy.DEFAULT) : retry;
    catchUp = catchUp == null ? CatchUp.of(CatchUpPolicy.DEFAULT) : catchUp;
    lease = lease == null ? Lease.of(LeasePolicy.DEFAULT) : lease;
  }

  /**
   * @param spec a task's spec
   * @return its record
   */
  public static SpecRecord of(TaskSpec spec) {
    return new SpecRecord(spec.id(), spec.cron(), spec.zone(), spec.window(), Dst.of(spec.dst()), spec.overlap(),
        Retry.of(spec.retry()), CatchUp.of(spec.catchUp()), Lease.of(spec.lease()), spec.job(), spec.description(),
        spec.once());
  }

  /**
   * The public spec, built through its constructor and the policies' (which check the policies, as
   * reading a spec did); {@link TaskSpec#validate()} is the caller's to run.
   *
   * @return the spec
   * @throws io.almanac.InvalidSpecException naming the field, if a policy is one today's rules refuse
   */
  public TaskSpec toSpec() {
    return new TaskSpec(id, cron, zone, window, dst.toPolicy(), overlap, retry.toPolicy(), catchUp.toPolicy(),
        lease.toPolicy(), job, description, once);
  }

  /**
   * The persisted {@link DstPolicy}.
   *
   * @param gap what happens to nominal times inside a spring-forward gap
   * @param overlap what happens to nominal times inside a fall-back overlap
   */
  public record Dst(DstPolicy.Gap gap, DstPolicy.Overlap overlap) {

    /**
     * @param p a policy
     * @return its record
     */
    public static Dst of(DstPolicy p) {
      return new Dst(p.gap(), p.overlap());
    }

    /**
     * @return the policy
     * @throws io.almanac.InvalidSpecException if a part is missing
     */
    public DstPolicy toPolicy() {
      return new DstPolicy(gap, overlap);
    }
  }

  /**
   * The persisted {@link RetryPolicy}; see it for the components. A missing {@code delays} reads
   * as empty and a missing {@code span} as zero, as the policy reads them.
   *
   * @param maxRetries how many retries follow the first attempt
   * @param backoff when each retry is due
   * @param delays the explicit delays of {@link RetryPolicy.Backoff#DELAYS}, or empty
   * @param initialDelay the first exponential delay, or zero
   * @param multiplier the exponential factor, or 1.0
   * @param maxDelay the exponential cap, or zero
   * @param jitter the exponential jitter, or 0.0
   * @param span how long after the window's start a retry may be due, or zero for no limit
   */
  public record Retry(
      int maxRetries,
      RetryPolicy.Backoff backoff,
      List<Duration> delays,
      Duration initialDelay,
      double multiplier,
      Duration maxDelay,
      double jitter,
      Duration span) {

    /** Canonical constructor: the delays are never null and never shared mutable. */
    public Retry {
      delays = delays == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(delays));
      span = span == null ? Duration.ZERO : span;
    }

    /**
     * @param p a policy
     * @return its record
     */
    public static Retry of(RetryPolicy p) {
      return new Retry(p.maxRetries(), p.backoff(), p.delays(), p.initialDelay(), p.multiplier(), p.maxDelay(),
          p.jitter(), p.span());
    }

    /**
     * @return the policy
     * @throws io.almanac.InvalidSpecException naming the field ({@code retry.*}) if today's rules refuse it
     */
    public RetryPolicy toPolicy() {
      return new RetryPolicy(maxRetries, backoff, delays, initialDelay, multiplier, maxDelay, jitter, span);
    }
  }

  /**
   * The persisted {@link CatchUpPolicy}; see it for the components. A missing {@code span} reads as
   * zero, as the policy reads it.
   *
   * @param mode whether missed windows inside the horizon run
   * @param horizon how far back from now a missed window's due instant may lie
   * @param span how long after the window's start a catch-up may still run, or zero for no limit
   */
  public record CatchUp(CatchUpPolicy.Mode mode, Duration horizon, Duration span) {

    /** Canonical constructor: a missing span is zero. */
    public CatchUp {
      span = span == null ? Duration.ZERO : span;
    }

    /**
     * @param p a policy
     * @return its record
     */
    public static CatchUp of(CatchUpPolicy p) {
      return new CatchUp(p.mode(), p.horizon(), p.span());
    }

    /**
     * @return the policy
     * @throws io.almanac.InvalidSpecException naming the field ({@code catchUp.*}) if today's rules refuse it
     */
    public CatchUpPolicy toPolicy() {
      return new CatchUpPolicy(mode, horizon, span);
    }
  }

  /**
   * The persisted {@link LeasePolicy}; see it for the components.
   *
   * @param floor the shortest lease
   * @param ceiling the longest lease, and the lease while samples are too few
   * @param factor the multiple of the P99 duration
   * @param minSamples how many durations are needed before the P99 is trusted
   */
  public record Lease(Duration floor, Duration ceiling, double factor, int minSamples) {

    /**
     * @param p a policy
     * @return its record
     */
    public static Lease of(LeasePolicy p) {
      return new Lease(p.floor(), p.ceiling(), p.factor(), p.minSamples());
    }

    /**
     * @return the policy
     * @throws io.almanac.InvalidSpecException naming the field ({@code lease.*}) if today's rules refuse it
     */
    public LeasePolicy toPolicy() {
      return new LeasePolicy(floor, ceiling, factor, minSamples);
    }
  }
}

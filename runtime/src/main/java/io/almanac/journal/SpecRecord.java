package io.almanac.journal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.almanac.EventTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.ConditionTrigger;
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
 * public spec through {@code TaskSpec}'s and the policies' builders, which check the policies as
 * reading the journal did before this type existed, and may refuse a part stored by an earlier
 * build that today's rules refuse; {@link #toSpecLeniently()} (a task's view) leaves such a part
 * out instead, so a stored task can always be viewed. A missing component reads as the default
 * {@code TaskSpec} gives it, except the job: a spec written before every spec named its job reads
 * without one, and runs the job registered under its task's id, as it always did.
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
 * @param event the event trigger, or null (absent from specs written before it existed)
 * @param dependency the dependency trigger, or null (likewise)
 * @param condition the condition trigger, or null (likewise)
 * @param pools the resource pools the task's job uses, or null when none (absent from specs written
 *     before pools existed)
 * @param deadline how long after its due time a window must have succeeded, or null for none
 *     (absent from specs written before deadlines existed)
 * @param pauseAfterFailures after how many windows in a row end FINAL_FAILED the task pauses itself,
 *     or null for never (likewise)
 * @param budgetPerDayMicros the task's budget per day in millionths of the operator's cost unit, or
 *     null for none (absent from specs written before budgets existed)
 * @param schedule the richer schedule: further crons, bounds, exclusion calendars, jitter; or null
 *     for none (absent from specs written before it existed; docs/schedules.md)
 * @param onInterruption what follows an interrupted attempt, or null for the default {@link
 *     io.almanac.OnInterruption#RESUME} (not written then, and absent from specs written before
 *     interruptions existed: they read as RESUME)
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
    Instant once,
    @JsonInclude(JsonInclude.Include.NON_NULL) Event event,
    @JsonInclude(JsonInclude.Include.NON_NULL) Dependency dependency,
    @JsonInclude(JsonInclude.Include.NON_NULL) Condition condition,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<String> pools,
    @JsonInclude(JsonInclude.Include.NON_NULL) Duration deadline,
    @JsonInclude(JsonInclude.Include.NON_NULL) Integer pauseAfterFailures,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long budgetPerDayMicros,

    @JsonInclude(JsonInclude.Include.NON_NULL) Schedule schedule,
    @JsonInclude(JsonInclude.Include.NON_NULL) io.almanac.OnInterruption onInterruption) {

  /**
   * Fills missing components with the defaults {@link TaskSpec} gives them (a
   * one-shot task's window {@code per-firing} and zone {@code UTC}); it does not validate.
   */
  @JsonCreator
  public SpecRecord {
    window = window == null ? (once != null ? WindowSpec.PER_FIRING.name() : WindowSpec.DAILY.name()) : window;
    zone = zone == null && (once != null || (cron == null && event != null)) ? "UTC" : zone;
    dst = dst == null ? Dst.of(DstPolicy.DEFAULT) : dst;
    overlap = overlap == null ? OverlapPolicy.DEFAULT : overlap;
    retry = retry == null ? Retry.of(RetryPolicy.DEFAULT) : retry;
    catchUp = catchUp == null ? CatchUp.of(CatchUpPolicy.DEFAULT) : catchUp;
    lease = lease == null ? Lease.of(LeasePolicy.DEFAULT) : lease;
    pools = pools == null || pools.isEmpty() ? null : List.copyOf(pools);
    onInterruption = onInterruption == io.almanac.OnInterruption.RESUME ? null : onInterruption;
  }

  /**
   * A record as specs were written before interruptions had a policy (they resume).
   *
   * @param id the task's id
   * @param cron the cron, or null
   * @param zone the zone
   * @param window the window spec's name
   * @param dst the DST policy
   * @param overlap the overlap policy
   * @param retry the retry policy
   * @param catchUp the catch-up policy
   * @param lease the lease policy
   * @param job the job's name, or null
   * @param description free text, or null
   * @param once the one-shot instant, or null
   * @param event the event trigger, or null
   * @param dependency the dependency trigger, or null
   * @param condition the condition trigger, or null
   * @param pools the pools, or null
   * @param deadline the deadline, or null
   * @param pauseAfterFailures the pause on failures, or null
   * @param budgetPerDayMicros the budget per day, or null
   * @param schedule the richer schedule, or null
   */
  public SpecRecord(String id, String cron, String zone, String window, Dst dst, OverlapPolicy overlap, Retry retry,
      CatchUp catchUp, Lease lease, String job, String description, Instant once, Event event, Dependency dependency,
      Condition condition, List<String> pools, Duration deadline, Integer pauseAfterFailures, Long budgetPerDayMicros,
      Schedule schedule) {
    this(id, cron, zone, window, dst, overlap, retry, catchUp, lease, job, description, once, event, dependency, condition,
        pools, deadline, pauseAfterFailures, budgetPerDayMicros, schedule, null);
  }

  /** @return what follows an interrupted attempt of this task ({@link io.almanac.OnInterruption#RESUME} when not set) */
  public io.almanac.OnInterruption interruption() {
    return onInterruption == null ? io.almanac.OnInterruption.DEFAULT : onInterruption;
  }

  /**
   * @param spec a task's spec
   * @return its record
   */
  public static SpecRecord of(TaskSpec spec) {
    return new SpecRecord(spec.id(), spec.cron(), spec.zone(), spec.window(), Dst.of(spec.dst()), spec.overlap(),
        Retry.of(spec.retry()), CatchUp.of(spec.catchUp()), Lease.of(spec.lease()), spec.job(), spec.description(),
        spec.once(), spec.event() == null ? null : Event.of(spec.event()),
        spec.dependency() == null ? null : Dependency.of(spec.dependency()),
        spec.condition() == null ? null : Condition.of(spec.condition()),
        spec.pools().isEmpty() ? null : spec.pools(), spec.deadline(), spec.pauseAfterFailures(),
        spec.budgetPerDay() == null ? null : io.almanac.Usage.toMicros("budgetPerDay", spec.budgetPerDay()),
        spec.richSchedule() ? Schedule.of(spec) : null, spec.onInterruption());
  }

  /**
   * A record as specs were written before event, dependency and condition triggers existed.
   *
   * @param id the task's id
   * @param cron the cron, or null
   * @param zone the zone
   * @param window the window spec's name
   * @param dst the DST policy
   * @param overlap the overlap policy
   * @param retry the retry policy
   * @param catchUp the catch-up policy
   * @param lease the lease policy
   * @param job the job's name, or null
   * @param description free text, or null
   * @param once the one-shot instant, or null
   */
  public SpecRecord(String id, String cron, String zone, String window, Dst dst, OverlapPolicy overlap, Retry retry,
      CatchUp catchUp, Lease lease, String job, String description, Instant once) {
    this(id, cron, zone, window, dst, overlap, retry, catchUp, lease, job, description, once, null, null, null, null, null, null, null, null);
  }

  /**
   * A record as specs were written before resource pools existed.
   *
   * @param id the task's id
   * @param cron the cron, or null
   * @param zone the zone
   * @param window the window spec's name
   * @param dst the DST policy
   * @param overlap the overlap policy
   * @param retry the retry policy
   * @param catchUp the catch-up policy
   * @param lease the lease policy
   * @param job the job's name, or null
   * @param description free text, or null
   * @param once the one-shot instant, or null
   * @param event the event trigger, or null
   * @param dependency the dependency trigger, or null
   * @param condition the condition trigger, or null
   */
  public SpecRecord(String id, String cron, String zone, String window, Dst dst, OverlapPolicy overlap, Retry retry,
      CatchUp catchUp, Lease lease, String job, String description, Instant once, Event event, Dependency dependency,
      Condition condition) {
    this(id, cron, zone, window, dst, overlap, retry, catchUp, lease, job, description, once, event, dependency, condition,
        null);
  }

  /**
   * A record as specs were written before deadlines and pause on failure existed.
   *
   * @param id the task's id
   * @param cron the cron, or null
   * @param zone the zone
   * @param window the window spec's name
   * @param dst the DST policy
   * @param overlap the overlap policy
   * @param retry the retry policy
   * @param catchUp the catch-up policy
   * @param lease the lease policy
   * @param job the job's name, or null
   * @param description free text, or null
   * @param once the one-shot instant, or null
   * @param event the event trigger, or null
   * @param dependency the dependency trigger, or null
   * @param condition the condition trigger, or null
   * @param pools the pools, or null
   */
  public SpecRecord(String id, String cron, String zone, String window, Dst dst, OverlapPolicy overlap, Retry retry,
      CatchUp catchUp, Lease lease, String job, String description, Instant once, Event event, Dependency dependency,
      Condition condition, List<String> pools) {
    this(id, cron, zone, window, dst, overlap, retry, catchUp, lease, job, description, once, event, dependency, condition,
        pools, null, null, null, null);
  }

  /** @return the pools the task's job uses, empty when none */
  public List<String> poolNames() {
    return pools == null ? List.of() : pools;
  }

  /** @return whether a due window waits for a dependency or a condition */
  public boolean gated() {
    return dependency != null || condition != null;
  }

  /**
   * The public spec, built through its builder and the policies' (which check the policies, as
   * reading a spec did); {@link TaskSpec#validate()} is the caller's to run.
   *
   * @return the spec
   * @throws io.almanac.InvalidSpecException naming the field, if a policy is one today's rules refuse
   */
  public TaskSpec toSpec() {
    return toSpec(false);
  }

  /**
   * The public spec for showing a stored task (its view): as {@link #toSpec()}, but a part today's
   * rules refuse at once (a deadline or pause-after-failures out of range, an exclusion calendar
   * with a malformed date) is left out instead of refusing, so a task stored by an earlier build can
   * always be viewed. The record itself keeps the stored values (the entity decides by them).
   *
   * @return the spec, without the parts today's rules refuse; not validated
   */
  public TaskSpec toSpecLeniently() {
    return toSpec(true);
  }

  private TaskSpec toSpec(boolean lenient) {
    TaskSpec.Builder b = TaskSpec.builder(id).cron(cron, zone).window(window).dst(dst.toPolicy()).overlap(overlap)
        .retry(retry.toPolicy()).catchUp(catchUp.toPolicy()).lease(lease.toPolicy()).description(description)
        .onEvent(event == null ? null : event.toTrigger())
        .dependsOn(dependency == null ? null : dependency.toTrigger())
        .when(condition == null ? null : condition.toTrigger()).job(job).pools(pools);
    if (once != null) {
      b.once(once);
    }
    try {
      b.deadline(deadline);
    } catch (io.almanac.InvalidSpecException e) {
      if (!lenient) {
        throw e;
      }
    }
    if (pauseAfterFailures != null) {
      try {
        b.pauseAfterFailures(pauseAfterFailures);
      } catch (io.almanac.InvalidSpecException e) {
        if (!lenient) {
          throw e;
        }
      }
    }
    if (budgetPerDayMicros != null) {
      b.budgetPerDay(java.math.BigDecimal.valueOf(budgetPerDayMicros, 6));
    }
    if (schedule != null) {
      schedule.applyTo(b, lenient);
    }
    if (onInterruption != null) {
      b.onInterruption(onInterruption);
    }
    return b.buildUnvalidated();
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
      return RetryPolicy.builder().maxRetries(maxRetries).backoff(backoff).delays(delays).initialDelay(initialDelay)
          .multiplier(multiplier).maxDelay(maxDelay).jitter(jitter).span(span).build();
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
      return LeasePolicy.builder().floor(floor).ceiling(ceiling).factor(factor).minSamples(minSamples).build();
    }
  }

  /**
   * The persisted {@link EventTrigger}.
   *
   * @param type the event type
   * @param mapBy which instant picks a window
   */
  public record Event(String type, EventTrigger.TimeBasis mapBy) {
    /**
     * @param t a trigger
     * @return its record
     */
    public static Event of(EventTrigger t) {
      return new Event(t.type(), t.mapBy());
    }

    /** @return the trigger */
    public EventTrigger toTrigger() {
      return new EventTrigger(type, mapBy);
    }
  }

  /**
   * The persisted {@link DependencyTrigger}; see it for the components.
   *
   * @param upstream the upstream task ids
   * @param require all or any
   * @param mapping which upstream windows
   * @param waitAtMost the deadline after the window came due, or null (the window's end)
   * @param missingUpstream what a missing upstream does at registration
   * @param onUpstreamRerun what a late upstream success does
   */
  public record Dependency(List<String> upstream, DependencyTrigger.Require require, DependencyTrigger.Mapping mapping,
      Duration waitAtMost, DependencyTrigger.MissingUpstream missingUpstream, DependencyTrigger.Rerun onUpstreamRerun) {

    /** Canonical constructor: the list is never null and never shared mutable. */
    public Dependency {
      upstream = upstream == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(upstream));
    }

    /**
     * @param t a trigger
     * @return its record
     */
    public static Dependency of(DependencyTrigger t) {
      return new Dependency(t.upstream(), t.require(), t.mapping(), t.waitAtMost(), t.missingUpstream(), t.onUpstreamRerun());
    }

    /** @return the trigger */
    public DependencyTrigger toTrigger() {
      DependencyTrigger t = DependencyTrigger.on(upstream.toArray(new String[0]));
      return (require == DependencyTrigger.Require.ANY ? t.any() : t).mapping(mapping).waitAtMost(waitAtMost)
          .missingUpstream(missingUpstream).onUpstreamRerun(onUpstreamRerun);
    }
  }

  /**
   * The persisted {@link ConditionTrigger}; see it for the components.
   *
   * @param name the registered condition's name
   * @param every the poll interval
   * @param timeout how long one poll may take
   * @param debounce consecutive polls it must hold for
   * @param holdFor how long it must have held
   * @param waitAtMost the deadline after the window came due, or null (the window's end)
   */
  public record Condition(String name, Duration every, Duration timeout, int debounce, Duration holdFor,
      Duration waitAtMost) {
    /**
     * @param t a trigger
     * @return its record
     */
    public static Condition of(ConditionTrigger t) {
      return new Condition(t.name(), t.every(), t.timeout(), t.debounce(), t.holdFor(), t.waitAtMost());
    }

    /** @return the trigger */
    public ConditionTrigger toTrigger() {
      // every first: it may lower the default timeout, which the stored one then replaces
      return ConditionTrigger.named(name).every(every).timeout(timeout).debounce(debounce).holdFor(holdFor)
          .waitAtMost(waitAtMost);
    }
  }

  /**
   * The persisted richer schedule (docs/schedules.md); each component null when unused.
   *
   * @param alsoCrons the crons besides {@code cron}, each without its zone
   * @param from the start bound as given (an ISO date or instant), or null
   * @param until the end bound as given, or null
   * @param calendars the exclusion calendars with their dates as they were at registration, or null
   * @param jitter the jitter, or null
   */
  public record Schedule(
      @JsonInclude(JsonInclude.Include.NON_NULL) List<String> alsoCrons,
      @JsonInclude(JsonInclude.Include.NON_NULL) String from,
      @JsonInclude(JsonInclude.Include.NON_NULL) String until,
      @JsonInclude(JsonInclude.Include.NON_NULL) List<Calendar> calendars,
      @JsonInclude(JsonInclude.Include.NON_NULL) Duration jitter) {

    /**
     * @param spec a spec with a richer schedule
     * @return its record
     */
    public static Schedule of(TaskSpec spec) {
      return new Schedule(spec.alsoCrons().isEmpty() ? null : List.copyOf(spec.alsoCrons()), spec.from(), spec.until(),
          spec.calendars().isEmpty() ? null
              : spec.calendars().stream().map(c -> new Calendar(c.name(), List.copyOf(c.dates()))).toList(),
          spec.jitter().isZero() ? null : spec.jitter());
    }

    /**
     * Sets these parts on a spec's builder.
     *
     * @param b the builder
     * @param lenient whether a calendar today's rules refuse is left out instead
     * @throws io.almanac.InvalidSpecException if a stored calendar's dates are ones today's rules refuse
     *     (unless lenient)
     */
    void applyTo(TaskSpec.Builder b, boolean lenient) {
      if (alsoCrons != null) {
        alsoCrons.forEach(b::alsoCron);
      }
      b.from(from).until(until).jitter(jitter);
      if (calendars != null) {
        for (Calendar c : calendars) {
          try {
            b.exclude(io.almanac.ExclusionCalendar.of(c.name(), c.dates()));
          } catch (RuntimeException e) {
            if (!lenient) {
              throw e;
            }
          }
        }
      }
    }
  }

  /**
   * A persisted exclusion calendar.
   *
   * @param name its name
   * @param dates its dates and inclusive ranges, e.g. {@code 2027-02-10..2027-02-16}
   */
  public record Calendar(String name, List<String> dates) {}
}

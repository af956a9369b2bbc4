package io.almanac;

import static com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

/**
 * What a task is: its id, its time trigger (a Quartz cron with seconds in an explicit zone, R2, or
 * one instant for a one-shot task), how its firings map to business windows (R4), its job and its
 * policies. Immutable; built with {@link #builder(String)} and validated by {@link Builder#build()}
 * (R33: every refusal names the field and the value). There is no public constructor: a spec is
 * built by naming each part, so adding a part never makes an older call bind to other parts.
 * Not persisted itself: the journal, and the commands that carry a spec between nodes, hold the
 * journal's own {@link io.almanac.journal.SpecRecord}, converted by {@code SpecRecord.of} and
 * {@link io.almanac.journal.SpecRecord#toSpec()}; a change here changes those two conversions, and
 * the journal's format only if it must hold something new. It travels between nodes as JSON only
 * inside a task's view ({@link TaskView#spec()}), with the property names and order it had as a
 * record.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"id", "cron", "zone", "window", "dst", "overlap", "retry", "catchUp", "lease", "job", "description", "once",
    "event", "dependency", "condition", "pools", "deadline", "pauseAfterFailures", "budgetPerDay",
    "alsoCrons", "from", "until", "calendars", "jitter", "onInterruption"})
public final class TaskSpec extends Value {
  // the parts in the order of @JsonPropertyOrder, so they are named once
  private static final Parts PARTS =
      Parts.of(MethodHandles.lookup(), TaskSpec.class.getAnnotation(JsonPropertyOrder.class).value());

  @Override
  Parts parts() {
    return PARTS;
  }

  /** Longest task id accepted. */
  public static final int MAX_ID_LENGTH = 100;

  /** Longest description accepted. */
  public static final int MAX_DESCRIPTION_LENGTH = 1_000;

  /** Earliest one-shot instant accepted: the first instant a cron can name (1970). */
  public static final Instant EARLIEST_ONCE = Instant.parse("1970-01-01T00:00:00Z");

  /** One-shot instants must be before this: the end of the last year a cron can name (2099). */
  public static final Instant LATEST_ONCE = Instant.parse("2100-01-01T00:00:00Z");

  private final String id;
  private final String cron;
  private final String zone;
  private final String window;
  private final DstPolicy dst;
  private final OverlapPolicy overlap;
  private final RetryPolicy retry;
  private final CatchUpPolicy catchUp;
  private final LeasePolicy lease;
  private final String job;
  private final String description;
  private final Instant once;
  @JsonInclude(NON_NULL) private final EventTrigger event;
  @JsonInclude(NON_NULL) private final DependencyTrigger dependency;
  @JsonInclude(NON_NULL) private final ConditionTrigger condition;
  /** The resource pools the task's job uses (empty: none); see {@link PoolSpec}. */
  // null when none, so a spec without pools reads and prints as before
  @JsonInclude(NON_NULL) private final java.util.List<String> pools;
  @JsonInclude(NON_NULL) private final java.time.Duration deadline;
  @JsonInclude(NON_NULL) private final Integer pauseAfterFailures;
  @JsonInclude(NON_NULL) private final BigDecimal budgetPerDay;
  // Richer schedules (docs/schedules.md): each null when unused.
  @JsonInclude(NON_NULL) private final List<String> alsoCrons;
  @JsonInclude(NON_NULL) private final String from;
  @JsonInclude(NON_NULL) private final String until;
  @JsonInclude(NON_NULL) private final List<ExclusionCalendar> calendars;
  @JsonInclude(NON_NULL) private final Duration jitter;
  /** Null for the default, RESUME: a spec that does not set it reads and prints as before. */
  @JsonInclude(NON_NULL) private final OnInterruption onInterruption;

  /**
   * Fills unset policies with their defaults (a one-shot task's window with {@code per-firing} and
   * its zone with {@code UTC}) and an unset job with the id; it does not validate.
   */
  private TaskSpec(TaskSpecDraft b, String window) {
    this.id = b.id;
    this.cron = b.cron;
    this.once = b.once;
    this.event = b.event;
    this.window = TaskSpecParts.window(window, once);
    this.zone = TaskSpecParts.zone(b.zone, once, cron, event);
    this.dst = b.dst == null ? DstPolicy.DEFAULT : b.dst;
    this.overlap = b.overlap == null ? OverlapPolicy.DEFAULT : b.overlap;
    this.retry = TaskSpecParts.retry(b.retry, b.maxRetries);
    this.catchUp = b.catchUp == null ? CatchUpPolicy.DEFAULT : b.catchUp;
    this.lease = b.lease == null ? LeasePolicy.DEFAULT : b.lease;
    this.job = b.jobSet ? b.job : b.id;
    this.description = b.description;
    this.dependency = b.dependency;
    this.condition = b.condition;
    this.pools = TaskSpecParts.pools(b.pools);
    this.deadline = b.deadline;
    this.pauseAfterFailures = b.pauseAfterFailures;
    this.budgetPerDay = b.budgetPerDay == null ? null : TaskSpecParts.plain(b.budgetPerDay);
    this.alsoCrons = TaskSpecParts.withoutZone(b.alsoCrons, this.zone);
    this.from = b.from;
    this.until = b.until;
    this.calendars = b.calendars.isEmpty() ? null : List.copyOf(b.calendars);
    this.jitter = b.jitter == null || b.jitter.isZero() ? null : b.jitter;
    this.onInterruption = b.onInterruption == OnInterruption.RESUME ? null : b.onInterruption;
  }

  /**
   * A spec as another node sends it in a view ({@code TaskProtocol.TaskInfo}): its parts as they
   * were, defaults for those missing; not validated.
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  private static TaskSpec fromJson(TaskSpecJson json) {
    return json.toSpec();
  }

  /** @return the task's unique id: 1-100 characters of letters, digits, {@code . _ -} */
  public String id() {
    return id;
  }

  /** @return the cron expression, Quartz syntax with seconds, without the zone; null for a one-shot task
   *     and for a task triggered by events only */
  public String cron() {
    return cron;
  }

  /** @return the task's zone id, e.g. {@code Asia/Shanghai} (UTC inside, R26); {@code UTC} for a
   *     one-shot task unless set */
  public String zone() {
    return zone;
  }

  /** @return the name of the window spec ({@link WindowSpec#byName(String)}), e.g. {@code daily} */
  public String window() {
    return window;
  }

  /** @return the daylight-saving policy (R3) */
  public DstPolicy dst() {
    return dst;
  }

  /** @return what happens when a window fires while the previous instance is active (R6) */
  public OverlapPolicy overlap() {
    return overlap;
  }

  /** @return what follows a failed or timed-out attempt: how many retries, when, until when (R12,
   *     R13, R15); by default none */
  public RetryPolicy retry() {
    return retry;
  }

  /** @return what happens to windows missed while nothing fired them: whether they run, and the
   *     horizon beyond which they never do (R12, R14); by default they do not run */
  public CatchUpPolicy catchUp() {
    return catchUp;
  }

  /** @return how long an attempt may run without a heartbeat (R23) */
  public LeasePolicy lease() {
    return lease;
  }

  /** @return the job the executor runs for this task: the name it is registered under ({@link
   *     Almanac.Builder#job}), or the name of an {@link AgentJob} class with a public no-argument
   *     constructor; by default the task's id. Null only in a spec read back from a journal written
   *     before every spec named its job (such a task runs the job registered under its id) */
  public String job() {
    return job;
  }

  /** @return free text for operators; may be null */
  public String description() {
    return description;
  }

  /** @return the one instant a one-shot task fires at ({@link Builder#once(Instant)}), or null for
   *     a cron task. Its one window is that instant ({@code per-firing}); after downtime it goes to
   *     the catch-up policy and its horizon like any missed window (R14) */
  public Instant once() {
    return once;
  }

  /** @return the event trigger: the task runs a window when an event of its type arrives for it
   *     (R9), or null. A task with an event trigger needs no cron; its zone ({@code UTC} unless set)
   *     maps event times to windows */
  public EventTrigger event() {
    return event;
  }

  /** @return the dependency trigger: a due window waits for its upstream tasks (R9), or null */
  public DependencyTrigger dependency() {
    return dependency;
  }

  /** @return the condition trigger: a due window waits for a polled condition (R9), or null */
  public ConditionTrigger condition() {
    return condition;
  }

  /** @return the crons whose union is the task's schedule besides {@link #cron()} ({@link
   *     Builder#alsoCron}), each without its zone (the task's zone); empty when the task has one cron */
  public List<String> alsoCrons() {
    return alsoCrons == null ? List.of() : alsoCrons;
  }

  /** @return every cron of the schedule: {@link #cron()} first, then {@link #alsoCrons()}; empty for a
   *     task without a cron */
  public List<String> crons() {
    return TaskSpecParts.crons(cron, alsoCrons());
  }

  /** @return the schedule's start bound as given ({@link Builder#from(String)}): an ISO date, the start of
   *     that day in the task's zone, or an ISO instant; no window due before it fires. Null for none */
  public String from() {
    return from;
  }

  /** @return the schedule's end bound as given ({@link Builder#until(String)}): an ISO date, the whole of
   *     that day in the task's zone included, or an ISO instant, included; no window due after it fires
   *     and the trigger stops asking. Null for none */
  public String until() {
    return until;
  }

  /** @return the exclusion calendars: a window whose due date (in the task's zone) is in one of them is
   *     recorded SKIPPED, {@link SkipReason#EXCLUDED}; empty for none */
  public List<ExclusionCalendar> calendars() {
    return calendars == null ? List.of() : calendars;
  }

  /** @return the jitter J: each window fires at a deterministic offset in [0, J) after its due time
   *     ({@link io.almanac.schedule.Jitter}); zero for none */
  public Duration jitter() {
    return jitter == null ? Duration.ZERO : jitter;
  }

  /** @return whether the spec uses a bound, an exclusion calendar, jitter or more than one cron */
  public boolean richSchedule() {
    return alsoCrons != null || from != null || until != null || calendars != null || jitter != null;
  }

  /**
   * @return the resource pools the task's job uses, in the order given (empty: none): an attempt
   *     starts only when every one has room ({@link PoolSpec})
   */
  public java.util.List<String> pools() {
    return pools == null ? java.util.List.of() : pools;
  }

  /**
   * @return how long after its due time (its fire time, with jitter) a window must have SUCCEEDED
   *     ({@link Builder#deadline}), or
   *     null for no deadline
   */
  public java.time.Duration deadline() {
    return deadline;
  }

  /**
   * @return after how many windows in a row that end FINAL_FAILED the task pauses itself ({@link
   *     Builder#pauseAfterFailures}), or null when it never does (the default)
   */
  public Integer pauseAfterFailures() {
    return pauseAfterFailures;
  }

  /**
   * @return what follows an attempt of this task interrupted by its node's life ({@link
   *     Builder#onInterruption}): {@link OnInterruption#RESUME} by default
   */
  public OnInterruption onInterruption() {
    return onInterruption == null ? OnInterruption.DEFAULT : onInterruption;
  }

  /**
   * @param id the task's id
   * @return a builder with every policy at its default and a daily window
   */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  /**
   * Checks every field and returns this spec.
   *
   * @return this spec, valid
   * @throws InvalidSpecException naming the task, the field and the value of the first problem
   */
  public TaskSpec validate() {
    return TaskSpecChecks.validate(this);
  }

  /**
   * Whether this is a one-shot task: it fires once, at {@link #once()}, instead of by a cron.
   *
   * @return true when {@code once} is set
   */
  public boolean oneShot() {
    return once != null;
  }

  /**
   * The longest {@link Builder#deadline deadline}: 366 days, as the policies' longest durations.
   * Bounded so that a window's due time plus its deadline never overflows and a deadline timer can
   * always be armed.
   */
  public static final java.time.Duration MAX_DEADLINE = java.time.Duration.ofDays(366);

  /** The largest {@link Builder#pauseAfterFailures pauseAfterFailures}: 10,000 windows in a row. */
  public static final int MAX_PAUSE_AFTER_FAILURES = 10_000;

  /** @return the task's budget per day (in its zone), in the operator's cost unit, or null for none */
  public BigDecimal budgetPerDay() {
    return budgetPerDay;
  }

  /** Largest budget per day accepted, in millionths (a thousand times one attempt's largest cost). */
  public static final long MAX_BUDGET_MICROS = 1_000L * Usage.MAX_COST_MICROS;

  /**
   * Whether the task has a time trigger: a cron or a one-shot instant. A task without one is
   * triggered by events only.
   *
   * @return true when {@code cron} or {@code once} is set
   */
  public boolean timeTriggered() {
    return cron != null || once != null;
  }

  /**
   * Whether a due window of this task waits before it runs: for its dependency or its condition.
   *
   * @return true when {@code dependency} or {@code condition} is set
   */
  public boolean gated() {
    return dependency != null || condition != null;
  }

  /**
   * @return the zone as a {@link ZoneId}
   * @throws InvalidSpecException if the zone is unknown
   */
  public ZoneId zoneId() {
    return TaskSpecChecks.zoneId(once, cron, zone);
  }

  /**
   * Checks a task id: 1 to {@value #MAX_ID_LENGTH} characters of letters, digits, {@code .}, {@code
   * _} and {@code -}.
   *
   * @param id the id
   * @throws InvalidSpecException ({@code id}) if it is empty, too long or has another character
   */
  public static void validateId(String id) {
    TaskSpecChecks.validateId(id);
  }

  /** Fluent builder for {@link TaskSpec}; {@link #build()} validates. */
  public static final class Builder {
    private final TaskSpecDraft draft;

    private Builder(String id) {
      this.draft = new TaskSpecDraft(id);
    }

    /** @return what this builder was given so far, for a spec read from JSON ({@link TaskSpecJson}) */
    TaskSpecDraft draft() {
      return draft;
    }

    /**
     * @param cronWithZone a cron with its zone as the last token, e.g. {@code 0 0 8 * * ? Asia/Shanghai}
     * @return this builder
     * @throws InvalidSpecException if the cron or the zone is invalid
     */
    public Builder cron(String cronWithZone) {
      CronSchedule parsed = TaskSpecParts.inTask(draft.id, () -> CronSchedule.parse(cronWithZone));
      draft.cron = parsed.expression();
      draft.zone = parsed.zone().getId();
      return this;
    }

    /**
     * @param expression a Quartz cron with seconds, e.g. {@code 0 0 8 * * ?}
     * @param zoneId its zone, e.g. {@code Asia/Shanghai}
     * @return this builder
     */
    public Builder cron(String expression, String zoneId) {
      draft.cron = expression;
      draft.zone = zoneId;
      return this;
    }

    /**
     * Makes this a one-shot task: it fires once, at {@code at}, instead of by a cron. Its one window
     * is that instant ({@code per-firing}, e.g. {@code 2026-12-01T00:00:00Z}) and its zone UTC. A
     * spec with both a cron and a one-shot instant is refused.
     * Missed through downtime, or registered after {@code at}, it goes to the catch-up policy like
     * any missed window (R14): within the horizon it runs if the catch-up policy allows, otherwise it
     * is recorded as MISSED with the reason. It never fires again.
     *
     * @param at the instant, from 1970 and before 2100
     * @return this builder
     */
    public Builder once(Instant at) {
      draft.once = TaskSpecParts.required(draft.id, "once", at,
          "a one-shot task fires at an instant, e.g. 2027-01-01T09:00:00Z");
      if (draft.zone == null) {
        draft.zone = "UTC";
      }
      return this;
    }

    /**
     * @param spec how firings map to windows (daily, hourly, per firing, or a registered one)
     * @return this builder
     */
    public Builder window(WindowSpec spec) {
      draft.window = TaskSpecParts.required(draft.id, "window", spec, "a window spec, e.g. WindowSpec.DAILY").name();
      draft.windowChosen = true;
      return this;
    }

    /**
     * @param name the name of a window spec
     * @return this builder
     */
    public Builder window(String name) {
      draft.window = name;
      draft.windowChosen = name != null;
      return this;
    }

    /**
     * @param policy the daylight-saving policy
     * @return this builder
     */
    public Builder dst(DstPolicy policy) {
      draft.dst = policy;
      return this;
    }

    /**
     * @param policy the overlap policy
     * @return this builder
     */
    public Builder overlap(OverlapPolicy policy) {
      draft.overlap = policy;
      return this;
    }

    /**
     * @param policy what follows a failed or timed-out attempt (default {@link RetryPolicy#none()}:
     *     no retries, R12); its cap is replaced by {@link #maxRetries(int)} when that is set too
     * @return this builder
     */
    public Builder retry(RetryPolicy policy) {
      draft.retry = policy;
      return this;
    }

    /**
     * The retry cap (R15), applied to the back-off of {@link #retry(RetryPolicy)} (immediate if none
     * is chosen), whichever of the two is called first. {@code maxRetries(3)} alone marks the task for
     * 3 immediate retries; 0 leaves it not marked for retry.
     *
     * @param cap the number of retries after the first attempt, 0 to {@value
     *     RetryPolicy#MAX_ALLOWED_RETRIES}
     * @return this builder
     * @throws InvalidSpecException ({@code retry.maxRetries}) if negative or too large
     */
    public Builder maxRetries(int cap) {
      // validates now, so the refusal points here
      TaskSpecParts.inTask(draft.id, () -> RetryPolicy.DEFAULT.withMaxRetries(cap));
      draft.maxRetries = cap;
      return this;
    }

    /**
     * @param policy what happens to windows missed while nothing fired them (default {@link
     *     CatchUpPolicy#none()}: recorded as missed, never run, horizon 24 h)
     * @return this builder
     */
    public Builder catchUp(CatchUpPolicy policy) {
      draft.catchUp = policy;
      return this;
    }

    /**
     * @param policy the lease policy
     * @return this builder
     */
    public Builder lease(LeasePolicy policy) {
      draft.lease = policy;
      return this;
    }

    /**
     * The job the executor runs for this task. Unset, it is the task's id: the task runs the job
     * registered under its own id.
     *
     * @param jobName a job's registered name ({@link Almanac.Builder#job}), or the name of an {@link
     *     AgentJob} class with a public no-argument constructor, e.g. {@code com.example.DigestJob}
     * @return this builder
     */
    public Builder job(String jobName) {
      draft.job = jobName;
      draft.jobSet = true;
      return this;
    }

    /**
     * The zone of a task without a cron (event-triggered): event times map to windows in it.
     *
     * @param zoneId a zone id, e.g. {@code Asia/Shanghai}
     * @return this builder
     */
    public Builder zone(String zoneId) {
      draft.zone = zoneId;
      return this;
    }

    /**
     * Triggers the task by events of a type (R9); with no cron, events are its only trigger.
     *
     * @param trigger the event trigger
     * @return this builder
     */
    public Builder onEvent(EventTrigger trigger) {
      draft.event = trigger;
      return this;
    }

    /**
     * Makes each due window wait for upstream tasks (R9).
     *
     * @param trigger the dependency
     * @return this builder
     */
    public Builder dependsOn(DependencyTrigger trigger) {
      draft.dependency = trigger;
      return this;
    }

    /**
     * Makes each due window wait for a polled condition (R9).
     *
     * @param trigger the condition
     * @return this builder
     */
    public Builder when(ConditionTrigger trigger) {
      draft.condition = trigger;
      return this;
    }

    /**
     * @param text free text for operators
     * @return this builder
     */
    public Builder description(String text) {
      draft.description = text;
      return this;
    }

    /**
     * Gives the task a budget per day, in the task's zone: once the cost its attempts reported that
     * day ({@link JobResult#withUsage(Usage)}) reaches it, its further windows of the day are
     * skipped with {@link SkipReason#BUDGET_EXHAUSTED}. An operator may raise it for the day
     * ({@link Almanac#raiseBudget}).
     *
     * @param amount the budget, at least 0, at most 6 decimal places, in the unit usage reports
     *     cost in; null for none (the default)
     * @return this builder (the amount is checked by {@link #build()}: {@code budgetPerDay})
     */
    public Builder budgetPerDay(BigDecimal amount) {
      draft.budgetPerDay = amount;
      return this;
    }

    /**
     * Names the resource pools the task's job uses ({@link PoolSpec}): an attempt starts only when
     * every one has room. Each must be declared on the node ({@code almanac.pools.<name>} or {@code
     * Almanac.Builder.pool}); registration refuses an unknown one.
     *
     * @param names the pools (none: the task uses no pool)
     * @return this builder
     */
    public Builder pools(String... names) {
      draft.pools = names == null ? null : java.util.Arrays.asList(names.clone());
      return this;
    }

    /**
     * A deadline: each window (a first run and its retries) must have SUCCEEDED within {@code d} of
     * its due time (of its fire time, with {@link #jitter}: the due time plus its offset). One still PENDING, WAITING, RUNNING or waiting to retry then is recorded with a
     * {@code DeadlineMissed} event and raises a {@link Alert.Kind#DEADLINE_MISSED} alert, once per
     * window; the window goes on as before. Unset (null), the task has no deadline.
     *
     * @param d how long after the window's due time (fire time, with jitter), positive, at most
     *     {@link #MAX_DEADLINE}; null for none
     * @return this builder
     * @throws InvalidSpecException ({@code deadline}) if zero, negative or above {@link #MAX_DEADLINE}
     */
    public Builder deadline(java.time.Duration d) {
      TaskSpecParts.checked(draft.id, () -> TaskSpecChecks.checkDeadline(d));
      draft.deadline = d;
      return this;
    }

    /**
     * Adds a cron to the schedule: the task is due whenever any of its crons fires (their union). Two
     * crons firing at the same instant make one window; two firings in one window (two crons firing on
     * the same day with daily windows) are one window too, the later firing recorded as a duplicate of
     * it, as with one cron. With the window left at its default (daily), a union firing more than once a
     * day is refused, as one such cron is.
     *
     * @param expression a Quartz cron with seconds in the task's zone, e.g. {@code 0 0 9 1 * ?}; a last
     *     token naming a zone is accepted if it is the task's zone
     * @return this builder
     */
    public Builder alsoCron(String expression) {
      if (expression != null) {
        draft.alsoCrons.add(expression);
      }
      return this;
    }

    /**
     * @param names the pools (null or empty: none)
     * @return this builder
     * @see #pools(String...)
     */
    public Builder pools(java.util.List<String> names) {
      draft.pools = names == null ? null : new java.util.ArrayList<>(names);
      return this;
    }

    /**
     * What follows an attempt interrupted by its node's life, not by its job (the node stopped past
     * {@code almanac.executor.shutdown-grace}, died, or was fenced out; {@link InterruptCause}).
     * {@link OnInterruption#RESUME} (the default): the window runs again at once with {@link
     * RunKind#RESUME}, no retry spent, so the job body runs at least once and may run more than once.
     * {@link OnInterruption#FAIL}: the window goes FINAL_FAILED with the cause in its reason and is
     * never run again by itself, so the body runs at most once.
     *
     * @param policy RESUME or FAIL
     * @return this builder
     * @throws InvalidSpecException ({@code onInterruption}) if null
     */
    public Builder onInterruption(OnInterruption policy) {
      draft.onInterruption = TaskSpecParts.required(draft.id, "onInterruption", policy, "must be RESUME or FAIL");
      return this;
    }

    /**
     * Pause on failure: after {@code n} windows in a row end FINAL_FAILED, the task pauses itself
     * (recorded as a {@code TaskPaused} event with its cause) and raises a {@link
     * Alert.Kind#TASK_PAUSED_ON_FAILURES} alert. A SUCCEEDED window starts the count again; an
     * operator's resume resets it. Off by default.
     *
     * @param n windows in a row, at least 1, at most {@link #MAX_PAUSE_AFTER_FAILURES}
     * @return this builder
     * @throws InvalidSpecException ({@code pauseAfterFailures}) if below 1 or above {@link
     *     #MAX_PAUSE_AFTER_FAILURES}
     */
    public Builder pauseAfterFailures(int n) {
      TaskSpecParts.checked(draft.id, () -> TaskSpecChecks.checkPauseAfterFailures(n));
      draft.pauseAfterFailures = n;
      return this;
    }

    /**
     * The schedule's start: no window due before it fires.
     *
     * @param isoDateOrInstant an ISO date ({@code 2027-01-01}: from the start of that day in the task's
     *     zone) or an ISO instant with its offset ({@code 2027-01-01T09:00:00Z}); null for none
     * @return this builder
     */
    public Builder from(String isoDateOrInstant) {
      draft.from = TaskSpecParts.bound(isoDateOrInstant);
      return this;
    }

    /**
     * @param date the first day of the schedule, in the task's zone
     * @return this builder
     */
    public Builder from(LocalDate date) {
      return from(date == null ? null : date.toString());
    }

    /**
     * @param instant the first instant a window may be due at
     * @return this builder
     */
    public Builder from(Instant instant) {
      return from(instant == null ? null : instant.toString());
    }

    /**
     * The schedule's end: no window due after it fires, and the trigger stops asking for the task's
     * next firing.
     *
     * @param isoDateOrInstant an ISO date ({@code 2027-03-31}: that whole day in the task's zone
     *     included) or an ISO instant with its offset, included; null for none
     * @return this builder
     */
    public Builder until(String isoDateOrInstant) {
      draft.until = TaskSpecParts.bound(isoDateOrInstant);
      return this;
    }

    /**
     * @param date the last day of the schedule, in the task's zone, included
     * @return this builder
     */
    public Builder until(LocalDate date) {
      return until(date == null ? null : date.toString());
    }

    /**
     * @param instant the last instant a window may be due at, included
     * @return this builder
     */
    public Builder until(Instant instant) {
      return until(instant == null ? null : instant.toString());
    }

    /**
     * Excludes the dates of a calendar: a window whose due date (the local date of its firing, in the
     * task's zone) is in it is recorded SKIPPED with {@link SkipReason#EXCLUDED} instead of running.
     * The spec holds the calendar's dates as given here. Several calendars may be named.
     *
     * @param calendar the calendar, shared by the tasks that name it
     * @return this builder
     * @throws InvalidSpecException ({@code calendars}) if it is null
     */
    public Builder exclude(ExclusionCalendar calendar) {
      draft.calendars.add(TaskSpecParts.required(draft.id, "calendars", calendar,
          "a calendar to exclude, e.g. ExclusionCalendar.of(\"holidays\", \"2027-01-01\")"));
      return this;
    }

    /**
     * Spreads the task's windows: each fires at a deterministic offset in [0, J) after its due time,
     * derived from the task's id and the window's key ({@link io.almanac.schedule.Jitter}), so a restart
     * does not move it. The window's key and its recorded due time stay the un-jittered ones.
     *
     * @param j the jitter; zero or null for none; at most the schedule's shortest interval
     * @return this builder
     */
    public Builder jitter(Duration j) {
      draft.jitter = j;
      return this;
    }

    /**
     * @return the validated spec
     * @throws InvalidSpecException naming the task, the field and the value of the first problem
     */
    public TaskSpec build() {
      TaskSpecChecks.requireTrigger(draft);
      TaskSpec spec = buildUnvalidated().validate();
      if (!draft.windowChosen && draft.once == null && draft.cron != null) {
        TaskSpecChecks.refuseSeveralFiringsPerDefaultWindow(spec);
      }
      return spec;
    }

    /**
     * The spec as given, not validated: for a spec read back from a journal, which must read
     * whatever today's rules say of it (a task whose stored spec they refuse is set aside, not
     * lost). Unset policies are their defaults, as with {@link #build()}.
     *
     * @return the spec; {@link TaskSpec#validate()} checks it
     * @throws InvalidSpecException ({@code retry.maxRetries}) if {@link #maxRetries(int)} does not fit the
     *     retry policy
     */
    public TaskSpec buildUnvalidated() {
      return new TaskSpec(draft, draft.once != null && !draft.windowChosen ? WindowSpec.PER_FIRING.name() : draft.window);
    }
  }
}

package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.time.ZoneId;
import java.util.Optional;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

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
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(),
      "id", "cron", "zone", "window", "dst", "overlap", "retry", "catchUp", "lease", "job", "description", "once",
      "event", "dependency", "condition", "pools", "deadline", "pauseAfterFailures", "budgetPerDay",
      "alsoCrons", "from", "until", "calendars", "jitter", "onInterruption");

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

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]+");

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
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final EventTrigger event;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final DependencyTrigger dependency;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final ConditionTrigger condition;
  /** The resource pools the task's job uses (empty: none); see {@link PoolSpec}. */
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  private final java.util.List<String> pools; // null when none, so a spec without pools reads and prints as before
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final java.time.Duration deadline;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final Integer pauseAfterFailures;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final BigDecimal budgetPerDay;
  // Richer schedules (docs/schedules.md): each null when unused.
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final List<String> alsoCrons;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final String from;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final String until;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final List<ExclusionCalendar> calendars;
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final Duration jitter;
  /** Null for the default, RESUME: a spec that does not set it reads and prints as before. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  private final OnInterruption onInterruption;

  /**
   * Fills unset policies with their defaults (a one-shot task's window with {@code per-firing} and
   * its zone with {@code UTC}) and an unset job with the id; it does not validate.
   */
  private TaskSpec(Builder b, String window) {
    this.id = b.id;
    this.cron = b.cron;
    this.once = b.once;
    this.event = b.event;
    this.window = window == null ? (once != null ? WindowSpec.PER_FIRING.name() : WindowSpec.DAILY.name()) : window;
    this.zone = b.zone == null && (once != null || (cron == null && event != null)) ? "UTC" : b.zone;
    this.dst = b.dst == null ? DstPolicy.DEFAULT : b.dst;
    this.overlap = b.overlap == null ? OverlapPolicy.DEFAULT : b.overlap;
    RetryPolicy retries = b.retry == null ? RetryPolicy.DEFAULT : b.retry;
    this.retry = b.maxRetries == null ? retries : retries.withMaxRetries(b.maxRetries);
    this.catchUp = b.catchUp == null ? CatchUpPolicy.DEFAULT : b.catchUp;
    this.lease = b.lease == null ? LeasePolicy.DEFAULT : b.lease;
    this.job = b.jobSet ? b.job : b.id;
    this.description = b.description;
    this.dependency = b.dependency;
    this.condition = b.condition;
    // not List.copyOf: a null name is refused by validate(), naming pools, not by a NullPointerException here
    this.pools = b.pools == null || b.pools.isEmpty() ? null
        : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(b.pools));
    this.deadline = b.deadline;
    this.pauseAfterFailures = b.pauseAfterFailures;
    this.budgetPerDay = b.budgetPerDay == null ? null : plain(b.budgetPerDay);
    this.alsoCrons = b.alsoCrons.isEmpty() ? null
        : b.alsoCrons.stream().map(c -> withoutZone(c, this.zone)).toList();
    this.from = b.from;
    this.until = b.until;
    this.calendars = b.calendars.isEmpty() ? null : List.copyOf(b.calendars);
    this.jitter = b.jitter == null || b.jitter.isZero() ? null : b.jitter;
    this.onInterruption = b.onInterruption == OnInterruption.RESUME ? null : b.onInterruption;
  }

  /** An amount without trailing zeros (5.00 is 5), so equal budgets are equal specs. */
  private static BigDecimal plain(BigDecimal amount) {
    BigDecimal d = amount.stripTrailingZeros();
    return d.scale() < 0 ? d.setScale(0) : d;
  }

  /**
   * A spec as another node sends it in a view ({@code TaskProtocol.TaskInfo}): its parts as they
   * were, defaults for those missing; not validated.
   */
  @JsonCreator
  private static TaskSpec fromJson(
      @JsonProperty("id") String id,
      @JsonProperty("cron") String cron,
      @JsonProperty("zone") String zone,
      @JsonProperty("window") String window,
      @JsonProperty("dst") DstPolicy dst,
      @JsonProperty("overlap") OverlapPolicy overlap,
      @JsonProperty("retry") RetryPolicy retry,
      @JsonProperty("catchUp") CatchUpPolicy catchUp,
      @JsonProperty("lease") LeasePolicy lease,
      @JsonProperty("job") String job,
      @JsonProperty("description") String description,
      @JsonProperty("once") Instant once,
      @JsonProperty("event") EventTrigger event,
      @JsonProperty("dependency") DependencyTrigger dependency,
      @JsonProperty("condition") ConditionTrigger condition,
      @JsonProperty("pools") java.util.List<String> pools,
      @JsonProperty("deadline") java.time.Duration deadline,
      @JsonProperty("pauseAfterFailures") Integer pauseAfterFailures,
      @JsonProperty("budgetPerDay") BigDecimal budgetPerDay,
      @JsonProperty("alsoCrons") List<String> alsoCrons,
      @JsonProperty("from") String from,
      @JsonProperty("until") String until,
      @JsonProperty("calendars") List<ExclusionCalendar> calendars,
      @JsonProperty("jitter") Duration jitter,
      @JsonProperty("onInterruption") OnInterruption onInterruption) {
    Builder b = builder(id).cron(cron, zone).window(window).dst(dst).overlap(overlap).retry(retry).catchUp(catchUp)
        .lease(lease).job(job).description(description).onEvent(event).dependsOn(dependency).when(condition)
        .from(from).until(until).jitter(jitter);
    if (alsoCrons != null) {
      alsoCrons.forEach(b::alsoCron);
    }
    if (calendars != null) {
      calendars.forEach(b::exclude);
    }
    b.once = once;
    b.pools = pools;
    b.deadline = deadline;
    b.pauseAfterFailures = pauseAfterFailures;
    b.budgetPerDay = budgetPerDay;
    b.onInterruption = onInterruption;
    return b.buildUnvalidated();
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
    if (cron == null) {
      return List.of();
    }
    List<String> all = new ArrayList<>(1 + alsoCrons().size());
    all.add(cron);
    all.addAll(alsoCrons());
    return List.copyOf(all);
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
    String where = id == null || id.isBlank() ? "?" : id;
    try {
      validateId(id);
      if (once != null) {
        validateOnce();
      } else if (cron != null || event == null) {
        if (cron == null) {
          throw new InvalidSpecException("cron", null, "a cron expression, a one-shot instant or an event trigger is"
              + " required: it says when a window comes due");
        }
        CronSchedule.parse(cron, zone);
      } else {
        validateZone();
      }
      if (event != null) {
        event.validate();
      }
      if (dependency != null) {
        dependency.validate(id);
      }
      if (condition != null) {
        condition.validate();
      }
      checkDeadline(deadline);
      checkPauseAfterFailures(pauseAfterFailures);
      validateBudget();
      WindowSpec.byName(window);
      validatePools();
      if (richSchedule()) {
        validateRichSchedule();
      }
      if (job == null || job.isBlank()) {
        throw new InvalidSpecException("job", job, "a task names the job it runs: a registered job name or an"
            + " AgentJob class name (by default the task's id)");
      }
      if (description != null && description.length() > MAX_DESCRIPTION_LENGTH) {
        throw new InvalidSpecException(
            "description",
            description.substring(0, 40) + "...",
            "is " + description.length() + " characters; at most " + MAX_DESCRIPTION_LENGTH);
      }
      return this;
    } catch (InvalidSpecException e) {
      throw new InvalidSpecException(where, e);
    }
  }

  private void validatePools() {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String pool : pools()) {
      if (pool == null) {
        throw new InvalidSpecException("pools", pools(), "a pool name must not be null (" + pools().size() + " names given)");
      }
      try {
        PoolSpec.validateName(pool);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException("pools", pool, e.reason());
      }
      if (!seen.add(pool)) {
        throw new InvalidSpecException("pools", pool, "is named twice");
      }
    }
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

  private static void checkDeadline(java.time.Duration d) {
    if (d != null && (d.isZero() || d.isNegative())) {
      throw new InvalidSpecException("deadline", d, "must be positive: how long after its due time a window must have"
          + " succeeded");
    }
    if (d != null && d.compareTo(MAX_DEADLINE) > 0) {
      throw new InvalidSpecException("deadline", d, "must be at most " + MAX_DEADLINE + " (366 days)");
    }
  }

  private static void checkPauseAfterFailures(Integer n) {
    if (n != null && n < 1) {
      throw new InvalidSpecException("pauseAfterFailures", n, "must be at least 1: the number of windows in a row"
          + " that end FINAL_FAILED before the task pauses itself");
    }
    if (n != null && n > MAX_PAUSE_AFTER_FAILURES) {
      throw new InvalidSpecException("pauseAfterFailures", n, "must be at most " + MAX_PAUSE_AFTER_FAILURES);
    }
  }

  // Budgets

  /** @return the task's budget per day (in its zone), in the operator's cost unit, or null for none */
  public BigDecimal budgetPerDay() {
    return budgetPerDay;
  }

  private void validateBudget() {
    if (budgetPerDay != null) {
      long micros = Usage.toMicros("budgetPerDay", budgetPerDay); // refuses a negative, too fine or too large one
      if (micros > MAX_BUDGET_MICROS) {
        throw new InvalidSpecException("budgetPerDay", budgetPerDay.toPlainString(), "at most "
            + Usage.fromMicros(MAX_BUDGET_MICROS).toPlainString());
      }
    }
  }

  /** Largest budget per day accepted, in millionths (a thousand times one attempt's largest cost). */
  public static final long MAX_BUDGET_MICROS = 1_000L * Usage.MAX_COST_MICROS;

  private void validateZone() {
    try {
      ZoneId.of(zone);
    } catch (DateTimeException | NullPointerException e) {
      throw new InvalidSpecException("zone", zone, "unknown time zone");
    }
  }

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

  /** A one-shot task: no cron, an instant a cron could name, a known zone, its instant as its window. */
  private void validateOnce() {
    if (cron != null) {
      throw new InvalidSpecException("once", once, "a task fires either by its cron ('" + InvalidSpecException.echo(cron)
          + "') or once at an instant, not both");
    }
    if (once.isBefore(EARLIEST_ONCE) || !once.isBefore(LATEST_ONCE)) {
      throw new InvalidSpecException("once", once, "must be from " + EARLIEST_ONCE + " and before " + LATEST_ONCE
          + " (the years a cron can name)");
    }
    try {
      ZoneId.of(zone);
    } catch (DateTimeException | NullPointerException e) {
      throw new InvalidSpecException("zone", zone, "unknown time zone");
    }
    if (!WindowSpec.PER_FIRING.name().equals(window)) {
      throw new InvalidSpecException("window", window, "a one-shot task has one window, its instant: "
          + WindowSpec.PER_FIRING.name());
    }
  }

  /**
   * The default window is daily: a cron that fires more than once a day would silently run once a
   * day and record every other firing as a duplicate of its window. With the window left at its
   * default, such a cron is refused (R4, R33); choose {@code per-firing} (one instance per firing),
   * {@code hourly}, or {@code daily} explicitly to run once a day on purpose.
   *
   * <p>A union of crons is refused too when any day holds firings of two of its crons at different
   * instants (two crons firing at the same instant make one window). One cron fires at the same
   * times of day on every day it fires, so its first firings tell whether it fires twice a day. For
   * a pair, the days of the sparser cron are walked over {@value #UNION_CYCLE_YEARS} years from
   * their first firings (the Gregorian calendar's dates, weekdays and leap days repeat every 28
   * years between 1901 and 2099), asking the other cron whether it fires on that day, and at most
   * {@value #UNION_MAX_DAYS} of its days (four years or more: a leap cycle, even for a daily cron),
   * which bounds the cost of a build.
   */
  private void refuseSeveralFiringsPerDefaultWindow() {
    List<String> all = crons();
    java.util.List<io.almanac.schedule.TaskSchedule> each = new ArrayList<>(all.size());
    ZoneId zoneId = CronSchedule.parse(cron, zone).zone();
    for (int i = 0; i < all.size(); i++) {
      CronSchedule c = i == 0 ? CronSchedule.parse(cron, zone) : CronSchedule.parse(all.get(i), zoneId);
      each.add(new io.almanac.schedule.TaskSchedule(c, dst(), WindowSpec.DAILY));
    }
    for (int i = 0; i < each.size(); i++) {
      refuseTwiceADay(each.get(i), all.get(i));
    }
    for (int i = 0; i < each.size(); i++) {
      for (int j = i + 1; j < each.size(); j++) {
        refuseSharedDay(each.get(i), all.get(i), each.get(j), all.get(j));
      }
    }
  }

  /** Years of a union's days walked per pair of crons: the Gregorian calendar's 28-year cycle (1901-2099). */
  private static final int UNION_CYCLE_YEARS = 28;

  /** Days of the sparser cron of a pair walked at most. */
  private static final int UNION_MAX_DAYS = 1_500;

  /** Any fixed instant: the checks do not depend on today. */
  private static final Instant CHECKED_FROM = Instant.parse("2027-01-04T00:00:00Z");

  /** One cron that fires twice in one daily window. */
  private void refuseTwiceADay(io.almanac.schedule.TaskSchedule schedule, String expression) {
    Instant t = CHECKED_FROM;
    String previous = null;
    Instant previousAt = null;
    for (int i = 0; i < 8; i++) {
      Optional<io.almanac.schedule.DueWindow> next = schedule.nextAfter(t);
      if (next.isEmpty()) {
        return;
      }
      Firing f = next.get().firing();
      String key = next.get().key().value();
      if (key.equals(previous)) {
        throw new InvalidSpecException(id, new InvalidSpecException("window", "daily (the default)", "cron '"
            + InvalidSpecException.echo(expression) + "' fires more than once a day (" + previousAt + " and " + f.at()
            + " are both in window " + key + "), so all but one firing a day would be recorded as duplicates; set "
            + "window to per-firing (one instance per firing) or hourly, or to daily explicitly to run once a day"));
      }
      previous = key;
      previousAt = f.at();
      t = f.at();
    }
  }

  /** Two crons, each at most once a day, that fire on one day at different instants. */
  private void refuseSharedDay(io.almanac.schedule.TaskSchedule a, String aExpr, io.almanac.schedule.TaskSchedule b,
      String bExpr) {
    Optional<io.almanac.schedule.DueWindow> firstA = a.nextAfter(CHECKED_FROM);
    Optional<io.almanac.schedule.DueWindow> firstB = b.nextAfter(CHECKED_FROM);
    if (firstA.isEmpty() || firstB.isEmpty()) {
      return;
    }
    Instant from = (firstA.get().dueAt().isAfter(firstB.get().dueAt()) ? firstA : firstB).get().dueAt()
        .minus(Duration.ofDays(2));
    Instant until = from.plus(Duration.ofDays(366L * UNION_CYCLE_YEARS));
    // walk the sparser one's days (fewer firings in the first year)
    boolean aSparser = a.dueBetween(from, from.plus(Duration.ofDays(92)), 93).size()
        <= b.dueBetween(from, from.plus(Duration.ofDays(92)), 93).size();
    io.almanac.schedule.TaskSchedule walked = aSparser ? a : b;
    io.almanac.schedule.TaskSchedule asked = aSparser ? b : a;
    Instant t = from;
    for (int days = 0; days < UNION_MAX_DAYS; days++) {
      Optional<io.almanac.schedule.DueWindow> d = walked.nextAfter(t);
      if (d.isEmpty() || d.get().dueAt().isAfter(until)) {
        return;
      }
      io.almanac.schedule.DueWindow w = d.get();
      Optional<io.almanac.schedule.DueWindow> other = asked.nextAfter(w.window().start().minusNanos(1));
      if (other.isPresent() && other.get().key().equals(w.key()) && !other.get().dueAt().equals(w.dueAt())) {
        Instant x = w.dueAt().isBefore(other.get().dueAt()) ? w.dueAt() : other.get().dueAt();
        Instant y = w.dueAt().isBefore(other.get().dueAt()) ? other.get().dueAt() : w.dueAt();
        throw new InvalidSpecException(id, new InvalidSpecException("crons", "'" + InvalidSpecException.echo(aExpr)
            + "' + '" + InvalidSpecException.echo(bExpr) + "'", "crons '" + InvalidSpecException.echo(aExpr) + "' and '"
            + InvalidSpecException.echo(bExpr) + "' both fire on " + w.key().value() + " (" + x + " and " + y
            + " are both in window " + w.key().value() + "), so with the default daily window one firing would be"
            + " recorded as a duplicate; set window to per-firing (one instance per firing) or hourly, or to daily"
            + " explicitly to run once a day"));
      }
      t = w.dueAt();
    }
  }

  /**
   * @return the zone as a {@link ZoneId}
   * @throws InvalidSpecException if the zone is unknown
   */
  public ZoneId zoneId() {
    if (once != null || cron == null) {
      try {
        return ZoneId.of(zone);
      } catch (DateTimeException e) {
        throw new InvalidSpecException("zone", zone, "unknown time zone");
      }
    }
    return CronSchedule.parse(cron, zone).zone();
  }

  /**
   * Checks the parts of a richer schedule (docs/schedules.md): each extra cron in the task's zone,
   * the bounds (the end after the start), the calendars (no name twice) and the jitter (not negative,
   * not above the shortest interval of the crons' union).
   */
  private void validateRichSchedule() {
    if (cron == null) {
      String field = alsoCrons != null ? "crons" : from != null ? "from" : until != null ? "until"
          : calendars != null ? "calendars" : "jitter";
      Object value = switch (field) {
        case "crons" -> alsoCrons;
        case "from" -> from;
        case "until" -> until;
        case "calendars" -> calendars().stream().map(ExclusionCalendar::name).toList();
        default -> jitter;
      };
      throw new InvalidSpecException(field, value, "applies to a task with a cron: " + (once != null
          ? "a one-shot task fires at its one instant" : "a task triggered by events only has no cron windows"));
    }
    java.time.ZoneId zoneId = zoneId();
    for (String extra : alsoCrons()) {
      String[] tokens = extra.strip().split("\\s+");
      java.time.ZoneId other = tokens.length > 1 ? zoneOrNull(tokens[tokens.length - 1]) : null;
      if (other != null) {
        throw new InvalidSpecException("crons", extra, "is in zone " + other + "; every cron of a task is in the task's"
            + " zone " + zoneId + " (give it without a zone)");
      }
      try {
        CronSchedule.parse(extra, zoneId);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException("crons", extra, e.reason());
      }
    }
    io.almanac.schedule.Bounds.checkYears("from", from);
    io.almanac.schedule.Bounds.checkYears("until", until);
    Instant start = io.almanac.schedule.Bounds.start(from, zoneId);
    Instant end = io.almanac.schedule.Bounds.end(until, zoneId);
    if (start != null && end != null && !end.isAfter(start)) {
      throw new InvalidSpecException("until", until, "ends before the schedule starts (from '" + from + "')");
    }
    if (start != null && end != null && end.equals(start.plusNanos(1))) { // until (included) is from itself
      throw new InvalidSpecException("until", until, "is the instant the schedule starts (from '" + from
          + "'): a schedule spans some time; give the last day, or an instant after from");
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    for (ExclusionCalendar c : calendars()) {
      if (!names.add(c.name())) {
        throw new InvalidSpecException("calendars", c.name(), "named twice");
      }
    }
    if (jitter != null) {
      if (jitter.isNegative()) {
        throw new InvalidSpecException("jitter", jitter, "must not be negative");
      }
      Duration interval = io.almanac.schedule.Schedules.unboundedMinInterval(this);
      if (jitter.compareTo(interval) > 0) {
        throw new InvalidSpecException("jitter", jitter, "is larger than the schedule's shortest interval " + interval
            + " between due windows: a window could fire after the next one is due");
      }
    }
  }

  /** A cron whose last token is {@code zone} without it; any other as it is (validation refuses another zone). */
  private static String withoutZone(String cron, String zone) {
    String stripped = cron.strip();
    int space = stripped.lastIndexOf(' ');
    if (space > 0 && zone != null && stripped.substring(space + 1).equals(zone)) {
      return stripped.substring(0, space).strip();
    }
    return stripped;
  }

  private static java.time.ZoneId zoneOrNull(String token) {
    if (!token.contains("/") && !token.equals("UTC") && !token.equals("Z")) {
      return null; // a year or a cron field, not a zone
    }
    try {
      return java.time.ZoneId.of(token);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /**
   * Checks a task id: 1 to {@value #MAX_ID_LENGTH} characters of letters, digits, {@code .}, {@code
   * _} and {@code -}.
   *
   * @param id the id
   * @throws InvalidSpecException ({@code id}) if it is empty, too long or has another character
   */
  public static void validateId(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidSpecException("id", id, "a task id must not be empty");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw new InvalidSpecException("id", id, "is " + id.length() + " characters; at most " + MAX_ID_LENGTH);
    }
    if (!ID.matcher(id).matches()) {
      throw new InvalidSpecException("id", id, "only letters, digits, '.', '_' and '-' are allowed");
    }
  }

  /** Fluent builder for {@link TaskSpec}; {@link #build()} validates. */
  public static final class Builder {
    private final String id;
    private String cron;
    private String zone;
    private String window = WindowSpec.DAILY.name();
    private boolean windowChosen;
    private DstPolicy dst = DstPolicy.DEFAULT;
    private OverlapPolicy overlap = OverlapPolicy.DEFAULT;
    private RetryPolicy retry = RetryPolicy.DEFAULT;
    private Integer maxRetries;
    private CatchUpPolicy catchUp = CatchUpPolicy.DEFAULT;
    private LeasePolicy lease = LeasePolicy.DEFAULT;
    private String job;
    private boolean jobSet;
    private String description;
    private Instant once;
    private EventTrigger event;
    private DependencyTrigger dependency;
    private ConditionTrigger condition;
    private java.util.List<String> pools;
    private java.time.Duration deadline;
    private Integer pauseAfterFailures;
    private BigDecimal budgetPerDay;
    // Richer schedules (docs/schedules.md)
    private final List<String> alsoCrons = new ArrayList<>();
    private String from;
    private String until;
    private final List<ExclusionCalendar> calendars = new ArrayList<>();
    private Duration jitter;
    private OnInterruption onInterruption;

    private Builder(String id) {
      this.id = id;
    }

    /**
     * @param cronWithZone a cron with its zone as the last token, e.g. {@code 0 0 8 * * ? Asia/Shanghai}
     * @return this builder
     * @throws InvalidSpecException if the cron or the zone is invalid
     */
    public Builder cron(String cronWithZone) {
      try {
        CronSchedule parsed = CronSchedule.parse(cronWithZone);
        this.cron = parsed.expression();
        this.zone = parsed.zone().getId();
        return this;
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(id == null ? "?" : id, e);
      }
    }

    /**
     * @param expression a Quartz cron with seconds, e.g. {@code 0 0 8 * * ?}
     * @param zoneId its zone, e.g. {@code Asia/Shanghai}
     * @return this builder
     */
    public Builder cron(String expression, String zoneId) {
      this.cron = expression;
      this.zone = zoneId;
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
      if (at == null) {
        throw new InvalidSpecException(id == null ? "?" : id, new InvalidSpecException("once", null,
            "a one-shot task fires at an instant, e.g. 2027-01-01T09:00:00Z"));
      }
      this.once = at;
      if (this.zone == null) {
        this.zone = "UTC";
      }
      return this;
    }

    /**
     * @param spec how firings map to windows (daily, hourly, per firing, or a registered one)
     * @return this builder
     */
    public Builder window(WindowSpec spec) {
      if (spec == null) {
        throw new InvalidSpecException(id == null ? "?" : id, new InvalidSpecException("window", null,
            "a window spec, e.g. WindowSpec.DAILY"));
      }
      this.window = spec.name();
      this.windowChosen = true;
      return this;
    }

    /**
     * @param name the name of a window spec
     * @return this builder
     */
    public Builder window(String name) {
      this.window = name;
      this.windowChosen = name != null;
      return this;
    }

    /**
     * @param policy the daylight-saving policy
     * @return this builder
     */
    public Builder dst(DstPolicy policy) {
      this.dst = policy;
      return this;
    }

    /**
     * @param policy the overlap policy
     * @return this builder
     */
    public Builder overlap(OverlapPolicy policy) {
      this.overlap = policy;
      return this;
    }

    /**
     * @param policy what follows a failed or timed-out attempt (default {@link RetryPolicy#none()}:
     *     no retries, R12); its cap is replaced by {@link #maxRetries(int)} when that is set too
     * @return this builder
     */
    public Builder retry(RetryPolicy policy) {
      this.retry = policy;
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
      try {
        RetryPolicy.DEFAULT.withMaxRetries(cap); // validates now, so the refusal points here
        this.maxRetries = cap;
        return this;
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(id == null ? "?" : id, e);
      }
    }

    /**
     * @param policy what happens to windows missed while nothing fired them (default {@link
     *     CatchUpPolicy#none()}: recorded as missed, never run, horizon 24 h)
     * @return this builder
     */
    public Builder catchUp(CatchUpPolicy policy) {
      this.catchUp = policy;
      return this;
    }

    /**
     * @param policy the lease policy
     * @return this builder
     */
    public Builder lease(LeasePolicy policy) {
      this.lease = policy;
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
      this.job = jobName;
      this.jobSet = true;
      return this;
    }

    /**
     * The zone of a task without a cron (event-triggered): event times map to windows in it.
     *
     * @param zoneId a zone id, e.g. {@code Asia/Shanghai}
     * @return this builder
     */
    public Builder zone(String zoneId) {
      this.zone = zoneId;
      return this;
    }

    /**
     * Triggers the task by events of a type (R9); with no cron, events are its only trigger.
     *
     * @param trigger the event trigger
     * @return this builder
     */
    public Builder onEvent(EventTrigger trigger) {
      this.event = trigger;
      return this;
    }

    /**
     * Makes each due window wait for upstream tasks (R9).
     *
     * @param trigger the dependency
     * @return this builder
     */
    public Builder dependsOn(DependencyTrigger trigger) {
      this.dependency = trigger;
      return this;
    }

    /**
     * Makes each due window wait for a polled condition (R9).
     *
     * @param trigger the condition
     * @return this builder
     */
    public Builder when(ConditionTrigger trigger) {
      this.condition = trigger;
      return this;
    }

    /**
     * @param text free text for operators
     * @return this builder
     */
    public Builder description(String text) {
      this.description = text;
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
      this.budgetPerDay = amount;
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
      this.pools = names == null ? null : java.util.Arrays.asList(names.clone());
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
      try {
        checkDeadline(d);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(id == null ? "?" : id, e);
      }
      this.deadline = d;
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
        alsoCrons.add(expression);
      }
      return this;
    }

    /**
     * @param names the pools (null or empty: none)
     * @return this builder
     * @see #pools(String...)
     */
    public Builder pools(java.util.List<String> names) {
      this.pools = names == null ? null : new java.util.ArrayList<>(names);
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
      if (policy == null) {
        throw new InvalidSpecException(id == null ? "?" : id, new InvalidSpecException("onInterruption", null,
            "must be RESUME or FAIL"));
      }
      this.onInterruption = policy;
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
      try {
        checkPauseAfterFailures(n);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(id == null ? "?" : id, e);
      }
      this.pauseAfterFailures = n;
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
      this.from = isoDateOrInstant == null ? null : isoDateOrInstant.strip();
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
      this.until = isoDateOrInstant == null ? null : isoDateOrInstant.strip();
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
      if (calendar == null) {
        throw new InvalidSpecException(id == null ? "?" : id,
            new InvalidSpecException("calendars", null, "a calendar to exclude, e.g. ExclusionCalendar.of(\"holidays\", \"2027-01-01\")"));
      }
      this.calendars.add(calendar);
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
      this.jitter = j;
      return this;
    }

    /**
     * @return the validated spec
     * @throws InvalidSpecException naming the task, the field and the value of the first problem
     */
    public TaskSpec build() {
      if (cron == null && once == null && event == null) {
        throw new InvalidSpecException(id == null || id.isBlank() ? "?" : id,
            new InvalidSpecException("cron", null, "a cron expression, a one-shot instant (once(...)) or an event"
                + " trigger (onEvent(...)) is required: it says when a window comes due"));
      }
      TaskSpec spec = buildUnvalidated().validate();
      if (!windowChosen && once == null && cron != null) {
        spec.refuseSeveralFiringsPerDefaultWindow();
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
      return new TaskSpec(this, once != null && !windowChosen ? WindowSpec.PER_FIRING.name() : window);
    }
  }
}

package io.almanac;

import io.almanac.schedule.Bounds;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks of a {@link TaskSpec} ({@link TaskSpec#validate()}, {@link TaskSpec.Builder#build()}):
 * each refusal names the field and the value (R33). Reads the spec through its accessors only.
 * Package-private: no part of the API.
 *
 * <p>INTERNAL API.
 */
final class TaskSpecChecks {

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]+");

  private TaskSpecChecks() {}

  /** Every field of a spec, the first problem refused naming the task, the field and the value. */
  static TaskSpec validate(TaskSpec spec) {
    String id = spec.id();
    String where = id == null || id.isBlank() ? "?" : id;
    try {
      validateId(id);
      if (spec.once() != null) {
        validateOnce(spec);
      } else if (spec.cron() != null || spec.event() == null) {
        if (spec.cron() == null) {
          throw new InvalidSpecException("cron", null, "a cron expression, a one-shot instant or an event trigger is"
              + " required: it says when a window comes due");
        }
        CronSchedule.parse(spec.cron(), spec.zone());
      } else {
        validateZone(spec.zone());
      }
      if (spec.event() != null) {
        spec.event().validate();
      }
      if (spec.dependency() != null) {
        spec.dependency().validate(id);
      }
      if (spec.condition() != null) {
        spec.condition().validate();
      }
      checkDeadline(spec.deadline());
      checkPauseAfterFailures(spec.pauseAfterFailures());
      validateBudget(spec.budgetPerDay());
      WindowSpec.byName(spec.window());
      validatePools(spec.pools());
      if (spec.richSchedule()) {
        validateRichSchedule(spec);
      }
      String job = spec.job();
      if (job == null || job.isBlank()) {
        throw new InvalidSpecException("job", job, "a task names the job it runs: a registered job name or an"
            + " AgentJob class name (by default the task's id)");
      }
      String description = spec.description();
      if (description != null && description.length() > TaskSpec.MAX_DESCRIPTION_LENGTH) {
        throw new InvalidSpecException(
            "description",
            description.substring(0, 40) + "...",
            "is " + description.length() + " characters; at most " + TaskSpec.MAX_DESCRIPTION_LENGTH);
      }
      return spec;
    } catch (InvalidSpecException e) {
      throw new InvalidSpecException(where, e);
    }
  }

  /** A builder given no trigger: no cron, no one-shot instant and no event trigger. */
  static void requireTrigger(TaskSpecDraft draft) {
    if (draft.cron == null && draft.once == null && draft.event == null) {
      throw new InvalidSpecException(draft.id == null || draft.id.isBlank() ? "?" : draft.id,
          new InvalidSpecException("cron", null, "a cron expression, a one-shot instant (once(...)) or an event"
              + " trigger (onEvent(...)) is required: it says when a window comes due"));
    }
  }

  /** See {@link TaskSpec#validateId(String)}. */
  static void validateId(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidSpecException("id", id, "a task id must not be empty");
    }
    if (id.length() > TaskSpec.MAX_ID_LENGTH) {
      throw new InvalidSpecException("id", id, "is " + id.length() + " characters; at most " + TaskSpec.MAX_ID_LENGTH);
    }
    if (!ID.matcher(id).matches()) {
      throw new InvalidSpecException("id", id, "only letters, digits, '.', '_' and '-' are allowed");
    }
  }

  /** See {@link TaskSpec#zoneId()}. */
  static ZoneId zoneId(Instant once, String cron, String zone) {
    if (once != null || cron == null) {
      try {
        return ZoneId.of(zone);
      } catch (DateTimeException e) {
        throw new InvalidSpecException("zone", zone, "unknown time zone");
      }
    }
    return CronSchedule.parse(cron, zone).zone();
  }

  private static void validatePools(List<String> pools) {
    Set<String> seen = new HashSet<>();
    for (String pool : pools) {
      if (pool == null) {
        throw new InvalidSpecException("pools", pools, "a pool name must not be null (" + pools.size() + " names given)");
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

  static void checkDeadline(Duration d) {
    if (d != null && (d.isZero() || d.isNegative())) {
      throw new InvalidSpecException("deadline", d, "must be positive: how long after its due time a window must have"
          + " succeeded");
    }
    if (d != null && d.compareTo(TaskSpec.MAX_DEADLINE) > 0) {
      throw new InvalidSpecException("deadline", d, "must be at most " + TaskSpec.MAX_DEADLINE + " (366 days)");
    }
  }

  static void checkPauseAfterFailures(Integer n) {
    if (n != null && n < 1) {
      throw new InvalidSpecException("pauseAfterFailures", n, "must be at least 1: the number of windows in a row"
          + " that end FINAL_FAILED before the task pauses itself");
    }
    if (n != null && n > TaskSpec.MAX_PAUSE_AFTER_FAILURES) {
      throw new InvalidSpecException("pauseAfterFailures", n, "must be at most " + TaskSpec.MAX_PAUSE_AFTER_FAILURES);
    }
  }

  private static void validateBudget(java.math.BigDecimal budgetPerDay) {
    if (budgetPerDay != null) {
      long micros = Usage.toMicros("budgetPerDay", budgetPerDay); // refuses a negative, too fine or too large one
      if (micros > TaskSpec.MAX_BUDGET_MICROS) {
        throw new InvalidSpecException("budgetPerDay", budgetPerDay.toPlainString(), "at most "
            + Usage.fromMicros(TaskSpec.MAX_BUDGET_MICROS).toPlainString());
      }
    }
  }

  private static void validateZone(String zone) {
    try {
      ZoneId.of(zone);
    } catch (DateTimeException | NullPointerException e) {
      throw new InvalidSpecException("zone", zone, "unknown time zone");
    }
  }

  /** A one-shot task: no cron, an instant a cron could name, a known zone, its instant as its window. */
  private static void validateOnce(TaskSpec spec) {
    Instant once = spec.once();
    if (spec.cron() != null) {
      throw new InvalidSpecException("once", once, "a task fires either by its cron ('"
          + InvalidSpecException.echo(spec.cron()) + "') or once at an instant, not both");
    }
    if (once.isBefore(TaskSpec.EARLIEST_ONCE) || !once.isBefore(TaskSpec.LATEST_ONCE)) {
      throw new InvalidSpecException("once", once, "must be from " + TaskSpec.EARLIEST_ONCE + " and before "
          + TaskSpec.LATEST_ONCE + " (the years a cron can name)");
    }
    validateZone(spec.zone());
    if (!WindowSpec.PER_FIRING.name().equals(spec.window())) {
      throw new InvalidSpecException("window", spec.window(), "a one-shot task has one window, its instant: "
          + WindowSpec.PER_FIRING.name());
    }
  }

  /**
   * Checks the parts of a richer schedule (docs/schedules.md): each extra cron in the task's zone,
   * the bounds (the end after the start), the calendars (no name twice) and the jitter (not negative,
   * not above the shortest interval of the crons' union). The spec's accessors give an empty list or
   * a zero jitter for a part it does not use.
   */
  private static void validateRichSchedule(TaskSpec spec) {
    String from = spec.from();
    String until = spec.until();
    boolean crons = !spec.alsoCrons().isEmpty();
    boolean calendars = !spec.calendars().isEmpty();
    Duration jitter = spec.jitter().isZero() ? null : spec.jitter();
    if (spec.cron() == null) {
      String field = crons ? "crons" : from != null ? "from" : until != null ? "until"
          : calendars ? "calendars" : "jitter";
      Object value = switch (field) {
        case "crons" -> spec.alsoCrons();
        case "from" -> from;
        case "until" -> until;
        case "calendars" -> spec.calendars().stream().map(ExclusionCalendar::name).toList();
        default -> jitter;
      };
      throw new InvalidSpecException(field, value, "applies to a task with a cron: " + (spec.once() != null
          ? "a one-shot task fires at its one instant" : "a task triggered by events only has no cron windows"));
    }
    ZoneId zoneId = spec.zoneId();
    for (String extra : spec.alsoCrons()) {
      String[] tokens = extra.strip().split("\\s+");
      ZoneId other = tokens.length > 1 ? zoneOrNull(tokens[tokens.length - 1]) : null;
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
    Bounds.checkYears("from", from);
    Bounds.checkYears("until", until);
    Instant start = Bounds.start(from, zoneId);
    Instant end = Bounds.end(until, zoneId);
    if (start != null && end != null && !end.isAfter(start)) {
      throw new InvalidSpecException("until", until, "ends before the schedule starts (from '" + from + "')");
    }
    if (start != null && end != null && end.equals(start.plusNanos(1))) { // until (included) is from itself
      throw new InvalidSpecException("until", until, "is the instant the schedule starts (from '" + from
          + "'): a schedule spans some time; give the last day, or an instant after from");
    }
    Set<String> names = new HashSet<>();
    for (ExclusionCalendar c : spec.calendars()) {
      if (!names.add(c.name())) {
        throw new InvalidSpecException("calendars", c.name(), "named twice");
      }
    }
    if (jitter != null) {
      if (jitter.isNegative()) {
        throw new InvalidSpecException("jitter", jitter, "must not be negative");
      }
      Duration interval = Schedules.unboundedMinInterval(spec);
      if (jitter.compareTo(interval) > 0) {
        throw new InvalidSpecException("jitter", jitter, "is larger than the schedule's shortest interval " + interval
            + " between due windows: a window could fire after the next one is due");
      }
    }
  }

  private static ZoneId zoneOrNull(String token) {
    if (!token.contains("/") && !token.equals("UTC") && !token.equals("Z")) {
      return null; // a year or a cron field, not a zone
    }
    try {
      return ZoneId.of(token);
    } catch (DateTimeException e) {
      return null;
    }
  }

  // The default daily window (R4, R33)

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
  static void refuseSeveralFiringsPerDefaultWindow(TaskSpec spec) {
    List<String> all = spec.crons();
    List<TaskSchedule> each = new ArrayList<>(all.size());
    ZoneId zoneId = CronSchedule.parse(spec.cron(), spec.zone()).zone();
    for (int i = 0; i < all.size(); i++) {
      CronSchedule c = i == 0 ? CronSchedule.parse(spec.cron(), spec.zone()) : CronSchedule.parse(all.get(i), zoneId);
      each.add(new TaskSchedule(c, spec.dst(), WindowSpec.DAILY));
    }
    for (int i = 0; i < each.size(); i++) {
      refuseTwiceADay(spec.id(), each.get(i), all.get(i));
    }
    for (int i = 0; i < each.size(); i++) {
      for (int j = i + 1; j < each.size(); j++) {
        refuseSharedDay(spec.id(), each.get(i), all.get(i), each.get(j), all.get(j));
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
  private static void refuseTwiceADay(String id, TaskSchedule schedule, String expression) {
    Instant t = CHECKED_FROM;
    String previous = null;
    Instant previousAt = null;
    for (int i = 0; i < 8; i++) {
      Optional<DueWindow> next = schedule.nextAfter(t);
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
  private static void refuseSharedDay(String id, TaskSchedule a, String aExpr, TaskSchedule b, String bExpr) {
    Optional<DueWindow> firstA = a.nextAfter(CHECKED_FROM);
    Optional<DueWindow> firstB = b.nextAfter(CHECKED_FROM);
    if (firstA.isEmpty() || firstB.isEmpty()) {
      return;
    }
    Instant from = (firstA.get().dueAt().isAfter(firstB.get().dueAt()) ? firstA : firstB).get().dueAt()
        .minus(Duration.ofDays(2));
    Instant until = from.plus(Duration.ofDays(366L * UNION_CYCLE_YEARS));
    // walk the sparser one's days (fewer firings in the first year)
    boolean aSparser = a.dueBetween(from, from.plus(Duration.ofDays(92)), 93).size()
        <= b.dueBetween(from, from.plus(Duration.ofDays(92)), 93).size();
    TaskSchedule walked = aSparser ? a : b;
    TaskSchedule asked = aSparser ? b : a;
    Instant t = from;
    for (int days = 0; days < UNION_MAX_DAYS; days++) {
      Optional<DueWindow> d = walked.nextAfter(t);
      if (d.isEmpty() || d.get().dueAt().isAfter(until)) {
        return;
      }
      DueWindow w = d.get();
      Optional<DueWindow> other = asked.nextAfter(w.window().start().minusNanos(1));
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
}

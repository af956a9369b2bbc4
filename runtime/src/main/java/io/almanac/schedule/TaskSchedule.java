package io.almanac.schedule;

import io.almanac.CronSchedule;
import io.almanac.DstPolicy;
import io.almanac.Firing;
import io.almanac.Window;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A task's time trigger: its cron schedule, its daylight-saving policy and its window spec, which
 * together say when the task is due and for which business window (R1-R4); or, for a one-shot task
 * ({@link #once(Instant, ZoneId, WindowSpec)}), the one instant it is due at. Immutable and
 * thread-safe.
 *
 * <p>Under {@link DstPolicy.Overlap#BOTH} a nominal time in a fall-back overlap fires twice; the
 * second firing is dropped when its window key equals the first one's (so with daily or hourly
 * windows the repeated hour fires once, and only per-firing windows see two firings).
 */
public final class TaskSchedule {

  private static final int MIN_INTERVAL_SAMPLE = 20;
  private static final Duration NEVER_AGAIN = Duration.ofDays(36_500);

  private final CronSchedule cron;
  private final Instant once;
  private final ZoneId zone;
  private final DstPolicy dst;
  private final WindowSpec windows;
  private final ZoneRules rules;
  // Richer schedules (docs/schedules.md): the crons beyond the first, the bounds and the jitter.
  private final List<CronSchedule> alsoCrons;
  private final Instant start;
  private final Instant end;
  private final String taskId;
  private final Duration jitter;

  /**
   * Combines a task's schedule parts.
   *
   * @param cron the cron schedule with its zone
   * @param dst the daylight-saving policy
   * @param windows how firings map to business windows
   * @throws NullPointerException if a part is null
   */
  public TaskSchedule(CronSchedule cron, DstPolicy dst, WindowSpec windows) {
    this.cron = Objects.requireNonNull(cron, "cron");
    this.once = null;
    this.zone = cron.zone();
    this.dst = Objects.requireNonNull(dst, "dst");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.rules = zone.getRules();
    this.alsoCrons = List.of();
    this.start = null;
    this.end = null;
    this.taskId = null;
    this.jitter = Duration.ZERO;
  }

  private TaskSchedule(Instant once, ZoneId zone, WindowSpec windows) {
    this.cron = null;
    this.once = once;
    this.zone = Objects.requireNonNull(zone, "zone");
    this.dst = DstPolicy.DEFAULT;
    this.windows = Objects.requireNonNull(windows, "windows");
    this.rules = zone.getRules();
    this.alsoCrons = List.of();
    this.start = null;
    this.end = null;
    this.taskId = null;
    this.jitter = Duration.ZERO;
  }

  private TaskSchedule(TaskSchedule base, List<CronSchedule> alsoCrons, Instant start, Instant end, String taskId,
      Duration jitter) {
    this.cron = base.cron;
    this.once = base.once;
    this.zone = base.zone;
    this.dst = base.dst;
    this.windows = base.windows;
    this.rules = base.rules;
    this.alsoCrons = List.copyOf(alsoCrons);
    this.start = start;
    this.end = end;
    this.taskId = taskId;
    this.jitter = jitter == null ? Duration.ZERO : jitter;
  }

  /**
   * This schedule as the union of its cron and {@code more} crons: due whenever any of them fires;
   * two crons firing at one instant are one firing.
   *
   * @param more further crons; each must be in this schedule's zone
   * @return the union
   * @throws IllegalArgumentException if a cron is in another zone, or this is not a cron schedule
   */
  public TaskSchedule withAlsoCrons(List<CronSchedule> more) {
    if (cron == null && !more.isEmpty()) {
      throw new IllegalArgumentException("only a cron schedule takes more crons");
    }
    for (CronSchedule c : more) {
      if (!c.zone().equals(zone)) {
        throw new IllegalArgumentException("cron " + c + " is not in the schedule's zone " + zone);
      }
    }
    return new TaskSchedule(this, more, start, end, taskId, jitter);
  }

  /**
   * This schedule within bounds: no window due before {@code start} or at or after {@code end}.
   *
   * @param start the first instant a window may be due at, or null
   * @param end the first instant past the bounds (exclusive), or null
   * @return the bounded schedule
   */
  public TaskSchedule withBounds(Instant start, Instant end) {
    return new TaskSchedule(this, alsoCrons, start, end, taskId, jitter);
  }

  /**
   * This schedule with jitter: each window fires at {@link #fireAt(DueWindow)}, its due time plus
   * {@link Jitter#offset}; its key and due time are unchanged.
   *
   * @param taskId the task's id, which the offsets derive from
   * @param jitter J; zero for none
   * @return the jittered schedule
   */
  public TaskSchedule withJitter(String taskId, Duration jitter) {
    return new TaskSchedule(this, alsoCrons, start, end, Objects.requireNonNull(taskId, "taskId"), jitter);
  }

  /**
   * The crons beyond {@link #cron()} whose union is the schedule.
   *
   * @return the further crons, empty for one
   */
  public List<CronSchedule> alsoCrons() {
    return alsoCrons;
  }

  /**
   * The start bound.
   *
   * @return the first instant a window may be due at, or null
   */
  public Instant start() {
    return start;
  }

  /**
   * The end bound.
   *
   * @return the first instant past the bounds (exclusive), or null
   */
  public Instant end() {
    return end;
  }

  /**
   * The jitter.
   *
   * @return J, zero for none
   */
  public Duration jitter() {
    return jitter;
  }

  /**
   * Whether a due time is within the bounds.
   *
   * @param dueAt a window's due time
   * @return whether it is at or after the start and before the end
   */
  public boolean inBounds(Instant dueAt) {
    return (start == null || !dueAt.isBefore(start)) && (end == null || dueAt.isBefore(end));
  }

  /**
   * A window's jitter offset.
   *
   * @param w a due window
   * @return its offset in [0, J), zero without jitter
   */
  public Duration offsetOf(DueWindow w) {
    return jitter.isZero() ? Duration.ZERO : Jitter.offset(taskId, w.key().value(), jitter);
  }

  /**
   * When a window fires: its due time plus its jitter offset. Without jitter, its due time.
   *
   * @param w a due window
   * @return the instant it fires at
   */
  public Instant fireAt(DueWindow w) {
    return jitter.isZero() ? w.dueAt() : w.dueAt().plus(offsetOf(w));
  }

  /**
   * The next window that fires strictly after {@code t}: {@link #nextAfter} without jitter; with it,
   * possibly a window due at or before {@code t} whose offset makes it fire after (a jitter is at
   * most the shortest interval, so windows fire in the order they are due).
   *
   * @param t the instant to search after (exclusive), by fire time
   * @return the window, empty if none fires again
   * @throws io.almanac.ScheduleComputationException if a firing cannot be computed
   */
  public Optional<DueWindow> nextFireAfter(Instant t) {
    if (jitter.isZero()) {
      return nextAfter(t);
    }
    for (DueWindow w : dueBetween(t.minus(jitter), t, 4)) {
      if (fireAt(w).isAfter(t)) {
        return Optional.of(w);
      }
    }
    return nextAfter(t);
  }

  /**
   * The windows that fire in {@code (fromExclusive, toInclusive]}, by fire time, in order: {@link
   * #dueBetween} without jitter.
   *
   * @param fromExclusive the start (exclusive)
   * @param toInclusive the end (inclusive)
   * @param max the most windows to return
   * @return up to {@code max} windows
   * @throws io.almanac.ScheduleComputationException if a firing cannot be computed
   */
  public List<DueWindow> firingBetween(Instant fromExclusive, Instant toInclusive, int max) {
    if (jitter.isZero()) {
      return dueBetween(fromExclusive, toInclusive, max);
    }
    List<DueWindow> out = new ArrayList<>();
    int ask = max >= Integer.MAX_VALUE - 4 ? Integer.MAX_VALUE : max + 4;
    for (DueWindow w : dueBetween(fromExclusive.minus(jitter), toInclusive, ask)) {
      Instant at = fireAt(w);
      if (at.isAfter(fromExclusive) && !at.isAfter(toInclusive) && out.size() < max) {
        out.add(w);
      }
    }
    return out;
  }

  /**
   * A one-shot schedule: due once, at {@code at}, and never again.
   *
   * @param at the instant
   * @param zone the task's zone (for the window's nominal local time and for display)
   * @param windows how the firing maps to its window ({@code per-firing} for a one-shot task)
   * @return the schedule
   * @throws NullPointerException if a part is null
   */
  public static TaskSchedule once(Instant at, ZoneId zone, WindowSpec windows) {
    return new TaskSchedule(Objects.requireNonNull(at, "at"), zone, windows);
  }

  /**
   * The schedule of a task triggered by events only: it is never due by time; its windows are
   * computed in {@code zone} from the instants events map to ({@link #windowAt}).
   *
   * @param zone the task's zone
   * @param windows how an instant maps to its window
   * @return the schedule
   * @throws NullPointerException if a part is null
   */
  public static TaskSchedule eventsOnly(ZoneId zone, WindowSpec windows) {
    return new TaskSchedule(null, zone, windows);
  }

  /**
   * The cron schedule.
   *
   * @return the cron schedule with its zone, or null for a one-shot schedule
   */
  public CronSchedule cron() {
    return cron;
  }

  /**
   * The instant a one-shot schedule is due at.
   *
   * @return the instant, or null for a cron schedule
   */
  public Instant once() {
    return once;
  }

  /**
   * The daylight-saving policy.
   *
   * @return the policy
   */
  public DstPolicy dst() {
    return dst;
  }

  /**
   * The window spec.
   *
   * @return how firings map to windows
   */
  public WindowSpec windows() {
    return windows;
  }

  /**
   * The zone of the task (the cron's zone), in which windows are computed (R26).
   *
   * @return the zone
   */
  public ZoneId zone() {
    return zone;
  }

  /**
   * The next due window strictly after {@code t}.
   *
   * @param t the instant to search after (exclusive)
   * @return the next firing with its window; empty if the schedule never fires again
   * @throws io.almanac.ScheduleComputationException if the cron's next firing cannot be computed;
   *     it concerns this task alone (see {@link CronSchedule#nextAfter})
   */
  public Optional<DueWindow> nextAfter(Instant t) {
    Objects.requireNonNull(t, "t");
    if (once != null) {
      return once.isAfter(t) ? Optional.of(onceWindow()) : Optional.empty();
    }
    if (cron == null) {
      return Optional.empty(); // events only: never due by time
    }
    if (start != null && t.isBefore(start)) {
      t = start.minusNanos(1);
    }
    if (end != null && !t.isBefore(end)) {
      return Optional.empty(); // past the end: the trigger stops asking
    }
    Optional<DueWindow> next = nextOf(cron, t);
    for (CronSchedule more : alsoCrons) {
      Optional<DueWindow> other = nextOf(more, t);
      if (other.isPresent() && (next.isEmpty() || other.get().dueAt().isBefore(next.get().dueAt()))) {
        next = other;
      }
    }
    if (next.isPresent() && end != null && !next.get().dueAt().isBefore(end)) {
      return Optional.empty();
    }
    return next;
  }

  /** One cron's next due window strictly after {@code t}. */
  private Optional<DueWindow> nextOf(CronSchedule cron, Instant t) {
    Instant cursor = t;
    while (true) {
      Optional<Firing> next = cron.nextAfter(cursor, dst);
      if (next.isEmpty()) {
        return Optional.empty();
      }
      Firing firing = next.get();
      Window window = windowOf(firing.nominal(), firing.at(), zone);
      if (dst.overlap() == DstPolicy.Overlap.BOTH) {
        ZoneOffsetTransition overlap = rules.getTransition(firing.nominal());
        if (overlap != null && overlap.isOverlap()) {
          Instant firstPass = firing.nominal().toInstant(overlap.getOffsetBefore());
          if (!firing.at().equals(firstPass)
              && windowOf(firing.nominal(), firstPass, zone).key().equals(window.key())) {
            cursor = afterDropped(firing, overlap);
            continue;
          }
        }
      }
      return Optional.of(new DueWindow(window, firing));
    }
  }

  /** The one due window of a one-shot schedule. */
  private DueWindow onceWindow() {
    Firing firing = new Firing(java.time.LocalDateTime.ofInstant(once, zone), once);
    return new DueWindow(windowOf(firing.nominal(), once, zone), firing);
  }

  /**
   * The window an operator's run now runs (R31): the window containing {@code now} by the window
   * spec; for a one-shot schedule its one window, whenever it is asked.
   *
   * @param now the time
   * @return the window
   * @throws io.almanac.ScheduleComputationException if the window spec throws
   */
  public Window windowAt(Instant now) {
    if (once != null) {
      return onceWindow().window();
    }
    return windowOf(java.time.LocalDateTime.ofInstant(now, zone), now, zone);
  }

  /**
   * The window of a firing. A window spec is user code: what it throws concerns this task alone.
   *
   * @param nominal the firing's local date-time
   * @param at the firing's instant
   * @param zone the cron's zone
   * @return the window
   * @throws io.almanac.ScheduleComputationException if the window spec throws
   */
  public Window windowOf(java.time.LocalDateTime nominal, Instant at, ZoneId zone) {
    try {
      return Objects.requireNonNull(windows.windowOf(nominal, at, zone), "windowOf returned null");
    } catch (RuntimeException e) {
      throw new io.almanac.ScheduleComputationException(windows.name(), at, e);
    }
  }

  /**
   * Where to continue after dropping a second-pass firing. The built-in daily and hourly specs key
   * windows by the nominal time alone, so every second-pass firing of that overlap would be dropped
   * too: skip to the overlap's end instead of looking at them one by one (an every-second cron
   * would otherwise take 3,600 steps).
   */
  private Instant afterDropped(Firing dropped, ZoneOffsetTransition overlap) {
    if (windows == WindowSpec.DAILY || windows == WindowSpec.HOURLY) {
      Instant secondPassEnd = overlap.getInstant().plus(overlap.getDuration().abs()).minusNanos(1);
      if (secondPassEnd.isAfter(dropped.at())) {
        return secondPassEnd;
      }
    }
    return dropped.at();
  }

  /**
   * The due windows in {@code (fromExclusive, toInclusive]}, in order.
   *
   * @param fromExclusive the start (exclusive)
   * @param toInclusive the end (inclusive)
   * @param max the most windows to return
   * @return up to {@code max} due windows, strictly increasing in time
   * @throws IllegalArgumentException if {@code max} is negative
   * @throws io.almanac.ScheduleComputationException if a firing cannot be computed
   */
  public List<DueWindow> dueBetween(Instant fromExclusive, Instant toInclusive, int max) {
    Objects.requireNonNull(toInclusive, "toInclusive");
    if (max < 0) {
      throw new IllegalArgumentException("max must not be negative: " + max);
    }
    List<DueWindow> due = new ArrayList<>();
    Instant cursor = fromExclusive;
    while (due.size() < max) {
      Optional<DueWindow> next = nextAfter(cursor);
      if (next.isEmpty() || next.get().dueAt().isAfter(toInclusive)) {
        break;
      }
      due.add(next.get());
      cursor = next.get().dueAt();
    }
    return due;
  }

  /**
   * The shortest time between consecutive due windows among the next 20 or so after {@code from},
   * to compare with the task's P99 duration (R8).
   *
   * @param from where to start looking
   * @return the shortest interval, always positive; 36,500 days if fewer than two firings remain
   * @throws io.almanac.ScheduleComputationException if a firing cannot be computed
   */
  public Duration minInterval(Instant from) {
    List<DueWindow> due = dueBetween(from, Instant.MAX, MIN_INTERVAL_SAMPLE + 1);
    Duration shortest = NEVER_AGAIN;
    for (int i = 1; i < due.size(); i++) {
      Duration gap = Duration.between(due.get(i - 1).dueAt(), due.get(i).dueAt());
      if (gap.compareTo(shortest) < 0) {
        shortest = gap;
      }
    }
    return shortest;
  }

  /**
   * Two task schedules are equal when their cron, policy and window spec are.
   *
   * @param other the object to compare with
   * @return whether {@code other} is the same schedule
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof TaskSchedule that
        && Objects.equals(cron, that.cron)
        && alsoCrons.equals(that.alsoCrons)
        && Objects.equals(start, that.start)
        && Objects.equals(end, that.end)
        && Objects.equals(taskId, that.taskId)
        && jitter.equals(that.jitter)
        && Objects.equals(once, that.once)
        && zone.equals(that.zone)
        && dst.equals(that.dst)
        && windows.equals(that.windows);
  }

  /**
   * A hash consistent with {@link #equals(Object)}.
   *
   * @return the hash
   */
  @Override
  public int hashCode() {
    return Objects.hash(cron, once, zone, dst, windows, alsoCrons, start, end, taskId, jitter);
  }

  /**
   * A readable form.
   *
   * @return e.g. {@code TaskSchedule[0 0 8 * * ? Asia/Shanghai, DstPolicy[gap=SHIFT, ...], daily]}, or
   *     {@code TaskSchedule[once 2026-12-01T00:00:00Z UTC, per-firing]}
   */
  @Override
  public String toString() {
    if (once != null) {
      return "TaskSchedule[once " + once + " " + zone + ", " + windows.name() + "]";
    }
    if (cron == null) {
      return "TaskSchedule[events only " + zone + ", " + windows.name() + "]";
    }
    String more = (alsoCrons.isEmpty() ? "" : ", also " + alsoCrons) + (start == null ? "" : ", from " + start)
        + (end == null ? "" : ", before " + end) + (jitter.isZero() ? "" : ", jitter " + jitter);
    return "TaskSchedule[" + cron + ", " + dst + ", " + windows.name() + more + "]";
  }
}

package io.almanac.schedule;

import io.almanac.CronSchedule;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Builds a task's schedule from its spec. */
public final class Schedules {
  private Schedules() {}

  /** How many due windows the jitter check samples for the shortest interval. */
  private static final int JITTER_SAMPLE = 400;

  /**
   * The task's schedule: its cron (or the union of its crons) in its zone, with its DST policy and
   * window spec, its bounds and its jitter; or, for a one-shot task, its one instant with its window
   * spec. The parsed cron is cached per process, so this is cheap.
   *
   * @param spec the task's spec
   * @return its schedule
   * @throws io.almanac.InvalidSpecException if the cron, the zone or the window name is invalid;
   *     also for a spec stored by an earlier version whose cron the current rules refuse (e.g. one
   *     that never fires, or whose firings cannot be computed), so a caller rebuilding schedules
   *     of stored tasks must catch it per task
   */
  public static TaskSchedule of(TaskSpec spec) {
    TaskSchedule schedule = unbounded(spec);
    if (spec.from() != null || spec.until() != null) {
      schedule = schedule.withBounds(Bounds.start(spec.from(), schedule.zone()), Bounds.end(spec.until(), schedule.zone()));
    }
    if (!spec.jitter().isZero()) {
      schedule = schedule.withJitter(spec.id(), spec.jitter());
    }
    return schedule;
  }

  /**
   * The task's schedule without its bounds and jitter: the union of its crons.
   *
   * @param spec the task's spec
   * @return the schedule
   * @throws io.almanac.InvalidSpecException as {@link #of}
   */
  public static TaskSchedule unbounded(TaskSpec spec) {
    if (!spec.timeTriggered()) {
      return TaskSchedule.eventsOnly(spec.zoneId(), WindowSpec.byName(spec.window()));
    }
    if (spec.oneShot()) {
      return TaskSchedule.once(spec.once(), spec.zoneId(), WindowSpec.byName(spec.window()));
    }
    TaskSchedule schedule = new TaskSchedule(CronSchedule.parse(spec.cron(), spec.zone()), spec.dst(),
        WindowSpec.byName(spec.window()));
    if (spec.alsoCrons().isEmpty()) {
      return schedule;
    }
    List<CronSchedule> more = new ArrayList<>();
    for (String c : spec.alsoCrons()) {
      more.add(CronSchedule.parse(c, schedule.zone()));
    }
    return schedule.withAlsoCrons(more);
  }

  /**
   * The shortest interval between consecutive due windows of the union of a task's crons, sampled
   * over the first {@value #JITTER_SAMPLE} windows after a fixed instant (2027-01-04): the largest
   * jitter the task accepts.
   *
   * @param spec the task's spec, with a cron
   * @return the shortest interval; 36,500 days if fewer than two windows
   */
  public static Duration unboundedMinInterval(TaskSpec spec) {
    List<DueWindow> due = unbounded(spec).dueBetween(Instant.parse("2027-01-04T00:00:00Z"), Instant.MAX, JITTER_SAMPLE);
    Duration shortest = Duration.ofDays(36_500);
    for (int i = 1; i < due.size(); i++) {
      Duration gap = Duration.between(due.get(i - 1).dueAt(), due.get(i).dueAt());
      if (gap.compareTo(shortest) < 0) {
        shortest = gap;
      }
    }
    return shortest;
  }
}

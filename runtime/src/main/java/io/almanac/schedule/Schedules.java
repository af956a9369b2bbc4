package io.almanac.schedule;

import io.almanac.CronSchedule;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;

/** Builds a task's schedule from its spec. */
public final class Schedules {
  private Schedules() {}

  /**
   * The task's schedule: its cron in its zone, with its DST policy and window spec; or, for a
   * one-shot task, its one instant with its window spec. The parsed cron is cached per process, so
   * this is cheap.
   *
   * @param spec the task's spec
   * @return its schedule
   * @throws io.almanac.InvalidSpecException if the cron, the zone or the window name is invalid;
   *     also for a spec stored by an earlier version whose cron the current rules refuse (e.g. one
   *     that never fires, or whose firings cannot be computed), so a caller rebuilding schedules
   *     of stored tasks must catch it per task
   */
  public static TaskSchedule of(TaskSpec spec) {
    if (!spec.timeTriggered()) {
      return TaskSchedule.eventsOnly(spec.zoneId(), WindowSpec.byName(spec.window()));
    }
    if (spec.oneShot()) {
      return TaskSchedule.once(spec.once(), spec.zoneId(), WindowSpec.byName(spec.window()));
    }
    return new TaskSchedule(CronSchedule.parse(spec.cron(), spec.zone()), spec.dst(), WindowSpec.byName(spec.window()));
  }
}

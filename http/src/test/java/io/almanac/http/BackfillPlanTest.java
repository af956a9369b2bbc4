package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The backfill dry run and its range checks, without actors. */
class BackfillPlanTest {

  static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  static TaskSpec daily() {
    return TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j").build();
  }

  static TaskView view(TaskSpec spec, Instant archivedThrough) {
    return new TaskView(spec, false, 0, archivedThrough == null ? 0 : 7, 0, 0, null, null, null, false, null, null,
        archivedThrough);
  }

  static WindowView window(String key, Instant start, InstanceStatus status) {
    return new WindowView("digest", WindowKey.of(key), start, start.plusSeconds(86_400), start, status, RunKind.FIRST, 1, 0,
        0, null, null, null, null, null, Map.of(), start, start, null, null, null);
  }

  @Test
  @DisplayName("(from, to]: from excluded, to included; one entry per window; absent windows run, reopenable ones "
      + "run again, others are skipped WINDOW_EXISTS with their status, worded as the task words it")
  void plan() {
    TaskSchedule schedule = Schedules.of(daily());
    // 08:00 Shanghai = 00:00Z: from exactly on a firing (excluded), to exactly on one (included)
    List<DueWindow> due = BackfillPlan.windows(schedule, Instant.parse("2026-11-25T00:00:00Z"),
        Instant.parse("2026-11-29T00:00:00Z"), NOW, 1000);
    assertEquals(List.of("2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"),
        due.stream().map(d -> d.key().value()).toList());
    List<WindowView> current = List.of(
        window("2026-11-26", Instant.parse("2026-11-25T16:00:00Z"), InstanceStatus.SUCCEEDED),
        window("2026-11-27", Instant.parse("2026-11-26T16:00:00Z"), InstanceStatus.FINAL_FAILED),
        window("2026-11-28", Instant.parse("2026-11-27T16:00:00Z"), InstanceStatus.RUNNING));
    List<BackfillPlan.Planned> plan = BackfillPlan.plan(view(daily(), null), current, due);
    assertEquals(List.of(
        "2026-11-26 SKIPPED WINDOW_EXISTS: window is SUCCEEDED",
        "2026-11-27 SCHEDULED BACKFILL (was FINAL_FAILED)",
        "2026-11-28 SKIPPED WINDOW_EXISTS: window is RUNNING",
        "2026-11-29 SCHEDULED BACKFILL"),
        plan.stream().map(p -> p.window() + " " + p.decision() + " " + p.reason()).toList());
  }

  @Test
  @DisplayName("several firings in one window count once (an hourly cron with daily windows): 48 firings are 3 windows")
  void oneEntryPerWindow() {
    TaskSpec spec = TaskSpec.builder("digest").cron("0 0 * * * ? UTC").window(WindowSpec.DAILY).job("j").build();
    List<DueWindow> due = BackfillPlan.windows(Schedules.of(spec), Instant.parse("2026-11-27T00:00:00Z"),
        Instant.parse("2026-11-29T00:00:00Z"), NOW, 3);
    assertEquals(List.of("2026-11-27", "2026-11-28", "2026-11-29"), due.stream().map(d -> d.key().value()).toList());
    Problem p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(Schedules.of(spec),
        Instant.parse("2026-11-27T00:00:00Z"), Instant.parse("2026-11-29T00:00:00Z"), NOW, 2)).problem();
    assertTrue(p.detail().contains("cover 3 windows"), p.detail());
  }

  @Test
  @DisplayName("a window not in the hot state that starts at or before the task's archivedThrough is ARCHIVED, as the "
      + "task decides it; a later one runs")
  void archived() {
    TaskSchedule schedule = Schedules.of(daily());
    List<DueWindow> due = BackfillPlan.windows(schedule, Instant.parse("2026-11-24T00:00:00Z"),
        Instant.parse("2026-11-27T00:00:00Z"), NOW, 1000);
    List<WindowView> current = List.of(window("2026-11-27", Instant.parse("2026-11-26T16:00:00Z"), InstanceStatus.SUCCEEDED));
    // 2026-11-25 starts 2026-11-24T16:00Z: archived through it; 2026-11-26 is not archived and not hot
    List<BackfillPlan.Planned> plan = BackfillPlan.plan(view(daily(), Instant.parse("2026-11-24T16:00:00Z")), current, due);
    assertEquals(List.of("2026-11-25 ARCHIVED", "2026-11-26 SCHEDULED", "2026-11-27 SKIPPED"),
        plan.stream().map(p -> p.window() + " " + p.decision()).toList());
    assertEquals(Decision.SCHEDULED, BackfillPlan.plan(view(daily(), null), current, due).get(0).decision(),
        "nothing archived: an absent window runs");
  }

  @Test
  @DisplayName("refused with 400: from not before to (naming from), to in the future (naming to), more windows than "
      + "the cap (naming to and the count), counted up to a ceiling")
  void refusals() {
    TaskSchedule schedule = Schedules.of(daily());
    Problem p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(schedule,
        Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-11-28T00:00:00Z"), NOW, 10)).problem();
    assertEquals(400, p.status());
    assertEquals("from", p.field());
    assertEquals("2026-11-29T00:00:00Z", p.value());
    p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(schedule,
        Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-11-29T00:00:00Z"), NOW, 10)).problem();
    assertEquals("from", p.field());
    p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(schedule,
        Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-12-29T00:00:00Z"), NOW, 10)).problem();
    assertEquals("to", p.field());
    assertTrue(p.detail().contains("in the future"), p.detail());
    p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(schedule,
        Instant.parse("2026-10-31T00:00:00Z"), Instant.parse("2026-11-30T00:00:00Z"), NOW, 10)).problem();
    assertEquals("to", p.field());
    assertEquals("2026-11-30T00:00:00Z", p.value());
    assertTrue(p.detail().contains("cover 30 windows, more than almanac.http.max-backfill-windows = 10"), p.detail());
    TaskSpec everySecond = TaskSpec.builder("s").cron("* * * * * ? UTC").window(WindowSpec.PER_FIRING).job("j").build();
    p = assertThrows(Problem.Raised.class, () -> BackfillPlan.windows(Schedules.of(everySecond),
        Instant.parse("2026-11-01T00:00:00Z"), NOW, NOW, 1000)).problem();
    assertTrue(p.detail().contains("more than " + BackfillPlan.COUNT_CEILING + " windows"), p.detail());
  }
}

package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A backfill request's range checks, without actors. */
class BackfillPlanTest {

  static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  static TaskSpec daily() {
    return TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j").build();
  }

  @Test
  @DisplayName("(from, to]: from excluded, to included, one entry per window (what each window's backfill decides is "
      + "the task's own decision, dry run included: OperatorRunTest, TaskEntityTest)")
  void range() {
    TaskSchedule schedule = Schedules.of(daily());
    // 08:00 Shanghai = 00:00Z: from exactly on a firing (excluded), to exactly on one (included)
    List<DueWindow> due = BackfillPlan.windows(schedule, Instant.parse("2026-11-25T00:00:00Z"),
        Instant.parse("2026-11-29T00:00:00Z"), NOW, 1000);
    assertEquals(List.of("2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"),
        due.stream().map(d -> d.key().value()).toList());
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

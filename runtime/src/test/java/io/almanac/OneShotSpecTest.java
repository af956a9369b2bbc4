package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** A one-shot task ("run once at instant T") as a spec and as a schedule: plain values, no actors. */
class OneShotSpecTest {

  private static final Instant T = Instant.parse("2026-12-01T08:00:00Z");

  private static TaskSpec once() {
    return TaskSpec.builder("launch").once(T).job("j").build();
  }

  @Test
  @DisplayName("R4: a one-shot spec has no cron, zone UTC, and its instant as its one window (per-firing)")
  void builderMakesAOneShotSpec() {
    TaskSpec spec = once();
    assertTrue(spec.oneShot());
    assertEquals(T, spec.once());
    assertNull(spec.cron());
    assertEquals("UTC", spec.zone());
    assertEquals(WindowSpec.PER_FIRING.name(), spec.window());
    assertEquals(java.time.ZoneOffset.UTC.normalized(), spec.zoneId().normalized());
    assertEquals(spec, TaskSpec.builder("launch").once(T).window(WindowSpec.PER_FIRING).job("j").build(),
        "per-firing chosen explicitly is the same spec");
  }

  @Test
  @DisplayName("R1/R4: a one-shot schedule is due once, at its instant, for the window keyed by that instant, and never again")
  void scheduleIsDueOnce() {
    TaskSchedule schedule = Schedules.of(once());
    DueWindow due = schedule.nextAfter(T.minus(Duration.ofDays(400))).orElseThrow();
    assertEquals(T, due.dueAt());
    assertEquals(WindowKey.of("2026-12-01T08:00:00Z"), due.key());
    assertEquals(T, due.window().start());
    assertEquals(T, due.window().end());
    assertEquals(due, schedule.nextAfter(T.minusNanos(1)).orElseThrow());
    assertTrue(schedule.nextAfter(T).isEmpty(), "not due again at its instant");
    assertTrue(schedule.nextAfter(T.plus(Duration.ofDays(1))).isEmpty(), "nor ever after");
    assertEquals(List.of(due), schedule.dueBetween(Instant.EPOCH, Instant.parse("2099-12-31T00:00:00Z"), 100));
    assertEquals(List.of(), schedule.dueBetween(T, T.plus(Duration.ofDays(365)), 100));
    assertEquals(Duration.ofDays(36_500), schedule.minInterval(Instant.EPOCH), "fewer than two firings: no interval");
    assertEquals(due.window(), schedule.windowAt(T.plus(Duration.ofDays(3))), "run now runs its one window");
    assertEquals(java.time.ZoneId.of("UTC"), schedule.zone());
    assertNull(schedule.cron());
    assertEquals(T, schedule.once());
  }

  @Test
  @DisplayName("R33: a spec with both a cron and a one-shot instant is refused naming once")
  void cronAndOnceTogetherAreRefused() {
    refused("once", T.toString(), () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").once(T).build());
    refused("once", T.toString(), () -> TaskSpec.builder("t").cron("0 0 8 * * ?", "UTC").job(null).once(T).buildUnvalidated().validate());
  }

  @Test
  @DisplayName("R33: a one-shot instant before 1970 or from 2100 on (the years a cron can name) is refused naming once")
  void instantOutOfRangeIsRefused() {
    Instant before = TaskSpec.EARLIEST_ONCE.minusNanos(1);
    refused("once", before.toString(), () -> TaskSpec.builder("t").once(before).build());
    refused("once", TaskSpec.LATEST_ONCE.toString(), () -> TaskSpec.builder("t").once(TaskSpec.LATEST_ONCE).build());
    assertEquals(TaskSpec.EARLIEST_ONCE, TaskSpec.builder("t").once(TaskSpec.EARLIEST_ONCE).build().once());
    Instant last = TaskSpec.LATEST_ONCE.minusNanos(1);
    assertEquals(last, TaskSpec.builder("t").once(last).build().once());
  }

  @Test
  @DisplayName("R4/R33: a one-shot task with a window other than per-firing is refused naming window")
  void otherWindowIsRefused() {
    refused("window", "daily", () -> TaskSpec.builder("t").once(T).window(WindowSpec.DAILY).build());
  }

  @Test
  @DisplayName("R33: a one-shot spec with an unknown zone is refused naming zone")
  void unknownZoneIsRefused() {
    refused("zone", "Mars/Olympus", () -> TaskSpec.builder("t").cron(null, "Mars/Olympus").job(null).once(T).buildUnvalidated().validate());
  }

  @Test
  @DisplayName("R33: a spec with neither a cron nor a one-shot instant is refused naming cron")
  void neitherIsRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("t").build());
    assertEquals("cron", e.field());
    assertTrue(e.getMessage().contains("once(...)"), e.getMessage());
  }

  @Test
  @DisplayName("the spec before one-shot tasks (11 components) is a cron spec with no instant")
  void cronSpecsAreUnchanged() {
    TaskSpec old = TaskSpec.builder("t").cron("0 0 8 * * ?", "Asia/Shanghai").job("j").buildUnvalidated();
    assertNull(old.once());
    assertFalse(old.oneShot());
    assertEquals("daily", old.window());
    assertEquals(old, TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j").build());
  }

  private static void refused(String field, String value, Executable code) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, code);
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(field + " '" + value + "' is invalid"), e.getMessage());
  }
}

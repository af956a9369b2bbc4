package io.almanac.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.CronSchedule;
import io.almanac.DstPolicy;
import io.almanac.DstPolicy.Gap;
import io.almanac.DstPolicy.Overlap;
import io.almanac.Window;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The daylight-saving table (R3) for America/New_York: 2026-03-08 springs forward (02:00 EST ->
 * 03:00 EDT), 2026-11-01 falls back (02:00 EDT -> 01:00 EST). EST = UTC-5, EDT = UTC-4. The same
 * rows are in DST-TABLE.md.
 */
class DstTableTest {

  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final LocalDate SPRING = LocalDate.parse("2026-03-08");
  private static final LocalDate FALL = LocalDate.parse("2026-11-01");
  private static final DstPolicy SKIP = new DstPolicy(Gap.SKIP, Overlap.FIRST);
  private static final DstPolicy LAST = new DstPolicy(Gap.SHIFT, Overlap.LAST);
  private static final DstPolicy BOTH = new DstPolicy(Gap.SHIFT, Overlap.BOTH);

  private static TaskSchedule schedule(String cron, DstPolicy policy, WindowSpec windows) {
    return new TaskSchedule(CronSchedule.parse(cron, NEW_YORK), policy, windows);
  }

  /** Everything due during one local day: (start of day, start of next day]. */
  private static List<DueWindow> day(TaskSchedule schedule, LocalDate date) {
    Instant start = date.atStartOfDay(NEW_YORK).toInstant();
    Instant end = date.plusDays(1).atStartOfDay(NEW_YORK).toInstant();
    return schedule.dueBetween(start.minusNanos(1), end.minusNanos(1), 100_000);
  }

  private static Instant utc(String iso) {
    return Instant.parse(iso);
  }

  private static List<String> atAndKey(List<DueWindow> due) {
    return due.stream().map(d -> d.dueAt() + " " + d.key()).toList();
  }

  private static void assertStrictlyIncreasing(List<DueWindow> due) {
    for (int i = 1; i < due.size(); i++) {
      assertTrue(due.get(i - 1).dueAt().isBefore(due.get(i).dueAt()), () -> atAndKey(due).toString());
    }
  }

  static Stream<Arguments> singleFiringRows() {
    return Stream.of(
        Arguments.of("1", "0 30 2 * * ?", DstPolicy.DEFAULT, SPRING, "2026-03-08T07:30:00Z", "2026-03-08T02:30"),
        Arguments.of("5", "0 30 1 * * ?", DstPolicy.DEFAULT, FALL, "2026-11-01T05:30:00Z", "2026-11-01T01:30"),
        Arguments.of("6", "0 30 1 * * ?", LAST, FALL, "2026-11-01T06:30:00Z", "2026-11-01T01:30"),
        Arguments.of("6b", "0 30 1 * * ?", BOTH, FALL, "2026-11-01T05:30:00Z", "2026-11-01T01:30"),
        Arguments.of("11", "0 30 2 * * ?", DstPolicy.DEFAULT, FALL, "2026-11-01T07:30:00Z", "2026-11-01T02:30"));
  }

  @ParameterizedTest(name = "R3 row {0}: {1} daily {2} on {3} fires once at {4}")
  @MethodSource("singleFiringRows")
  void dailySingleFiring(
      String row, String cron, DstPolicy policy, LocalDate date, String expectedUtc, String nominal) {
    List<DueWindow> due = day(schedule(cron, policy, WindowSpec.DAILY), date);
    assertEquals(1, due.size(), () -> atAndKey(due).toString());
    assertEquals(utc(expectedUtc), due.get(0).dueAt());
    assertEquals(date.toString(), due.get(0).key().value());
    assertEquals(LocalDateTime.parse(nominal), due.get(0).firing().nominal());
  }

  @Test
  @DisplayName("R3 row 2: 0 30 2 * * ? daily with Gap.SKIP does not fire on 2026-03-08")
  void row2GapSkip() {
    TaskSchedule schedule = schedule("0 30 2 * * ?", SKIP, WindowSpec.DAILY);
    assertEquals(List.of(), day(schedule, SPRING));
    DueWindow next = schedule.nextAfter(utc("2026-03-08T05:00:00Z")).orElseThrow();
    assertEquals(utc("2026-03-09T06:30:00Z"), next.dueAt());
    assertEquals("2026-03-09", next.key().value());
  }

  @Test
  @DisplayName("R3 row 3: 0 0 * * * ? hourly on 2026-03-08: 23 firings, no 02 window, 01 at 06:00Z, 03 at 07:00Z")
  void row3HourlySpringForward() {
    List<DueWindow> due = day(schedule("0 0 * * * ?", DstPolicy.DEFAULT, WindowSpec.HOURLY), SPRING);
    assertEquals(23, due.size(), () -> atAndKey(due).toString());
    assertStrictlyIncreasing(due);
    assertTrue(due.stream().noneMatch(d -> d.key().value().equals("2026-03-08-02")));
    assertTrue(atAndKey(due).contains("2026-03-08T06:00:00Z 2026-03-08-01"));
    assertTrue(atAndKey(due).contains("2026-03-08T07:00:00Z 2026-03-08-03"));
    assertEquals(23, due.stream().map(DueWindow::key).distinct().count());
  }

  @Test
  @DisplayName("R3 row 4: 0 */30 * * * ? per-firing on 2026-03-08: gap times merge into 03:00/03:30, 46 firings")
  void row4HalfHourlySpringForward() {
    List<DueWindow> due = day(schedule("0 */30 * * * ?", DstPolicy.DEFAULT, WindowSpec.PER_FIRING), SPRING);
    assertEquals(46, due.size());
    assertStrictlyIncreasing(due);
    List<Instant> around =
        due.stream().map(DueWindow::dueAt)
            .filter(t -> !t.isBefore(utc("2026-03-08T06:00:00Z")) && !t.isAfter(utc("2026-03-08T08:00:00Z")))
            .toList();
    assertEquals(
        List.of(utc("2026-03-08T06:00:00Z"), utc("2026-03-08T06:30:00Z"), utc("2026-03-08T07:00:00Z"),
            utc("2026-03-08T07:30:00Z"), utc("2026-03-08T08:00:00Z")),
        around);
    // The merged firings keep the real nominal time (03:00, 03:30), not the gap's 02:00 / 02:30.
    DueWindow threeOClock = due.stream().filter(d -> d.dueAt().equals(utc("2026-03-08T07:00:00Z"))).findFirst().orElseThrow();
    assertEquals(LocalDateTime.parse("2026-03-08T03:00"), threeOClock.firing().nominal());
    assertEquals("2026-03-08T07:00:00Z", threeOClock.key().value());
  }

  @Test
  @DisplayName("R3 row 7: 0 0 * * * ? hourly on 2026-11-01: 24 windows over 25 hours, nothing at 06:00Z (FIRST and BOTH)")
  void row7HourlyFallBack() {
    for (DstPolicy policy : List.of(DstPolicy.DEFAULT, BOTH)) {
      List<DueWindow> due = day(schedule("0 0 * * * ?", policy, WindowSpec.HOURLY), FALL);
      assertEquals(24, due.size(), () -> policy + " " + atAndKey(due));
      assertStrictlyIncreasing(due);
      assertEquals(24, due.stream().map(DueWindow::key).distinct().count());
      assertTrue(atAndKey(due).contains("2026-11-01T05:00:00Z 2026-11-01-01"));
      assertTrue(atAndKey(due).contains("2026-11-01T07:00:00Z 2026-11-01-02"));
      assertTrue(due.stream().noneMatch(d -> d.dueAt().equals(utc("2026-11-01T06:00:00Z"))));
      Window repeated = due.stream().filter(d -> d.key().value().equals("2026-11-01-01")).findFirst().orElseThrow().window();
      assertEquals(utc("2026-11-01T05:00:00Z"), repeated.start());
      assertEquals(utc("2026-11-01T07:00:00Z"), repeated.end());
    }
  }

  @Test
  @DisplayName("R3 hourly with LAST on 2026-11-01: the 01 window fires at its second pass, 06:00Z")
  void hourlyFallBackLast() {
    List<DueWindow> due = day(schedule("0 0 * * * ?", LAST, WindowSpec.HOURLY), FALL);
    assertEquals(24, due.size());
    assertTrue(atAndKey(due).contains("2026-11-01T06:00:00Z 2026-11-01-01"));
    assertTrue(due.stream().noneMatch(d -> d.dueAt().equals(utc("2026-11-01T05:00:00Z"))));
  }

  @Test
  @DisplayName("R3 row 8: 0 */30 * * * ? per-firing with Overlap.BOTH on 2026-11-01: both passes fire, 50 firings")
  void row8HalfHourlyBoth() {
    List<DueWindow> due = day(schedule("0 */30 * * * ?", BOTH, WindowSpec.PER_FIRING), FALL);
    assertEquals(50, due.size());
    assertStrictlyIncreasing(due);
    List<Instant> instants = due.stream().map(DueWindow::dueAt).toList();
    for (String t : List.of("05:00", "05:30", "06:00", "06:30", "07:00")) {
      assertTrue(instants.contains(utc("2026-11-01T" + t + ":00Z")), t);
    }
    assertEquals(50, due.stream().map(DueWindow::key).distinct().count());
  }

  @Test
  @DisplayName("R3 row 9: 0 */30 * * * ? per-firing DEFAULT on 2026-11-01: 05:00Z, 05:30Z, then 07:00Z")
  void row9HalfHourlyFirst() {
    List<DueWindow> due = day(schedule("0 */30 * * * ?", DstPolicy.DEFAULT, WindowSpec.PER_FIRING), FALL);
    assertEquals(48, due.size());
    List<Instant> instants = due.stream().map(DueWindow::dueAt).toList();
    int i = instants.indexOf(utc("2026-11-01T05:00:00Z"));
    assertEquals(
        List.of(utc("2026-11-01T05:00:00Z"), utc("2026-11-01T05:30:00Z"), utc("2026-11-01T07:00:00Z")),
        instants.subList(i, i + 3));
  }

  @Test
  @DisplayName("R1 R3 row 10: restart inside the repeated hour (06:10Z = 01:10 EST) does not fire 01:30 again")
  void row10RestartInsideRepeatedHour() {
    TaskSchedule schedule = schedule("0 30 1 * * ?", DstPolicy.DEFAULT, WindowSpec.DAILY);
    DueWindow next = schedule.nextAfter(utc("2026-11-01T06:10:00Z")).orElseThrow();
    assertEquals(utc("2026-11-02T06:30:00Z"), next.dueAt());
    assertEquals("2026-11-02", next.key().value());
    // ... while restarting at 01:10 EDT (05:10Z, first pass) still fires the day's 01:30 EDT.
    assertEquals(utc("2026-11-01T05:30:00Z"), schedule.nextAfter(utc("2026-11-01T05:10:00Z")).orElseThrow().dueAt());
  }

  @Test
  @DisplayName("R3 R8 row 12: 0/15 * * * * ? per-firing around both transitions: 15 s apart, nothing in the repeated hour")
  void row12SecondsAcrossTransitions() {
    TaskSchedule schedule = schedule("0/15 * * * * ?", DstPolicy.DEFAULT, WindowSpec.PER_FIRING);

    List<DueWindow> spring = day(schedule, SPRING);
    assertEquals(23 * 240, spring.size());
    assertStrictlyIncreasing(spring);
    for (int i = 1; i < spring.size(); i++) {
      assertEquals(Duration.ofSeconds(15), Duration.between(spring.get(i - 1).dueAt(), spring.get(i).dueAt()));
    }

    List<DueWindow> fall = day(schedule, FALL);
    assertEquals(24 * 240, fall.size());
    assertStrictlyIncreasing(fall);
    Set<Instant> seen = new HashSet<>();
    for (int i = 0; i < fall.size(); i++) {
      Instant t = fall.get(i).dueAt();
      assertTrue(seen.add(t), "repeated " + t);
      assertFalse(
          !t.isBefore(utc("2026-11-01T06:00:00Z")) && t.isBefore(utc("2026-11-01T07:00:00Z")),
          "fired in the repeated hour: " + t);
      if (i > 0) {
        Duration gap = Duration.between(fall.get(i - 1).dueAt(), t);
        Duration expected = t.equals(utc("2026-11-01T07:00:00Z")) ? Duration.ofSeconds(3615) : Duration.ofSeconds(15);
        assertEquals(expected, gap, "before " + t);
      }
    }
  }

  @Test
  @DisplayName("R3 hourly windows: 2026-11-01-01 spans 05:00Z-07:00Z, 2026-03-08-02 is empty")
  void hourlyWindowRanges() {
    Window repeated = WindowSpec.HOURLY.windowOf(LocalDateTime.parse("2026-11-01T01:00"), utc("2026-11-01T05:00:00Z"), NEW_YORK);
    assertEquals(utc("2026-11-01T05:00:00Z"), repeated.start());
    assertEquals(utc("2026-11-01T07:00:00Z"), repeated.end());
    Window missing = WindowSpec.HOURLY.windowOf(LocalDateTime.parse("2026-03-08T02:00"), utc("2026-03-08T07:00:00Z"), NEW_YORK);
    assertEquals(missing.start(), missing.end());
  }

  @Test
  @DisplayName("R3 R8 an every-second cron under Overlap.BOTH with hourly windows skips the repeated hour in one step")
  void everySecondBothHourly() {
    TaskSchedule schedule = schedule("* * * * * ?", BOTH, WindowSpec.HOURLY);
    DueWindow next = schedule.nextAfter(utc("2026-11-01T05:59:59Z")).orElseThrow();
    assertEquals(utc("2026-11-01T07:00:00Z"), next.dueAt());
    assertEquals("2026-11-01-02", next.key().value());
    TaskSchedule perFiring = schedule("* * * * * ?", BOTH, WindowSpec.PER_FIRING);
    assertEquals(utc("2026-11-01T06:00:00Z"), perFiring.nextAfter(utc("2026-11-01T05:59:59Z")).orElseThrow().dueAt());
    assertEquals(Duration.ofSeconds(1), perFiring.minInterval(utc("2026-11-01T05:59:50Z")));
  }
}

package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CronScheduleTest {

  private static Instant at(String iso) {
    return Instant.parse(iso);
  }

  @Test
  @DisplayName("R2 one string '0 0 8 * * ? Asia/Shanghai' fires at 00:00 UTC on successive days (R1)")
  void oneStringForm() {
    CronSchedule schedule = CronSchedule.parse("0 0 8 * * ? Asia/Shanghai");
    assertEquals("0 0 8 * * ?", schedule.expression());
    assertEquals(ZoneId.of("Asia/Shanghai"), schedule.zone());
    assertEquals("0 0 8 * * ? Asia/Shanghai", schedule.toString());

    Firing first = schedule.nextAfter(at("2026-11-28T12:00:00Z"), DstPolicy.DEFAULT).orElseThrow();
    assertEquals(at("2026-11-29T00:00:00Z"), first.at());
    assertEquals(LocalDateTime.parse("2026-11-29T08:00"), first.nominal());
    Firing second = schedule.nextAfter(first.at(), DstPolicy.DEFAULT).orElseThrow();
    assertEquals(at("2026-11-30T00:00:00Z"), second.at());
  }

  @Test
  @DisplayName("R2 the one-string form and the two-argument forms agree; toString round-trips")
  void formsAgree() {
    CronSchedule one = CronSchedule.parse("  0 0 8  * * ?   Asia/Shanghai ");
    CronSchedule two = CronSchedule.parse("0 0 8 * * ?", "Asia/Shanghai");
    CronSchedule three = CronSchedule.parse("0 0 8 * * ?", ZoneId.of("Asia/Shanghai"));
    assertEquals(one, two);
    assertEquals(two, three);
    assertEquals(one.hashCode(), three.hashCode());
    assertEquals(one, CronSchedule.parse(one.toString()));
    assertEquals(ZoneId.of("UTC"), CronSchedule.parse("0 0 8 * * ? UTC").zone());
    assertEquals("2030", CronSchedule.parse("0 0 8 * * ? 2030 Europe/Paris").expression().split(" ")[6]);
    assertNotEquals(one, CronSchedule.parse("0 0 8 * * ? UTC"));
  }

  @Test
  @DisplayName("R2 the same expression is parsed once per process (cache)")
  void parseIsCached() {
    String expression = "0 17 3 * * ? 2091";
    CronSchedule first = CronSchedule.parse(expression, "UTC");
    long parses = CronSchedule.parseCount();
    CronSchedule second = CronSchedule.parse(expression + " Asia/Tokyo");
    CronSchedule third = CronSchedule.parse(" 0 17  3 * * ? 2091 ", ZoneId.of("Europe/Berlin"));
    assertSame(first.executionTime(), second.executionTime());
    assertSame(first.executionTime(), third.executionTime());
    assertEquals(parses, CronSchedule.parseCount());
  }

  @Test
  @DisplayName("R2 crons that differ only in second, minute and hour share one firing probe; other dates, and a failing probe, do not")
  void probeIsSharedByDateFields() {
    CronSchedule.parse("0 0 1 * * ? 2087", "UTC");
    long probes = CronSchedule.probeCount();
    for (int i = 0; i < 50; i++) {
      CronSchedule.parse(i + " " + (i + 1) + " " + (i % 24) + " * * ? 2087", "UTC");
    }
    assertEquals(probes, CronSchedule.probeCount(), "same date fields: no new probe");
    CronSchedule.parse("0 0 1 * * ? 2088", "UTC");
    assertEquals(probes + 1, CronSchedule.probeCount(), "other date fields: a probe of their own");
    // A date part whose probe failed is never remembered as passed: it is refused every time,
    // whatever the time fields.
    assertThrows(InvalidSpecException.class, () -> CronSchedule.parse("0 0 12 31W * ? 2089", "UTC"));
    assertThrows(InvalidSpecException.class, () -> CronSchedule.parse("5 6 7 31W * ? 2089", "UTC"));
  }

  @Test
  @DisplayName("R2 R8 seconds-level cron '*/5 * * * * ?' fires every 5 seconds")
  void secondsLevel() {
    CronSchedule schedule = CronSchedule.parse("*/5 * * * * ? UTC");
    List<Firing> firings =
        schedule.firingsBetween(
            at("2026-01-01T00:00:00Z"), at("2026-01-01T00:00:30Z"), DstPolicy.DEFAULT, 100);
    assertEquals(6, firings.size());
    assertEquals(at("2026-01-01T00:00:05Z"), firings.get(0).at());
    assertEquals(at("2026-01-01T00:00:30Z"), firings.get(5).at());
    assertEquals(
        at("2026-01-01T00:00:05Z"),
        schedule.nextAfter(at("2026-01-01T00:00:00.999Z"), DstPolicy.DEFAULT).orElseThrow().at());
    assertEquals(Duration.ofSeconds(5), schedule.minInterval(DstPolicy.DEFAULT, at("2026-01-01T00:00:00Z")));
  }

  @Test
  @DisplayName("R1 nextAfter is strictly after t; firingsBetween honours max")
  void strictlyAfterAndMax() {
    CronSchedule schedule = CronSchedule.parse("0 0 * * * ? Europe/London");
    Instant onTheHour = at("2026-06-01T10:00:00Z");
    assertEquals(
        at("2026-06-01T11:00:00Z"), schedule.nextAfter(onTheHour, DstPolicy.DEFAULT).orElseThrow().at());
    assertEquals(3, schedule.firingsBetween(onTheHour, at("2026-06-02T00:00:00Z"), DstPolicy.DEFAULT, 3).size());
    assertEquals(0, schedule.firingsBetween(onTheHour, at("2026-06-02T00:00:00Z"), DstPolicy.DEFAULT, 0).size());
  }

  @Test
  @DisplayName("R1 R33 a cron that never fires (Feb 30) is refused; one whose years are past has no next firing")
  void neverFires() {
    InvalidSpecException e =
        assertThrows(InvalidSpecException.class, () -> CronSchedule.parse("0 0 0 30 2 ? America/New_York"));
    assertTrue(e.getMessage().contains("never fires"), e.getMessage());
    CronSchedule past = CronSchedule.parse("0 0 0 1 1 ? 2020 Europe/London");
    assertEquals(Optional.empty(), past.nextAfter(at("2026-01-01T00:00:00Z"), DstPolicy.DEFAULT));
    assertEquals(Duration.ofDays(36_500), past.minInterval(DstPolicy.DEFAULT, at("2026-01-01T00:00:00Z")));
  }

  @Test
  @DisplayName("R1 a leap-day cron in a DST zone walks the years to the next Feb 29")
  void leapDay() {
    CronSchedule schedule = CronSchedule.parse("0 0 12 29 2 ? America/New_York");
    assertEquals(
        at("2028-02-29T17:00:00Z"),
        schedule.nextAfter(at("2026-01-01T00:00:00Z"), DstPolicy.DEFAULT).orElseThrow().at());
  }

  @Test
  @DisplayName("R8 minInterval is the shortest gap among the next firings")
  void minInterval() {
    CronSchedule schedule = CronSchedule.parse("0 0 8,9 * * ? UTC");
    assertEquals(Duration.ofHours(1), schedule.minInterval(DstPolicy.DEFAULT, at("2026-01-01T00:00:00Z")));
    CronSchedule once = CronSchedule.parse("0 0 8 1 1 ? 2027 UTC");
    assertEquals(Duration.ofDays(36_500), once.minInterval(DstPolicy.DEFAULT, at("2026-01-01T00:00:00Z")));
  }

  static List<Arguments> badInput() {
    return List.of(
        Arguments.of("not a cron", "UTC", "cron", new String[] {"not a cron", "6 or 7"}),
        Arguments.of("0 0 25 * * ?", "UTC", "cron", new String[] {"'0 0 25 * * ?'", "hour 25", "out of range 0-23"}),
        Arguments.of("0 60 * * * ?", "UTC", "cron", new String[] {"minute 60", "out of range 0-59"}),
        Arguments.of("0 0 8 * * ? 1900", "UTC", "cron", new String[] {"year 1900", "out of range"}),
        Arguments.of("0 8 * * *", "UTC", "cron",
            new String[] {"has 5 fields", "6 or 7", "seconds minutes hours day-of-month month day-of-week [year]"}),
        Arguments.of("0 0 8 * * *", "UTC", "cron", new String[] {"day-of-month and day-of-week", "'?'"}),
        Arguments.of("0 0 8 * * ?", "America/New_Yrok", "zone", new String[] {"zone 'America/New_Yrok'", "unknown time zone"}),
        Arguments.of(null, "UTC", "cron", new String[] {"must not be blank"}),
        Arguments.of("   ", "UTC", "cron", new String[] {"must not be blank"}),
        Arguments.of("0 0 8 * * ?", null, "zone", new String[] {"must be set"}),
        Arguments.of("0 0 8 * * ?", " ", "zone", new String[] {"must be set"}));
  }

  @ParameterizedTest(name = "R2 R33 refuses cron ''{0}'' zone ''{1}''")
  @MethodSource("badInput")
  void refusesBadInput(String cron, String zone, String field, String[] fragments) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> CronSchedule.parse(cron, zone));
    assertEquals(field, e.field());
    for (String fragment : fragments) {
      assertTrue(e.getMessage().contains(fragment), () -> e.getMessage() + " lacks " + fragment);
    }
  }

  static List<Arguments> badOneString() {
    return List.of(
        Arguments.of("0 0 8 * * ?", "zone", "missing"),
        Arguments.of("0 0 8 ? * MON-FRI", "zone", "missing"),
        Arguments.of("0 0 8 * * ? 2030", "zone", "missing"),
        Arguments.of("0 0 8 * * ? America/New_Yrok", "zone", "unknown time zone"),
        Arguments.of("0 0 8 * * ? 2030 Mars/Olympus", "zone", "unknown time zone"),
        Arguments.of("0 0 8 * * ? Nowhere", "zone", "unknown time zone"),
        Arguments.of("0 8 * * * Asia/Shanghai", "cron", "6 or 7"),
        Arguments.of("0 0 25 * * ? Asia/Shanghai", "cron", "hour 25 is out of range 0-23"),
        Arguments.of("Asia/Shanghai", "cron", "must not be blank"),
        Arguments.of("", "cron", "must not be blank"),
        Arguments.of(null, "cron", "must not be blank"));
  }

  @ParameterizedTest(name = "R2 R33 refuses one string ''{0}''")
  @MethodSource("badOneString")
  void refusesBadOneString(String input, String field, String fragment) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> CronSchedule.parse(input));
    assertEquals(field, e.field());
    assertTrue(e.getMessage().contains(fragment), e::getMessage);
  }

  @Test
  @DisplayName("R2 a null ZoneId is refused")
  void nullZoneId() {
    InvalidSpecException e =
        assertThrows(InvalidSpecException.class, () -> CronSchedule.parse("0 0 8 * * ?", (ZoneId) null));
    assertEquals("zone", e.field());
  }

  @Test
  @DisplayName("R2 weekday names and the year field parse")
  void quartzFeatures() {
    CronSchedule weekdays = CronSchedule.parse("0 0 8 ? * MON-FRI Europe/Berlin");
    // 2026-01-03 is a Saturday: next is Monday 2026-01-05 08:00 CET = 07:00Z
    assertEquals(
        at("2026-01-05T07:00:00Z"),
        weekdays.nextAfter(at("2026-01-03T00:00:00Z"), DstPolicy.DEFAULT).orElseThrow().at());
  }
}

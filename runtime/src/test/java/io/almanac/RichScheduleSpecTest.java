package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.journal.SpecRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The parts of a richer schedule in the Java API (docs/schedules.md): what a spec accepts, each bad
 * input refused naming the field and the value, the persisted record, and specs stored before it.
 */
class RichScheduleSpecTest {

  private static TaskSpec.Builder weekdays() {
    return TaskSpec.builder("report").cron("0 0 9 ? * MON-FRI", "Europe/Paris").job("j");
  }

  private static InvalidSpecException refused(TaskSpec.Builder b) {
    return assertThrows(InvalidSpecException.class, b::build);
  }

  @Test
  @DisplayName("a spec with every part: accessors, crons() in order, a zone token equal to the task's dropped")
  void accepted() {
    ExclusionCalendar holidays = ExclusionCalendar.of("holidays-fr-2027", "2027-01-01", "2027-04-05", "2027-05-01..2027-05-08");
    TaskSpec spec = weekdays().alsoCron("0 0 9 1 * ? Europe/Paris").window(WindowSpec.DAILY)
        .from(LocalDate.parse("2027-01-01")).until(LocalDate.parse("2027-03-31")).exclude(holidays)
        .jitter(Duration.ofMinutes(5)).build();
    assertEquals(List.of("0 0 9 ? * MON-FRI", "0 0 9 1 * ?"), spec.crons());
    assertEquals(List.of("0 0 9 1 * ?"), spec.alsoCrons());
    assertEquals("2027-01-01", spec.from());
    assertEquals("2027-03-31", spec.until());
    assertEquals(List.of(holidays), spec.calendars());
    assertEquals(Duration.ofMinutes(5), spec.jitter());
    assertTrue(spec.richSchedule());
    TaskSpec plain = weekdays().build();
    assertFalse(plain.richSchedule());
    assertEquals(List.of(), plain.alsoCrons());
    assertEquals(Duration.ZERO, plain.jitter());
    assertEquals(plain, weekdays().jitter(Duration.ZERO).build(), "a zero jitter is none");
    assertEquals("2027-01-01T08:00:00Z", weekdays().from(Instant.parse("2027-01-01T08:00:00Z")).build().from());
  }

  @Test
  @DisplayName("a calendar: dates and inclusive ranges, merged, looked up by local date; entries normalized")
  void calendar() {
    ExclusionCalendar c = ExclusionCalendar.of("cn", "2027-02-10..2027-02-16", " 2027-01-01 ", "2027-02-15..2027-02-20");
    assertEquals(List.of("2027-02-10..2027-02-16", "2027-01-01", "2027-02-15..2027-02-20"), c.dates());
    assertTrue(c.excludes(LocalDate.parse("2027-01-01")));
    assertFalse(c.excludes(LocalDate.parse("2027-01-02")));
    assertTrue(c.excludes(LocalDate.parse("2027-02-10")));
    assertTrue(c.excludes(LocalDate.parse("2027-02-20")));
    assertFalse(c.excludes(LocalDate.parse("2027-02-21")));
    assertEquals("2027-02-10..2027-02-20", c.entryFor(LocalDate.parse("2027-02-18")));
    assertNull(c.entryFor(LocalDate.parse("2027-02-09")));
    assertEquals(c, ExclusionCalendar.of("cn", "2027-02-10..2027-02-16", "2027-01-01", "2027-02-15..2027-02-20"));
  }

  @Test
  @DisplayName("bad calendars are refused naming the field and the value: a malformed date, a range ending before it starts, a bad name")
  void badCalendars() {
    InvalidSpecException date = assertThrows(InvalidSpecException.class, () -> ExclusionCalendar.of("cn", "2027-02-30"));
    assertEquals("calendars.cn.dates", date.field());
    assertEquals("2027-02-30", date.value());
    InvalidSpecException range = assertThrows(InvalidSpecException.class, () -> ExclusionCalendar.of("cn", "2027-02-16..2027-02-10"));
    assertEquals("calendars.cn.dates", range.field());
    assertEquals("2027-02-16..2027-02-10", range.value());
    assertTrue(range.reason().contains("before it starts"), range.reason());
    InvalidSpecException garbage = assertThrows(InvalidSpecException.class, () -> ExclusionCalendar.of("cn", "next tuesday"));
    assertEquals("next tuesday", garbage.value());
    InvalidSpecException name = assertThrows(InvalidSpecException.class, () -> ExclusionCalendar.of("no spaces", "2027-01-01"));
    assertEquals("calendars", name.field());
    assertEquals("no spaces", name.value());
    InvalidSpecException twice = refused(weekdays().exclude(ExclusionCalendar.of("a", "2027-01-01"))
        .exclude(ExclusionCalendar.of("a", "2027-01-02")));
    assertEquals("calendars", twice.field());
    assertEquals("a", twice.value());
  }

  @Test
  @DisplayName("bad bounds: end before start, a malformed date or instant, an instant without offset")
  void badBounds() {
    InvalidSpecException order = refused(weekdays().from("2027-03-31").until("2027-01-01"));
    assertEquals("until", order.field());
    assertEquals("2027-01-01", order.value());
    InvalidSpecException same = refused(weekdays().from("2027-01-01T00:00:00Z").until("2026-12-31T23:59:59Z"));
    assertEquals("until", same.field());
    InvalidSpecException from = refused(weekdays().from("2027-13-01"));
    assertEquals("from", from.field());
    assertEquals("2027-13-01", from.value());
    InvalidSpecException local = refused(weekdays().until("2027-01-01T09:00:00"));
    assertEquals("until", local.field());
    assertEquals("2027-01-01T09:00:00", local.value());
    assertTrue(local.getMessage().startsWith("task 'report'"), local.getMessage());
  }

  @Test
  @DisplayName("bad jitter: negative, larger than the union's shortest interval; named with its value")
  void badJitter() {
    InvalidSpecException negative = refused(weekdays().jitter(Duration.ofMinutes(-1)));
    assertEquals("jitter", negative.field());
    assertEquals("PT-1M", negative.value());
    // hourly: a jitter of 61 minutes is refused, 60 accepted
    TaskSpec.Builder hourly = TaskSpec.builder("h").cron("0 0 * * * ?", "UTC").window(WindowSpec.HOURLY).job("j");
    InvalidSpecException large = refused(hourly.jitter(Duration.ofMinutes(61)));
    assertEquals("jitter", large.field());
    assertEquals("PT1H1M", large.value());
    assertTrue(large.reason().contains("PT1H"), large.reason());
    acceptsAnHour(TaskSpec.builder("h").cron("0 0 * * * ?", "UTC").window(WindowSpec.HOURLY).job("j")
        .jitter(Duration.ofMinutes(60)).build());
    // the union's interval counts: daily at 09:00 and at 09:10 on the 1st leave 10 minutes that day
    InvalidSpecException union = refused(TaskSpec.builder("u").cron("0 0 9 * * ?", "UTC").alsoCron("0 10 9 1 * ?")
        .window(WindowSpec.PER_FIRING).jitter(Duration.ofMinutes(11)).job("j"));
    assertEquals("jitter", union.field());
    assertTrue(union.reason().contains("PT10M"), union.reason());
  }

  private static void acceptsAnHour(TaskSpec spec) {
    assertEquals(Duration.ofHours(1), spec.jitter());
  }

  @Test
  @DisplayName("bad crons in the list: malformed, another zone; a union firing twice a day under the default window")
  void badCrons() {
    InvalidSpecException malformed = refused(weekdays().alsoCron("0 0 25 * * ?"));
    assertEquals("crons", malformed.field());
    assertEquals("0 0 25 * * ?", malformed.value());
    InvalidSpecException zone = refused(weekdays().alsoCron("0 0 9 1 * ? Asia/Shanghai"));
    assertEquals("crons", zone.field());
    assertTrue(zone.reason().contains("Europe/Paris"), zone.reason());
    InvalidSpecException twice = refused(TaskSpec.builder("t").cron("0 0 9 * * ?", "UTC").alsoCron("0 0 17 * * ?").job("j"));
    assertEquals("crons", twice.field());
    assertTrue(twice.reason().contains("0 0 17 * * ?"), twice.reason());
    TaskSpec.builder("t").cron("0 0 9 * * ?", "UTC").alsoCron("0 0 17 * * ?").window(WindowSpec.PER_FIRING).job("j").build();
  }

  @Test
  @DisplayName("with the default daily window, a union is refused when any day holds firings of two crons at different"
      + " times, however rare the day; naming crons and both expressions")
  void unionFiringTwiceOnSomeDayIsRefused() {
    InvalidSpecException monthly = refused(weekdays().alsoCron("0 0 18 1 * ?"));
    assertEquals("crons", monthly.field());
    assertTrue(monthly.reason().contains("'0 0 9 ? * MON-FRI'") && monthly.reason().contains("'0 0 18 1 * ?'"),
        monthly.reason());
    assertTrue(monthly.reason().contains("per-firing"), monthly.reason());
    // February 29th on a Monday: first in 2044
    InvalidSpecException rare = refused(TaskSpec.builder("t").cron("0 0 18 ? * MON", "UTC").alsoCron("0 0 9 29 2 ?").job("j"));
    assertEquals("crons", rare.field());
    assertTrue(rare.reason().contains("2044-02-29"), rare.reason());
    // same instant on the days both fire: one window; disjoint days: never twice
    assertEquals("daily", weekdays().alsoCron("0 0 9 1 * ?").build().window());
    assertEquals("daily", weekdays().alsoCron("0 0 18 ? * SAT,SUN").build().window());
    assertEquals("daily", TaskSpec.builder("t").cron("0 0 9 ? * MON-FRI", "UTC").alsoCron("0 0 18 ? * SAT,SUN")
        .alsoCron("0 30 7 ? * SAT").alsoCron("0 0 12 ? * SUN").window(WindowSpec.DAILY).job("j").build().window());
  }

  @Test
  @DisplayName("the parts apply to a cron task only: a one-shot or events-only task with them is refused")
  void cronTasksOnly() {
    InvalidSpecException once = refused(TaskSpec.builder("o").once(Instant.parse("2027-01-01T00:00:00Z"))
        .jitter(Duration.ofMinutes(1)).job("j"));
    assertEquals("jitter", once.field());
    InvalidSpecException events = refused(TaskSpec.builder("e").onEvent(EventTrigger.of("x")).until("2027-01-01").job("j"));
    assertEquals("until", events.field());
  }

  @Test
  @DisplayName("the persisted record: one nullable component last, absent for a plain spec; round-trips; old JSON reads as before")
  void record() throws Exception {
    ObjectMapper mapper = new ObjectMapper().findAndRegisterModules();
    TaskSpec rich = weekdays().alsoCron("0 0 9 1 * ?").window(WindowSpec.DAILY).from("2027-01-01").until("2027-03-31")
        .exclude(ExclusionCalendar.of("h", "2027-01-01")).jitter(Duration.ofMinutes(5)).build();
    SpecRecord r = SpecRecord.of(rich);
    assertEquals(rich, r.toSpec());
    assertEquals(r, mapper.readValue(mapper.writeValueAsString(r), SpecRecord.class));
    assertEquals(new SpecRecord.Schedule(List.of("0 0 9 1 * ?"), "2027-01-01", "2027-03-31",
        List.of(new SpecRecord.Calendar("h", List.of("2027-01-01"))), Duration.ofMinutes(5)), r.schedule());
    SpecRecord plain = SpecRecord.of(weekdays().build());
    assertNull(plain.schedule());
    assertFalse(mapper.writeValueAsString(plain).contains("schedule"), "a plain spec is written as before");
    // the TaskSpec JSON of a view round-trips too
    assertEquals(rich, mapper.readValue(mapper.writeValueAsString(rich), TaskSpec.class));
  }
}

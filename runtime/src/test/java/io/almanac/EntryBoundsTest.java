package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The maxima of the values added with deadlines, throttling and pools, at their edges (R33): the
 * largest value is taken, one second more is refused naming the field and the value; and the
 * examples that used to pass (a deadline of ChronoUnit.FOREVER, a throttle of 9,999,999,999 s, 1
 * start per 200,000 days, a null calendar date, {@code from} equal to {@code until}).
 */
class EntryBoundsTest {

  /** A refusal naming the field and the value, or saying it is missing for null (after the task's id, for a builder's). */
  private static void refused(String field, String value, org.junit.jupiter.api.function.Executable code) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, code);
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(value == null ? field + " is missing" : field + " '" + InvalidSpecException.echo(value) + "'"),
        e.getMessage());
  }

  private static TaskSpec.Builder task() {
    return TaskSpec.builder("t").cron("0 0 8 * * ? UTC").job("j");
  }

  @Test
  @DisplayName("R33: deadline: 366 days is taken, a second more and ChronoUnit.FOREVER are refused naming deadline")
  void deadlineBounded() {
    assertEquals(TaskSpec.MAX_DEADLINE, task().deadline(Duration.ofDays(366)).build().deadline());
    refused("deadline", "PT8784H1S", () -> task().deadline(Duration.ofDays(366).plusSeconds(1)));
    refused("deadline", ChronoUnit.FOREVER.getDuration().toString(),
        () -> task().deadline(ChronoUnit.FOREVER.getDuration()));
    assertEquals(10_000, task().pauseAfterFailures(10_000).build().pauseAfterFailures());
    refused("pauseAfterFailures", "10001", () -> task().pauseAfterFailures(10_001));
  }

  @Test
  @DisplayName("R33: a throttled result waits at most 366 days; 9,999,999,999 s is refused naming retryAfter")
  void throttleBounded() {
    assertEquals(JobResult.MAX_RETRY_AFTER, JobResult.throttled(Duration.ofDays(366)).retryAfter());
    refused("retryAfter", "PT2777777H46M39S", () -> JobResult.throttled(Duration.ofSeconds(9_999_999_999L)));
    refused("retryAfter", "PT8784H1S", () -> JobResult.throttled(Duration.ofDays(366).plusSeconds(1), "llm"));
  }

  @Test
  @DisplayName("R33: a pool's rate period is at most 366 days and its starts at most 1,000,000; 1/200000d is refused")
  void poolRateBounded() {
    assertEquals(Duration.ofDays(366), PoolSpec.of("llm", 1).withRate(1, Duration.ofDays(366)).ratePer());
    assertEquals(Duration.ofDays(366), PoolSpec.of("llm", 1).withRate("1/366d").ratePer());
    refused("almanac.pools.llm.rate", "1/200000d", () -> PoolSpec.of("llm", 1).withRate("1/200000d"));
    refused("almanac.pools.llm.rate", "1/PT4800000H", () -> PoolSpec.of("llm", 1).withRate(1, Duration.ofDays(200_000)));
    refused("almanac.pools.llm.rate", "1000001/1s", () -> PoolSpec.of("llm", 1).withRate("1000001/1s"));
    assertEquals(PoolSpec.MAX_CONCURRENT, PoolSpec.of("llm", 100_000).maxConcurrent());
    refused("almanac.pools.llm.max-concurrent", "100001", () -> PoolSpec.of("llm", 100_001));
  }

  @Test
  @DisplayName("R33: a null calendar date (Java), a null calendar and a null once are refused typed, not a NullPointerException")
  void nullsTyped() {
    refused("calendars.h.dates", null, () -> ExclusionCalendar.of("h", "2027-01-01", null));
    refused("calendars", null, () -> task().exclude(null));
    refused("once", null, () -> TaskSpec.builder("t").once(null));
  }

  @Test
  @DisplayName("R33: until equal to from (the same instant) is refused naming until; a one-day date range is a day")
  void fromEqualToUntilRefused() {
    refused("until", "2027-01-01T00:00:00Z",
        () -> task().from("2027-01-01T00:00:00Z").until("2027-01-01T00:00:00Z").build());
    refused("until", "2027-01-01T00:00:00Z", () -> task().from("2027-01-01").until("2027-01-01T00:00:00Z").build());
    assertEquals("2027-01-01", task().from("2027-01-01").until("2027-01-01").build().until());
    refused("from", "+999999999-12-31", () -> task().from(java.time.LocalDate.MAX).build());
    refused("until", "2100-01-01", () -> task().until("2100-01-01").build());
    // a bound stored by an earlier build is read as stored, never refused and never overflowing
    java.time.ZoneId utc = java.time.ZoneId.of("UTC");
    assertEquals(java.time.Instant.parse("2150-01-01T00:00:00Z"), io.almanac.schedule.Bounds.start("2150-01-01", utc));
    assertEquals(java.time.Instant.MAX, io.almanac.schedule.Bounds.end(java.time.LocalDate.MAX.toString(), utc));
  }
}

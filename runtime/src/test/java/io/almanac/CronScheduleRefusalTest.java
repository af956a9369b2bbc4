package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression tests for crons cron-utils parses but cannot serve: firings that throw, crons that
 * never fire, characters outside printable ASCII, and unbounded refusal messages (R2, R3, R33).
 */
class CronScheduleRefusalTest {

  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  private static InvalidSpecException refusedCron(String cron) {
    InvalidSpecException e =
        assertThrows(InvalidSpecException.class, () -> CronSchedule.parse(cron, "Europe/Paris"));
    assertEquals("cron", e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith("cron '"), e.getMessage());
    return e;
  }

  // ----------------------------------------------------------------------- firings that throw

  @ParameterizedTest(name = "R33: cron ''{0}'' whose firings throw inside cron-utils is refused at construction")
  @ValueSource(strings = {"0 0 12 31W * ?", "0 0 12 30W * ?", "0 0 12 29W * ?", "0 0 12 29W 2 ?",
      "0 0 12 30W 1-6 ?", "0 0 12 31W 1-3 ? 2027-2031"})
  void firingsThatThrowAreRefused(String cron) {
    InvalidSpecException e = refusedCron(cron);
    assertTrue(e.getMessage().contains("'" + cron + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("firings cannot be computed"), e.getMessage());
    assertTrue(e.getMessage().contains("day-of-month"), e.getMessage());
    assertTrue(e.getMessage().contains("W'"), e.getMessage());
  }

  @Test
  @DisplayName("R33: registering a task with cron '0 0 12 31W * ?' is refused naming the task, the cron and the value")
  void taskWithThrowingCronRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("month-end").cron("0 0 12 31W * ?", "UTC").build());
    assertEquals("cron", e.field());
    assertTrue(e.getMessage().startsWith("task 'month-end': cron '0 0 12 31W * ?' is invalid: "), e.getMessage());
    InvalidSpecException one = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("month-end").cron("0 0 12 31W * ? UTC"));
    assertEquals(e.getMessage(), one.getMessage());
  }

  @Test
  @DisplayName("R2 R33: a weekday nW below 29 ('0 0 12 28W * ?', '15W', 'LW', 'L-3') is still accepted and fires")
  void harmlessWeekdayFormsStillFire() {
    for (String cron : List.of("0 0 12 28W * ?", "0 0 12 15W * ?", "0 0 12 LW * ?", "0 0 12 L-3 * ?",
        "0 0 12 1W * ?", "0 0 12 ? * 6L", "0 0 12 ? * 2#5")) {
      CronSchedule schedule = CronSchedule.parse(cron, "Europe/Paris");
      assertEquals(12, schedule.firingsBetween(T0, Instant.MAX, DstPolicy.DEFAULT, 12).size(), cron);
    }
  }

  @Test
  @DisplayName("R3 R33: at run time nextAfter and firingsBetween throw ScheduleComputationException, never a raw cron-utils exception")
  void runTimeFailureIsTyped() {
    // A spec stored before construction-time checks existed: parsed without the probe.
    CronSchedule stored = CronSchedule.parseUnchecked("0 0 12 31W * ?", ZoneId.of("Europe/Paris"));
    Instant january = Instant.parse("2027-01-15T00:00:00Z");
    ScheduleComputationException e = assertThrows(ScheduleComputationException.class,
        () -> stored.firingsBetween(january, Instant.parse("2027-04-01T00:00:00Z"), DstPolicy.DEFAULT, 10));
    assertTrue(e.getMessage().contains("'0 0 12 31W * ?'"), e.getMessage());
    assertTrue(e.getMessage().contains("Europe/Paris"), e.getMessage());
    assertNotNull(e.getCause());
    assertThrows(ScheduleComputationException.class,
        () -> stored.nextAfter(Instant.parse("2027-02-01T00:00:00Z"), DstPolicy.DEFAULT));
    assertThrows(ScheduleComputationException.class,
        () -> stored.minInterval(DstPolicy.DEFAULT, january));
  }

  // ----------------------------------------------------------------------- crons that never fire

  static List<Arguments> neverFires() {
    return List.of(
        Arguments.of("0 0 12 ? * 2#6", "day-of-week '2#6'", "1-5"),
        Arguments.of("0 0 12 ? * MON#7", "day-of-week 'MON#7'", "1-5"),
        Arguments.of("0 0 12 ? * 2#5,3#6", "day-of-week '3#6'", "1-5"),
        Arguments.of("0 0 0 30 2 ?", "never fires", "30 2"),
        Arguments.of("0 0 0 31 4,6,9,11 ?", "never fires", "31 4,6,9,11"),
        Arguments.of("0 0 0 29 2 ? 2027", "never fires", "2027"),
        Arguments.of("0 0 12 L-30 2 ?", "never fires", "L-30"));
  }

  @ParameterizedTest(name = "R33: cron ''{0}'' never fires and is refused saying why")
  @MethodSource("neverFires")
  void neverFiringRefused(String cron, String why, String value) {
    InvalidSpecException e = refusedCron(cron);
    assertTrue(e.getMessage().contains(why), e.getMessage());
    assertTrue(e.getMessage().contains(value), e.getMessage());
  }

  @Test
  @DisplayName("R1 R33: a cron whose years are all past is accepted (validity never depends on the clock) and has no next firing")
  void pastYearsAcceptedButDone() {
    CronSchedule past = CronSchedule.parse("0 0 0 1 1 ? 2020 Europe/London");
    assertEquals(Optional.empty(), past.nextAfter(T0, DstPolicy.DEFAULT));
    CronSchedule far = CronSchedule.parse("0 0 12 31 12 ? 2099 UTC");
    assertEquals(Instant.parse("2099-12-31T12:00:00Z"), far.nextAfter(T0, DstPolicy.DEFAULT).orElseThrow().at());
  }

  // ----------------------------------------------------------------------- characters

  static List<Arguments> badCharacters() {
    return List.of(
        Arguments.of("0 0 12 ? * \u0663", "U+0663", 12),
        Arguments.of("0 0 12 \uFF13 * ?", "U+FF13", 8),
        Arguments.of("0 0 12 3 * ?\u0000", "U+0000", 13),
        Arguments.of("0 0 12 3 * ?\u007F", "U+007F", 13),
        Arguments.of("0 0\u00A012 3 * ?", "U+00A0", 4),
        Arguments.of("0 0 12 3\u0008 * ?", "U+0008", 9),
        Arguments.of("0 0 \u202E12 3 * ?", "U+202E", 5));
  }

  @ParameterizedTest(name = "R33: cron with {1} at position {2} is refused naming the code point and position")
  @MethodSource("badCharacters")
  void nonAsciiRefused(String cron, String codePoint, int position) {
    InvalidSpecException e = refusedCron(cron);
    assertTrue(e.getMessage().contains(codePoint), e.getMessage());
    assertTrue(e.getMessage().contains("position " + position), e.getMessage());
    assertTrue(e.getMessage().chars().noneMatch(c -> c < 0x20 || c == 0x7F || c == 0x202E), e.getMessage());
    InvalidSpecException one = assertThrows(InvalidSpecException.class, () -> CronSchedule.parse(cron + " UTC"));
    assertEquals("cron", one.field());
    assertTrue(one.getMessage().contains(codePoint), one.getMessage());
  }

  @Test
  @DisplayName("R2: ASCII whitespace (tabs, a trailing newline) still separates fields")
  void asciiWhitespaceStillSeparates() {
    assertEquals("0 0 8 * * ?", CronSchedule.parse("0\t0 8 * * ?\n", "UTC").expression());
  }

  // ----------------------------------------------------------------------- bounded messages

  @Test
  @DisplayName("R33: a 10,000-character cron is refused with a bounded message naming its length")
  void longCronBoundedMessage() {
    String cron = "0 0 8 " + "1,".repeat(4_995) + "2 * ?";
    InvalidSpecException e = refusedCron(cron);
    assertTrue(e.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH, () -> "length " + e.getMessage().length());
    assertTrue(e.getMessage().contains("\u2026 (" + cron.length() + " chars)"), e.getMessage());
    assertTrue(e.getMessage().contains("at most 512"), e.getMessage());
    assertTrue(e.value().length() < 200, e.value());

    InvalidSpecException task = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("x".repeat(10_000)).cron(cron, "UTC").build());
    assertTrue(task.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH, () -> "length " + task.getMessage().length());
    InvalidSpecException oneString = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("t").cron(cron + " " + "Z".repeat(10_000)));
    assertTrue(oneString.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH, () -> "length " + oneString.getMessage().length());
  }

  @Test
  @DisplayName("R33: a cron of 513 characters is refused as too long, one of 512 that is otherwise valid is accepted")
  void lengthLimit() {
    StringBuilder seconds = new StringBuilder("0");
    String rest = " 0 8 ? * MON";
    while (seconds.length() + rest.length() < CronSchedule.MAX_CRON_LENGTH - 1) {
      seconds.append(",1");
    }
    if (seconds.length() + rest.length() < CronSchedule.MAX_CRON_LENGTH) {
      seconds.append('0');
    }
    String padded = seconds + rest;
    assertEquals(CronSchedule.MAX_CRON_LENGTH, padded.length());
    CronSchedule.parse(padded, "UTC");
    InvalidSpecException e = refusedCron("0" + padded);
    assertTrue(e.getMessage().contains("513 characters"), e.getMessage());
  }

  @Test
  @DisplayName("R33: a refusal echoing a huge value of any field (task id, zone) stays bounded")
  void everyEchoBounded() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> CronSchedule.parse("0 0 8 * * ?", "Europe/" + "x".repeat(20_000)));
    assertEquals("zone", e.field());
    assertTrue(e.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH, () -> "length " + e.getMessage().length());
    InvalidSpecException direct = new InvalidSpecException("f".repeat(5_000), "v".repeat(5_000), "r".repeat(5_000));
    assertTrue(direct.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH);
    assertFalse(new InvalidSpecException("id", "a\nb", "x").getMessage().contains("\n"));
  }
}

package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.ExclusionCalendar;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Richer schedules in application.conf (docs/schedules.md): the keys, the calendars, and each bad input named by its key. */
class ConfigSchedulesTest {

  private static List<TaskSpec> parse(String conf) {
    return ConfigTasks.parse(ConfigFactory.parseString(conf).withFallback(ConfigFactory.load()), Map.of());
  }

  private static InvalidSpecException refused(String conf) {
    return assertThrows(InvalidSpecException.class, () -> parse(conf));
  }

  @Test
  @DisplayName("crons, from, until, calendars and jitter read into the same spec as the Java builder's")
  void parses() {
    List<TaskSpec> specs = parse("""
        almanac.calendars {
          holidays-cn-2027 { dates = ["2027-01-01", "2027-02-10..2027-02-16"] }
        }
        almanac.tasks {
          report {
            crons = ["0 0 9 ? * MON-FRI Asia/Shanghai", "0 0 9 1 * ?"]
            job = report
            from = "2027-01-01"
            until = "2027-03-31"
            calendars = [holidays-cn-2027]
            jitter = 5m
          }
          also {
            cron = "0 0 9 ? * MON-FRI Asia/Shanghai"
            crons = ["0 0 9 1 * ? Asia/Shanghai"]
            job = report
            window = daily
          }
        }
        """);
    TaskSpec expected = TaskSpec.builder("report").cron("0 0 9 ? * MON-FRI Asia/Shanghai").alsoCron("0 0 9 1 * ?")
        .job("report").from("2027-01-01").until("2027-03-31")
        .exclude(ExclusionCalendar.of("holidays-cn-2027", "2027-01-01", "2027-02-10..2027-02-16"))
        .jitter(Duration.ofMinutes(5)).build();
    assertEquals(expected, specs.get(1));
    assertEquals(TaskSpec.builder("also").cron("0 0 9 ? * MON-FRI Asia/Shanghai").alsoCron("0 0 9 1 * ?").job("report")
        .window(WindowSpec.DAILY).build(), specs.get(0));
  }

  @Test
  @DisplayName("a calendar declared in code is named like one of almanac.calendars; one name in both is refused")
  void codeCalendars() {
    ExclusionCalendar xmas = ExclusionCalendar.of("xmas", "2027-12-25");
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", job = j, calendars = [xmas] }").withFallback(ConfigFactory.load()),
        Map.of("xmas", xmas));
    assertEquals(List.of(xmas), specs.get(0).calendars());
    InvalidSpecException both = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.calendars.xmas { dates = [\"2027-12-25\"] }").withFallback(ConfigFactory.load()), Map.of("xmas", xmas)));
    assertEquals("almanac.calendars.xmas", both.field());
  }

  @Test
  @DisplayName("an unknown calendar is refused, naming the task's key and the name")
  void unknownCalendar() {
    InvalidSpecException e = refused("""
        almanac.calendars.holidays { dates = ["2027-01-01"] }
        almanac.tasks.t { cron = "0 0 9 * * ? UTC", job = j, calendars = [holidays, holidayz] }
        """);
    assertEquals("almanac.tasks.t.calendars", e.field());
    assertEquals("holidayz", e.value());
    assertTrue(e.reason().contains("[holidays]"), e.reason());
  }

  @Test
  @DisplayName("a malformed calendar date or range is refused, naming almanac.calendars.<name>.dates and the entry")
  void malformedCalendar() {
    InvalidSpecException date = refused("almanac.calendars.cn { dates = [\"2027-01-01\", \"2027-02-31\"] }");
    assertEquals("almanac.calendars.cn.dates", date.field());
    assertEquals("2027-02-31", date.value());
    InvalidSpecException range = refused("almanac.calendars.cn { dates = [\"2027-02-16..2027-02-10\"] }");
    assertEquals("almanac.calendars.cn.dates", range.field());
    assertEquals("2027-02-16..2027-02-10", range.value());
    InvalidSpecException notList = refused("almanac.calendars.cn { dates = \"2027-01-01\" }");
    assertEquals("almanac.calendars.cn.dates", notList.field());
    InvalidSpecException nullDate = refused("almanac.calendars.cn { dates = [\"2027-01-01\", null] }");
    assertEquals("almanac.calendars.cn.dates", nullDate.field());
    InvalidSpecException unknownKey = refused("almanac.calendars.cn { days = [\"2027-01-01\"] }");
    assertEquals("almanac.calendars.cn.days", unknownKey.field());
  }

  @Test
  @DisplayName("end before start, a malformed bound, a negative jitter, a jitter above the interval: each named with its value")
  void badBoundsAndJitter() {
    InvalidSpecException order = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", job = j, from = \"2027-03-01\","
        + " until = \"2027-01-01\" }");
    assertEquals("almanac.tasks.t.until", order.field());
    assertEquals("2027-01-01", order.value());
    InvalidSpecException bound = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", job = j, from = \"soon\" }");
    assertEquals("almanac.tasks.t.from", bound.field());
    assertEquals("soon", bound.value());
    InvalidSpecException negative = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", job = j, jitter = -5m }");
    assertEquals("almanac.tasks.t.jitter", negative.field());
    assertEquals("-5m", negative.value());
    InvalidSpecException large = refused("almanac.tasks.t { cron = \"0 0 * * * ? UTC\", job = j, window = hourly,"
        + " jitter = 2h }");
    assertEquals("almanac.tasks.t.jitter", large.field());
    assertEquals("2h", large.value());
    InvalidSpecException notDuration = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", job = j, jitter = lots }");
    assertEquals("almanac.tasks.t.jitter", notDuration.field());
  }

  @Test
  @DisplayName("a malformed cron in the list is refused naming crons and that cron; so is crons with at, or an empty list")
  void badCrons() {
    InvalidSpecException more = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", crons = [\"0 0 9 32 * ?\"], job = j,"
        + " window = daily }");
    assertEquals("almanac.tasks.t.crons", more.field());
    assertEquals("0 0 9 32 * ?", more.value());
    InvalidSpecException first = refused("almanac.tasks.t { crons = [\"0 0 9 * * ?\"], job = j }");
    assertEquals("almanac.tasks.t.crons", first.field());
    assertEquals("0 0 9 * * ?", first.value());
    assertTrue(first.reason().contains("zone"), first.reason());
    InvalidSpecException once = refused("almanac.tasks.t { at = \"2027-01-01T00:00:00Z\", crons = [\"0 0 9 * * ? UTC\"], job = j }");
    assertEquals("almanac.tasks.t.crons", once.field());
    InvalidSpecException empty = refused("almanac.tasks.t { cron = \"0 0 9 * * ? UTC\", crons = [], job = j }");
    assertEquals("almanac.tasks.t.crons", empty.field());
  }
}

package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.internal.node.ConfigTasks;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Windows that match the schedule (R4): the default daily window never silently swallows firings. */
class TaskSpecWindowTest {

  @Test
  @DisplayName("R4/R33: an every-second cron left with the default daily window is refused, naming the window and the cron")
  void subDailyCronWithDefaultWindowIsRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("t").cron("* * * * * ? UTC").build());
    assertEquals("window", e.field());
    assertTrue(e.getMessage().startsWith("task 't': window 'daily (the default)' is invalid: cron '* * * * * ?' fires more "
        + "than once a day"), e.getMessage());
    assertTrue(e.getMessage().contains("per-firing"), e.getMessage());
    assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("t").cron("0 0 8,20 * * ? Asia/Shanghai").build());
  }

  @Test
  @DisplayName("R4: a sub-daily cron is accepted with a window chosen on purpose, and a daily cron with the default")
  void chosenWindowsAreAccepted() {
    assertEquals("per-firing", TaskSpec.builder("t").cron("* * * * * ? UTC").window(WindowSpec.PER_FIRING).build().window());
    assertEquals("hourly", TaskSpec.builder("t").cron("0 */5 * * * ? UTC").window("hourly").build().window());
    assertEquals("daily", TaskSpec.builder("t").cron("0 0 8,20 * * ? UTC").window("daily").build().window());
    assertEquals("daily", TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").build().window());
  }

  @Test
  @DisplayName("R4/R34: the same rule for a task declared in configuration, naming its key")
  void configuredTaskWithoutWindow() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks.fast { cron = \"*/5 * * * * ? UTC\", job = \"x.Y\" }")));
    assertTrue(e.getMessage().contains("almanac.tasks.fast.window"), e.getMessage());
  }
}

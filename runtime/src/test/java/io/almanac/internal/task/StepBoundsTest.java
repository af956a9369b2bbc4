package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.internal.protocol.StepBounds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The bounds of durable steps: the defaults, HOCON sizes, and each bad value refused naming its key. */
class StepBoundsTest {

  private static Config with(String s) {
    return ConfigFactory.parseString(s).withFallback(ConfigFactory.load());
  }

  @Test
  @DisplayName("defaults: 64 KiB of JSON, 100 steps per window, names of 200 characters; a size may be written 1MiB")
  void defaults() {
    assertEquals(StepBounds.DEFAULT, TaskSettings.from(ConfigFactory.load()).steps());
    assertEquals(new StepBounds(65_536, 100, 200), StepBounds.DEFAULT);
    assertEquals(1_048_576, StepBounds.from(with("almanac.task.max-step-result-size = 1MiB")).maxResultBytes());
  }

  @Test
  @DisplayName("a result bound above 16 MiB, not a size, zero or null, and a step count or name length below 1, are "
      + "refused naming the key")
  void refusals() {
    for (String bad : new String[] {"almanac.task.max-step-result-size = 17MiB", "almanac.task.max-step-result-size = lots",
        "almanac.task.max-step-result-size = 0", "almanac.task.max-step-result-size = null",
        "almanac.task.max-steps-per-window = 0", "almanac.task.max-step-name-length = 0"}) {
      InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TaskSettings.from(with(bad)), bad);
      assertEquals(bad.substring(0, bad.indexOf(' ')), e.field(), bad);
    }
    InvalidSpecException big = assertThrows(InvalidSpecException.class,
        () -> StepBounds.from(with("almanac.task.max-step-result-size = 17MiB")));
    assertTrue(big.getMessage().contains("artifact"), big.getMessage());
  }
}

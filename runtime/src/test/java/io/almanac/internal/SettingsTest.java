package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The trigger's and executor's integer settings, read like the tasks' (R33). */
class SettingsTest {

  @Test
  @DisplayName("R33: a fractional value for an integer setting is refused naming the key and the value, not truncated")
  void refusesFractionalIntegers() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TriggerSettings.from(
        ConfigFactory.parseString("almanac.trigger.max-catch-up-per-task = 2.5").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("almanac.trigger.max-catch-up-per-task '2.5'"), e.getMessage());
    assertTrue(e.getMessage().contains("whole number"), e.getMessage());
  }
}

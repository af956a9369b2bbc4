package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

  @Test
  @DisplayName("R33: the trigger's stash capacity must be at least 1, and its default holds the wake-ups of 10,000 tasks many times over")
  void triggerStashCapacity() {
    assertEquals(200_000, TriggerSettings.from(ConfigFactory.load()).stashCapacity());
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TriggerSettings.from(
        ConfigFactory.parseString("almanac.trigger.stash-capacity = 0").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("almanac.trigger.stash-capacity"), e.getMessage());
  }
}

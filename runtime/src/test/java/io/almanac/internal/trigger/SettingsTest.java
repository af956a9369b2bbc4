package io.almanac.internal.trigger;

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

  @Test
  @DisplayName("R12: the hand-over timeout is the trigger singleton's lease time (its lease's heartbeat-timeout, Pekko's "
      + "coordination default when that lease sets none), 10 s without a lease, or the value set; a bad one is refused")
  void handOverTimeoutIsTheLeaseTime() {
    assertEquals(java.time.Duration.ofSeconds(10), TriggerSettings.from(ConfigFactory.load()).handOverTimeout(),
        "no lease on the singleton (embedded)");
    assertEquals(java.time.Duration.ofSeconds(8), TriggerSettings.from(ConfigFactory.parseString(
        "pekko.cluster.singleton.use-lease = my.lease\nmy.lease.heartbeat-timeout = 8s").withFallback(ConfigFactory.load()))
        .handOverTimeout(), "as almanac-cluster.conf sets the JDBC lease");
    assertEquals(ConfigFactory.load().getDuration("pekko.coordination.lease.heartbeat-timeout"), TriggerSettings.from(
        ConfigFactory.parseString("pekko.cluster.singleton.use-lease = other.lease\nother.lease.lease-class = x")
            .withFallback(ConfigFactory.load())).handOverTimeout(), "a lease without its own heartbeat-timeout");
    assertEquals(java.time.Duration.ofSeconds(3), TriggerSettings.from(ConfigFactory.parseString(
        "pekko.cluster.singleton.use-lease = my.lease\nmy.lease.heartbeat-timeout = 8s\nalmanac.trigger.hand-over-timeout = 3s")
        .withFallback(ConfigFactory.load())).handOverTimeout(), "set explicitly");
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TriggerSettings.from(ConfigFactory.parseString(
        "almanac.trigger.hand-over-timeout = soon").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().startsWith("almanac.trigger.hand-over-timeout 'soon' is invalid"), e.getMessage());
    InvalidSpecException zero = assertThrows(InvalidSpecException.class, () -> TriggerSettings.from(ConfigFactory.parseString(
        "almanac.trigger.hand-over-timeout = 0s").withFallback(ConfigFactory.load())));
    assertTrue(zero.getMessage().startsWith("almanac.trigger.hand-over-timeout"), zero.getMessage());
  }
}

package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** almanac.instances: defaults, and every wrong value refused naming key and value. */
class InstanceSettingsTest {

  @Test
  void defaults() {
    InstanceSettings s = InstanceSettings.from(ConfigFactory.load());
    assertTrue(s.enabled());
    assertEquals(Duration.ofMillis(200), s.pollInterval());
    assertEquals(500, s.batchSize());
    assertEquals(Duration.ofSeconds(10), s.gapWait());
    assertEquals(Duration.ofSeconds(1), s.failureBackoffMin());
    assertEquals(Duration.ofSeconds(30), s.failureBackoffMax());
    assertEquals(Duration.ofDays(90), s.retention());
    assertEquals(Duration.ofHours(1), s.retentionInterval());
    assertEquals(1000, s.retentionBatchSize());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "enabled | maybe | maybe",
      "poll-interval | 0s | PT0S",
      "poll-interval | -1s | PT-1S",
      "poll-interval | soon | soon",
      "batch-size | 0 | 0",
      "batch-size | 10001 | 10001",
      "batch-size | 1.5 | 1.5",
      "batch-size | many | many",
      "gap-wait | -1s | PT-1S",
      "failure-backoff-min | 0s | PT0S",
      "failure-backoff-max | 0s | PT0S",
      "failure-backoff-max | 500ms | PT0.5S",
      "retention | 0d | PT0S",
      "retention | forever | forever",
      "retention-interval | 0s | PT0S",
      "retention-batch-size | 0 | 0",
  })
  void wrongValuesAreRefusedNamingKeyAndValue(String key, String value, String shown) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> InstanceSettings.from(
        ConfigFactory.parseString("almanac.instances." + key + " = " + value).withFallback(ConfigFactory.load())));
    assertEquals("almanac.instances." + key, e.field(), e.getMessage());
    assertEquals(shown, e.value(), e.getMessage());
  }

  @Test
  void aMissingKeyIsNamed() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> InstanceSettings.from(ConfigFactory.empty()));
    assertEquals("almanac.instances.enabled", e.field());
  }
}

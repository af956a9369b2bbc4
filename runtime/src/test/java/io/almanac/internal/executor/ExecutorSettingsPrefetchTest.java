package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The prefetch's settings and max-pending-results: their defaults, their range, and the keys they
 * replaced refused by name.
 */
class ExecutorSettingsPrefetchTest {

  private static Config config(String lines) {
    return ConfigFactory.parseString(lines).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  @DisplayName("defaults: prefetch-per-slot 4, prefetch-max-job 1s")
  void defaults() {
    ExecutorSettings s = ExecutorSettings.from(config(""));
    assertEquals(4, s.prefetchPerSlot());
    assertEquals(Duration.ofSeconds(1), s.prefetchMaxJob());
    assertEquals(0, ExecutorSettings.from(config("almanac.executor.prefetch-per-slot = 0")).prefetchPerSlot(), "0: off");
  }

  @Test
  @DisplayName("prefetch-per-slot below 0 or above 1024, and a prefetch-max-job of 0, are refused naming the key")
  void range() {
    for (String bad : new String[] {"prefetch-per-slot = -1", "prefetch-per-slot = 1025", "prefetch-max-job = 0s"}) {
      InvalidSpecException e = assertThrows(InvalidSpecException.class,
          () -> ExecutorSettings.from(config("almanac.executor." + bad)));
      assertEquals("almanac.executor." + bad.substring(0, bad.indexOf(' ')), e.field(), e.getMessage());
    }
  }

  @Test
  @DisplayName("the replaced keys start-ahead and start-ahead-max-job are refused, naming their replacements")
  void startAheadRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ExecutorSettings.from(config("almanac.executor.start-ahead = 4096")));
    assertEquals("almanac.executor.start-ahead", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("almanac.executor.prefetch-per-slot"), e.getMessage());
    e = assertThrows(InvalidSpecException.class,
        () -> ExecutorSettings.from(config("almanac.executor.start-ahead-max-job = 1s")));
    assertEquals("almanac.executor.start-ahead-max-job", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("almanac.executor.prefetch-max-job"), e.getMessage());
  }

  @Test
  @DisplayName("max-pending-results: 0 (the default) is 4 x max-concurrent; below max-concurrent it is refused naming the key")
  void maxPendingResults() {
    assertEquals(64, ExecutorSettings.from(config("")).maxPendingResults(), "default: 4 x 16");
    assertEquals(8, ExecutorSettings.from(config("almanac.executor.max-concurrent = 2")).maxPendingResults());
    assertEquals(5, ExecutorSettings.from(config("almanac.executor { max-concurrent = 2, max-pending-results = 5 }"))
        .maxPendingResults());
    for (String bad : new String[] {"max-pending-results = 1", "max-pending-results = -1"}) {
      InvalidSpecException e = assertThrows(InvalidSpecException.class,
          () -> ExecutorSettings.from(config("almanac.executor { max-concurrent = 2, " + bad + " }")));
      assertEquals("almanac.executor.max-pending-results", e.field(), e.getMessage());
      assertTrue(e.getMessage().contains("max-concurrent"), e.getMessage());
    }
  }
}

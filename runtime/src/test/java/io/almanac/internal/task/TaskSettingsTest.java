package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** R33: almanac.task settings are bounded and refused naming the full key and the value. */
class TaskSettingsTest {

  private static Config with(String hocon) {
    return ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load());
  }

  @ParameterizedTest(name = "R33: almanac.task.{0} = ''{1}'' is refused naming the key and the value")
  @CsvSource(delimiter = '|', value = {
      "hot-windows             | 10.5",
      "snapshot-every          | 2.5",
      "repeated-skip-alert     | 1.5",
      "hot-windows             | abc",
      "recent-fire-grace       | 3661d",
      "max-clock-skew          | 3661d",
      "redispatch-after        | 3661d",
      "retention               | 3661d",
      "retention               | 106751991167300d",
      "redispatch-after        | abc",
      "max-pending-publishes   | 0",
      "max-pending-publishes   | 4096",
      "publish-retry-after     | 3661d",
      "stash-capacity          | 1"})
  void refused(String key, String value) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> TaskSettings.from(with("almanac.task." + key + " = \"" + value + "\"")));
    assertEquals("almanac.task." + key, e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith("almanac.task." + key + " '" + value + "' is invalid: "), e.getMessage());
  }

  @Test
  @DisplayName("R33: a TaskSettings duration of Long.MAX_VALUE seconds is refused; the bound itself is accepted")
  void durationsBounded() {
    TaskSettings d = TaskSettings.from(ConfigFactory.load());
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> new TaskSettings(d.hotWindows(),
        d.durationSamples(), d.maxSummaryLength(), d.maxReasonLength(), d.maxArtifactUriLength(),
        d.maxEffectsPerWindow(), d.maxEffectKeyLength(), d.maxEffectValueLength(), d.maxBackfillWindows(),
        d.snapshotEvery(), d.recentFireGrace(), d.maxClockSkew(), huge, d.offerTimeout(), d.repeatedSkipAlert(), d.retention(),
        d.deleteEventsBelowSnapshot(), d.eventIdsKept(), d.maxEventFuture(), d.dependencyPoll(), d.maxPendingPublishes(),
        d.publishRetryAfter(), d.stashCapacity(), d.upstreamAskTimeout(), d.steps(), d.maxResumes()));
    assertTrue(e.getMessage().startsWith("almanac.task.redispatch-after '" + huge + "'"), e.getMessage());
    assertEquals(TaskSettings.MAX_DURATION,
        TaskSettings.from(with("almanac.task.retention = 3660d")).retention());
    assertEquals(12, TaskSettings.from(with("almanac.task { hot-windows = 12.0, max-backfill-windows = 6 }")).hotWindows());
  }

  @Test
  @DisplayName("R30: the hot state's bound is at least twice the largest backfill, so that a backfill and its bulk cancel "
      + "never reach it; below it, refused naming the key and the value; the default holds it")
  void hotWindowsCoverABackfillAndItsCancel() {
    TaskSettings d = TaskSettings.from(ConfigFactory.load());
    assertEquals(2000, d.hotWindows());
    assertTrue(d.hotWindows() >= 2 * d.maxBackfillWindows());
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> TaskSettings.from(with("almanac.task.hot-windows = 1999")));
    assertEquals("almanac.task.hot-windows", e.field());
    assertTrue(e.getMessage().startsWith("almanac.task.hot-windows '1999' is invalid: must be >= 2000, twice "
        + "almanac.task.max-backfill-windows (1000)"), e.getMessage());
    InvalidSpecException raised = assertThrows(InvalidSpecException.class,
        () -> TaskSettings.from(with("almanac.task.max-backfill-windows = 1001")));
    assertEquals("almanac.task.hot-windows", raised.field(), "a larger backfill needs a larger bound");
    assertEquals(1000, TaskSettings.from(with("almanac.task { hot-windows = 1000, max-backfill-windows = 500 }"))
        .hotWindows());
  }
}

package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.junit.jupiter.api.Test;

/** The lease's timing from its configuration block, as Pekko's LeaseProvider passes it. */
class JdbcLeaseTimingTest {

  private static JdbcLease.Timing timing(String hocon) {
    Config config = ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load().getConfig("almanac.lease.jdbc"));
    return JdbcLease.Timing.of(LeaseSettings.apply(config, "almanac-trigger", "pekko://almanac@10.0.0.1:7355"));
  }

  @Test
  void referenceDefaults() {
    JdbcLease.Timing t = timing("");
    assertEquals(Duration.ofSeconds(12), t.interval());
    assertEquals(Duration.ofSeconds(120), t.timeout());
    assertEquals(Duration.ofSeconds(5), t.operationTimeout());
    assertEquals(Duration.ofSeconds(12), t.safetyMargin(), "heartbeat-timeout / 10");
    assertEquals(Duration.ofSeconds(108), t.localValidity());
    assertEquals(5, t.queryTimeoutSeconds());
  }

  @Test
  void anExplicitSafetyMargin() {
    assertEquals(Duration.ofMillis(1500), timing("safety-margin = 1500ms").safetyMargin());
  }

  @Test
  void aMarginThatLeavesNoRoomForAHeartbeatIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> timing("heartbeat-timeout = 10s\nheartbeat-interval = 4s\nsafety-margin = 6s"));
    assertTrue(e.getMessage().contains("lease [almanac-trigger]"), e.getMessage());
    assertTrue(e.getMessage().contains("heartbeat-interval (PT4S) + safety-margin (PT6S)"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> timing("safety-margin = 0s"));
  }

  @Test
  void pekkoRefusesAnIntervalOfHalfTheTimeoutOrMore() {
    assertThrows(IllegalArgumentException.class, () -> timing("heartbeat-timeout = 10s\nheartbeat-interval = 5s"));
  }

  @Test
  void checkSettingsNamesTheLeaseTheKeyThatSelectsItAndTheValues() {
    Config config = ConfigFactory.load(ConfigFactory.parseString("pekko.cluster.singleton.use-lease = \"almanac.lease.jdbc\"\n"
        + "almanac.lease.jdbc { heartbeat-timeout = 10s, heartbeat-interval = 5s }"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JdbcLease.checkSettings(config));
    assertTrue(e.getMessage().startsWith("almanac.lease.jdbc (the lease of pekko.cluster.singleton.use-lease): "), e.getMessage());
    assertTrue(e.getMessage().contains("heartbeat-interval must be less than half heartbeat-timeout"), e.getMessage());
    assertTrue(e.getMessage().contains("almanac.lease.jdbc.heartbeat-timeout = 10s, almanac.lease.jdbc.heartbeat-interval = 5s"),
        e.getMessage());
  }

  @Test
  void checkSettingsIgnoresLeasesNotInUseAndOtherLeaseClasses() {
    // The reference configuration uses no lease: nothing to check, even with bad timing.
    JdbcLease.checkSettings(ConfigFactory.load(ConfigFactory.parseString("almanac.lease.jdbc.heartbeat-interval = 100s")));
    JdbcLease.checkSettings(ConfigFactory.load(ConfigFactory.parseString("pekko.cluster.singleton.use-lease = other-lease\n"
        + "other-lease { lease-class = \"com.example.OtherLease\", heartbeat-timeout = 1s, heartbeat-interval = 1s }")));
  }
}

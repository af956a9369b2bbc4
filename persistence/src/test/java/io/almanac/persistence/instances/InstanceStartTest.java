package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/** Starting the projection and the rebuild: wrong settings are refused naming key and value; off starts nothing. */
class InstanceStartTest {

  @Test
  void theProjectionRefusesAWrongSettingNamingKeyAndValue() {
    ActorTestKit kit = ActorTestKit.create("instances-bad", ConfigFactory.parseString("almanac.instances.gap-wait = -2s")
        .withFallback(ConfigFactory.load()));
    try {
      InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> InstanceProjection.start(kit.system()));
      assertEquals("almanac.instances.gap-wait", e.field());
      assertEquals("PT-2S", e.value());
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void offStartsNothing() {
    ActorTestKit kit = ActorTestKit.create("instances-off", ConfigFactory.parseString("almanac.instances.enabled = off")
        .withFallback(ConfigFactory.load()));
    try {
      InstanceProjection.Handle h = InstanceProjection.start(kit.system());
      assertFalse(h.runningHere());
      assertEquals(Duration.ZERO, h.lag());
      assertEquals(0, h.lagEvents());
      h.stop();
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void theRebuildRefusesAWrongSettingBeforeItTouchesTheDatabase() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> InstanceRebuild.run(
        ConfigFactory.parseString("almanac.instances.batch-size = 0").withFallback(ConfigFactory.load())));
    assertEquals("almanac.instances.batch-size", e.field());
    assertEquals("0", e.value());
  }
}

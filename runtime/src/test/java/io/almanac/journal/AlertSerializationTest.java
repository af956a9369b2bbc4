package io.almanac.journal;

import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.AlertRecord;
import io.almanac.internal.alert.AlertLog;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every event of the alert history's journal and its snapshot ({@link AlertLog.State}) round-trip
 * through the serializer Pekko binds for them, and their committed fixtures ({@code
 * src/test/resources/serialization/AlertLog.<Type>.json}) still read as the same values. Regenerate
 * with {@code -Dalmanac.writeFixtures=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AlertSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  private static final Instant AT = Instant.parse("2026-12-06T10:00:00Z");

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  static Map<String, Object> shapes() {
    Map<String, Object> out = new LinkedHashMap<>();
    AlertLog.AlertRaised raised = new AlertLog.AlertRaised("ec8a167e-887b-35a7-bf60-4af7abe8c53a", Alert.Kind.FINAL_FAILED,
        "daily-digest", "2026-12-06", "window '2026-12-06' of task 'daily-digest' failed for good", AT,
        "pekko://almanac@10.0.0.5:2552");
    AlertLog.AlertDeliveryRecorded delivered = new AlertLog.AlertDeliveryRecorded("ec8a167e-887b-35a7-bf60-4af7abe8c53a",
        "webhook https://hooks.example.com:443", AlertRecord.DeliveryStatus.RETRYING, 1, "status 503", AT.plusSeconds(1));
    out.put("AlertLog.AlertRaised", raised);
    out.put("AlertLog.AlertDeliveryRecorded", delivered);
    out.put("AlertLog.AlertsRecorded", new AlertLog.AlertsRecorded(List.of(raised, delivered)));
    out.put("AlertLog.State", AlertLog.State.empty().evolve(raised).evolve(delivered));
    return out;
  }

  @Test
  void shapesRoundTripAndFixturesRead() throws Exception {
    JournalFixtures.check(serialization, shapes());
  }

  @Test
  @DisplayName("every kind of alert history event has a shape here (a new kind must add its fixture)")
  void everyEventKindHasAFixture() {
    Set<String> kinds = new TreeSet<>();
    EventKindsTest.concreteKinds(AlertLog.Event.class).forEach(c -> kinds.add("AlertLog." + c.getSimpleName()));
    Set<String> shaped = new TreeSet<>(shapes().keySet());
    shaped.remove("AlertLog.State");
    assertEquals(kinds, shaped);
  }
}

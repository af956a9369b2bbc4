package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
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

/**
 * Every event of a pool's journal and its snapshot ({@link PoolState}) round-trip through the
 * serializer Pekko binds for them, and their committed fixtures ({@code
 * src/test/resources/serialization/PoolJournal.<Type>.json}, {@code PoolState.json}) still read as the
 * same values: a persisted shape never changes silently. Every event kind has a fixture. Regenerate
 * with {@code -Dalmanac.writeFixtures=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PoolSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  private static final Instant AT = Instant.parse("2026-12-06T10:00:00Z");
  private static final LocalDate DAY = LocalDate.of(2026, 12, 6);

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  static Map<String, Object> shapes() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("PoolJournal.PoolDeclared", new PoolJournal.PoolDeclared("llm", 2, 60, Duration.ofMinutes(1), "pekko://almanac@10.0.0.1:25520",
        "6f1c", AT));
    out.put("PoolJournal.HoldAcquired", new PoolJournal.HoldAcquired("llm", "report", "2026-12-06", "pekko://almanac@10.0.0.1:25520",
        "6f1c", AT, AT.plusSeconds(30)));
    out.put("PoolJournal.HoldReleased", new PoolJournal.HoldReleased("llm", "report", "2026-12-06", AT.plusSeconds(90)));
    out.put("PoolJournal.HoldsRenewed", new PoolJournal.HoldsRenewed("llm", "pekko://almanac@10.0.0.1:25520", "6f1c", AT,
        AT.plusSeconds(30)));
    out.put("PoolJournal.PoolPaused", new PoolJournal.PoolPaused("llm", AT, AT.plusSeconds(8)));
    out.put("PoolJournal.UsageAdded", new PoolJournal.UsageAdded("llm", DAY, 750_000, AT));
    out.put("PoolJournal.PoolBudgetRaised", new PoolJournal.PoolBudgetRaised("llm", DAY, 1_000_000, "alice", "quarter end", AT));
    out.put("PoolState", snapshot());
    return out;
  }

  static PoolState snapshot() {
    PoolState s = PoolState.empty("llm");
    for (Object e : shapes0()) {
      s = s.evolve((PoolJournal.Event) e);
    }
    return s;
  }

  private static List<Object> shapes0() {
    return List.of(new PoolJournal.PoolDeclared("llm", 2, 60, Duration.ofMinutes(1), "n1", "i1", AT),
        new PoolJournal.HoldAcquired("llm", "report", "2026-12-06", "n1", "i1", AT, AT.plusSeconds(30)),
        new PoolJournal.PoolPaused("llm", AT, AT.plusSeconds(8)),
        new PoolJournal.UsageAdded("llm", DAY, 750_000, AT),
        new PoolJournal.PoolBudgetRaised("llm", DAY, 1_000_000, "alice", null, AT));
  }

  @Test
  @DisplayName("every pool event and the pool's snapshot round-trip, and their committed fixtures still read")
  void shapesRoundTripAndFixturesRead() throws Exception {
    JournalFixtures.check(serialization, shapes());
  }

  @Test
  @DisplayName("every kind of pool event has a shape here (a new kind must add its fixture)")
  void everyEventKindHasAFixture() {
    Set<String> kinds = new TreeSet<>();
    Arrays.stream(PoolJournal.Event.class.getPermittedSubclasses()).forEach(c -> kinds.add("PoolJournal." + c.getSimpleName()));
    Set<String> shaped = new TreeSet<>(shapes().keySet());
    shaped.remove("PoolState");
    assertEquals(kinds, shaped);
  }

  @Test
  @DisplayName("the snapshot keeps what the rule reads: the hold, the start, the pause and the day with its raise")
  void snapshotKeepsWhatTheRuleReads() {
    PoolState s = snapshot();
    assertEquals(1, s.liveHolds(AT));
    assertEquals(List.of(AT), s.starts());
    assertEquals(PoolWaitReason.PAUSED, s.refusal(null, AT).reason());
    assertEquals(new PoolStore.PoolDay("llm", DAY, 750_000, 1, 1_000_000), s.day(DAY));
  }

  @Test
  @DisplayName("a snapshot written before holds kept their start still reads: its holds' since is null")
  void snapshotBeforeSinceReads() throws Exception {
    String old = "{\"pool\":\"llm\",\"maxConcurrent\":2,\"ratePermits\":0,\"holds\":{\"report|2026-12-06\":{\"taskId\":"
        + "\"report\",\"window\":\"2026-12-06\",\"node\":\"n1\",\"incarnation\":\"i1\",\"expiresAt\":\"2026-12-06T10:00:30Z\"}}}";
    PoolState s = PoolState.empty("llm");
    var serializer = (org.apache.pekko.serialization.SerializerWithStringManifest) serialization.findSerializerFor(s);
    PoolState read = (PoolState) serialization.deserialize(old.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        serializer.identifier(), serializer.manifest(s)).get();
    assertEquals(new PoolState.Hold("report", "2026-12-06", "n1", "i1", AT.plusSeconds(30)), read.holds().get("report|2026-12-06"));
  }
}

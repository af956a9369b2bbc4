package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.typesafe.config.ConfigFactory;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.EventTrigger;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The journal's shapes for event, dependency and condition triggers round-trip through the
 * serializer Pekko binds for them, and their committed fixtures ({@code
 * src/test/resources/serialization/<Enclosing>.<Type>.<shape>.json}) still read as the same values:
 * a spec with an event trigger, one with a dependency and a condition, and a snapshot with a WAITING
 * window (its {@code waitUntil}), a window's event tally and the remembered event ids. Fixtures
 * written before these components existed read with them null or empty. The seven new events have
 * their fixtures with the other events ({@code io.almanac.internal.EventSerializationTest}).
 * Regenerate with {@code -Dalmanac.writeFixtures=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TriggerSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  private static final Instant AT = Instant.parse("2026-11-29T00:00:00Z");
  private static final Path DIR = Path.of("src/test/resources/serialization");

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  static SpecRecord eventSpec() {
    return SpecRecord.of(TaskSpec.builder("order-sync").onEvent(EventTrigger.of("order.paid").byArrivalTime())
        .zone("Asia/Shanghai").window("hourly").job("sync").build());
  }

  static SpecRecord dependencyAndConditionSpec() {
    return SpecRecord.of(TaskSpec.builder("daily-report").cron("0 30 0 * * ? Asia/Shanghai").window("daily").job("report")
        .dependsOn(DependencyTrigger.on("order-export", "settlement").any().mapping(DependencyTrigger.Mapping.ALL_WITHIN)
            .waitAtMost(Duration.ofHours(6)).missingUpstream(DependencyTrigger.MissingUpstream.WAIT)
            .onUpstreamRerun(DependencyTrigger.Rerun.RUN_AGAIN))
        .when(ConditionTrigger.named("settlement-file").every(Duration.ofMinutes(1)).timeout(Duration.ofSeconds(20))
            .debounce(3).holdFor(Duration.ofMinutes(5)).waitAtMost(Duration.ofHours(2)))
        .build());
  }

  static TaskJournal.State triggerSnapshot() {
    Instant start = AT.minus(Duration.ofHours(8));
    WindowState waiting = new WindowState("2026-11-29", start, start.plus(Duration.ofDays(1)), AT, InstanceStatus.WAITING,
        RunKind.FIRST, 0, 0, 0, null, null, null, null, null, null, "waiting for upstream order-export (SAME_WINDOW)",
        Map.of(), List.of(), AT, AT, null, AT.plus(Duration.ofHours(6)),
        new WindowState.EventTally(2000, 8000, "evt-0", "evt-9999"));
    Map<String, String> ids = new LinkedHashMap<>();
    ids.put("evt-0", "2026-11-29");
    ids.put("evt-9999", "2026-11-29");
    return new TaskJournal.State(dependencyAndConditionSpec(), false, Map.of("2026-11-29", waiting), null, 0,
        DurationSamples.of(100, List.of(1000L)), null, ids);
  }

  /** The shapes and their fixture names. */
  static Map<String, Object> shapes() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("TaskJournal.SpecDefined.event-trigger", new TaskJournal.SpecDefined(eventSpec(), AT));
    out.put("TaskJournal.SpecDefined.dependency-condition", new TaskJournal.SpecDefined(dependencyAndConditionSpec(), AT));
    out.put("TaskJournal.State.waiting-events", triggerSnapshot());
    return out;
  }

  @Test
  @DisplayName("specs with event, dependency and condition triggers and a snapshot with a WAITING window, an event tally "
      + "and event ids round-trip, and their committed fixtures still read")
  void shapesRoundTripAndFixturesRead() throws Exception {
    JournalFixtures.check(serialization, shapes());
  }

  @Test
  @DisplayName("the spec's triggers survive the record: toSpec gives back the event, dependency and condition")
  void specRecordKeepsTheTriggers() {
    SpecRecord e = eventSpec();
    assertEquals(new SpecRecord.Event("order.paid", EventTrigger.TimeBasis.ARRIVAL_TIME), e.event());
    assertEquals(e, SpecRecord.of(e.toSpec()));
    SpecRecord d = dependencyAndConditionSpec();
    assertEquals(List.of("order-export", "settlement"), d.dependency().upstream());
    assertEquals(DependencyTrigger.Require.ANY, d.dependency().require());
    assertEquals(3, d.condition().debounce());
    assertEquals(d, SpecRecord.of(d.toSpec()));
  }

  @Test
  @DisplayName("fixtures written before the triggers existed read with the new components null or empty")
  void olderFixturesReadWithTheNewComponentsEmpty() throws Exception {
    TaskJournal.State state = (TaskJournal.State) read("TaskJournal.State.v2.json");
    assertEquals(Map.of(), state.eventIds());
    for (WindowState w : state.windows().values()) {
      assertNull(w.waitUntil(), w.toString());
      assertNull(w.events(), w.toString());
    }
    assertNull(state.spec().event());
    assertNull(state.spec().dependency());
    assertNull(state.spec().condition());
    TaskJournal.State removed = (TaskJournal.State) read("TaskJournal.State.removed.json");
    assertEquals(Map.of(), removed.eventIds());
    TaskJournal.SpecDefined spec = (TaskJournal.SpecDefined) read("TaskJournal.SpecDefined.v2.json");
    assertNull(spec.spec().event());
    assertNull(spec.spec().dependency());
    assertNull(spec.spec().condition());
    TaskJournal.SpecDefined v1 = (TaskJournal.SpecDefined) read("TaskJournal.SpecDefined.json");
    assertNull(v1.spec().dependency());
  }

  private Object read(String fixture) throws Exception {
    List<String> lines = Files.readAllLines(DIR.resolve(fixture));
    String manifest = lines.get(0);
    Class<?> type = Class.forName(manifest.contains("#") ? manifest.substring(0, manifest.indexOf('#')) : manifest);
    Serializer serializer = serialization.serializerFor(type);
    return serialization.deserialize(lines.get(1).getBytes(StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
  }
}

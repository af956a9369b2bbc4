package io.almanac.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.InvalidSpecException;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.serialization.jackson.JacksonObjectMapperProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The journal's record of a spec ({@link SpecRecord}) is separate from the API's {@link TaskSpec},
 * but converts to and from it without loss and is written as the same JSON that {@code TaskSpec}
 * was when the journal held it, so journals already written read unchanged. The committed fixtures
 * (written when the journal held {@code TaskSpec}) are the oracle.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpecRecordTest {

  private static final Instant AT = Instant.parse("2026-11-29T00:00:00Z");
  private static final Path FIXTURES = Path.of("src/test/resources/serialization");

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());
  /** The object mapper of the serializer the journal is bound to ({@code jackson-json}). */
  private final ObjectMapper mapper =
      JacksonObjectMapperProvider.get(testKit.system().classicSystem()).getOrCreate("jackson-json", Optional.empty());

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  /** A cron task with every default. */
  static TaskSpec cronSpec() {
    return TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build();
  }

  /** Every component and every policy set to something other than its default. */
  static List<TaskSpec> nonDefaultSpecs() {
    TaskSpec.Builder b = TaskSpec.builder("everything").cron("0 30 2 * * ? America/New_York").window(WindowSpec.HOURLY)
        .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.LAST)).overlap(OverlapPolicy.CANCEL_PREVIOUS)
        .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(6)).withinSpan(Duration.ofHours(24)))
        .lease(LeasePolicy.builder().floor(Duration.ofSeconds(30)).ceiling(Duration.ofHours(6)).factor(2.25).minSamples(5).build())
        .job("everything-job").description("every policy set");
    return List.of(
        b.retry(RetryPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15)).withMaxRetries(7)
            .withinSpan(Duration.ofHours(12))).build(),
        b.retry(RetryPolicy.exponential(Duration.ofSeconds(90), 1.5, Duration.ofHours(1), 0.25)).build(),
        EventSerializationTest.fullSpec());
  }

  static List<TaskSpec> specs() {
    List<TaskSpec> all = new ArrayList<>();
    all.add(cronSpec());
    all.add(EventSerializationTest.oneShotSpec());
    all.addAll(nonDefaultSpecs());
    return all;
  }

  @Test
  @DisplayName("SpecRecord.of(spec).toSpec() is the spec: a cron task, a one-shot task, every policy non-default")
  void convertsWithoutLoss() {
    for (TaskSpec spec : specs()) {
      assertEquals(spec, SpecRecord.of(spec).toSpec(), spec.id());
      assertEquals(SpecRecord.of(spec), SpecRecord.of(SpecRecord.of(spec).toSpec()), spec.id());
    }
  }

  @Test
  @DisplayName("a record is written as the same JSON as its TaskSpec, and that JSON reads as the record")
  void sameJsonAsTaskSpec() throws Exception {
    for (TaskSpec spec : specs()) {
      String old = mapper.writeValueAsString(spec);
      assertEquals(old, mapper.writeValueAsString(SpecRecord.of(spec)), spec.id());
      assertEquals(SpecRecord.of(spec), mapper.readValue(old, SpecRecord.class), spec.id());
    }
  }

  @Test
  @DisplayName("events and snapshots holding records round-trip through the journal's serializer")
  void roundTripsThroughTheJournalSerializer() {
    for (TaskSpec spec : specs()) {
      SpecRecord r = SpecRecord.of(spec);
      for (Object value : List.of(new TaskJournal.SpecDefined(r, AT),
          new TaskJournal.State(r, false, Map.of(), null, 0, io.almanac.journal.DurationSamples.empty(), null),
          new TriggerJournal.TasksRegistered(List.of(r), AT, null),
          new TriggerJournal.State(Map.of(r.id(), r), AT, Set.of(r.id()), null))) {
        Serializer serializer = serialization.findSerializerFor(value);
        String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
        assertEquals(value, serialization.deserialize(serializer.toBinary(value), serializer.identifier(), manifest).get(),
            spec.id() + " in " + value.getClass().getSimpleName());
      }
    }
  }

  /**
   * The committed fixtures of every type holding a spec, written when that spec was a {@code
   * TaskSpec}: the record's JSON has the same properties, in the same order, with the same nesting
   * and encodings. A fixture written before {@code once} existed lacks it; the record writes it as
   * null there, as {@code TaskSpec} did.
   */
  @Test
  @DisplayName("the record's JSON is the spec JSON of the committed fixtures (written when the journal held TaskSpec)")
  void sameJsonAsTheCommittedFixtures() throws Exception {
    SpecRecord full = EventSerializationTest.fullRecord();
    SpecRecord oneShot = SpecRecord.of(EventSerializationTest.oneShotSpec());
    Map<String, SpecRecord> fixtures = Map.of(
        "TaskJournal.SpecDefined.v2.json", full,
        "TaskJournal.SpecDefined.one-shot.json", oneShot,
        "TaskJournal.State.v2.json", full,
        "TaskJournal.State.removed.json", full,
        "TriggerJournal.TasksRegistered.v2.json", full,
        "TriggerJournal.State.v2.json", full);
    int compared = 0;
    for (Map.Entry<String, SpecRecord> f : fixtures.entrySet()) {
      JsonNode written = mapper.readTree(Files.readAllLines(FIXTURES.resolve(f.getKey())).get(1));
      ObjectNode record = (ObjectNode) mapper.readTree(mapper.writeValueAsString(f.getValue()));
      for (JsonNode spec : specsIn(written)) {
        ObjectNode expected = record.deepCopy();
        for (Iterator<String> names = record.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          if (!spec.has(name)) {
            assertTrue(record.get(name).isNull(), f.getKey() + ": the record writes '" + name + "' that the fixture lacks");
            expected.remove(name); // a component added (nullable) after the fixture was written
          }
        }
        assertEquals(spec.toString(), expected.toString(), f.getKey());
        compared++;
      }
    }
    assertEquals(6, compared);
    // One fixture of each kind was written with every component there is today: byte for byte.
    assertEquals(Files.readAllLines(FIXTURES.resolve("TaskJournal.SpecDefined.one-shot.json")).get(1),
        mapper.writeValueAsString(new TaskJournal.SpecDefined(oneShot, AT)));
  }

  private static List<JsonNode> specsIn(JsonNode event) {
    List<JsonNode> out = new ArrayList<>();
    if (event.has("spec")) {
      out.add(event.get("spec"));
    }
    event.path("specs").forEach(out::add);
    event.path("tasks").forEach(out::add);
    assertEquals(1, out.size(), event.toString());
    return out;
  }

  @Test
  @DisplayName("a record missing components reads with TaskSpec's defaults (a cron task's and a one-shot task's)")
  void missingComponentsReadAsTheDefaults() throws Exception {
    SpecRecord cron = mapper.readValue("{\"id\":\"d\",\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\"}", SpecRecord.class);
    TaskSpec cronDefaults = TaskSpec.builder("d").cron("0 0 8 * * ?", "UTC").job(null).buildUnvalidated();
    assertEquals(SpecRecord.of(cronDefaults), cron);
    assertEquals(cronDefaults, cron.toSpec());
    assertEquals(WindowSpec.DAILY.name(), cron.window());
    assertEquals(LeasePolicy.DEFAULT, cron.lease().toPolicy());

    SpecRecord once = mapper.readValue("{\"id\":\"o\",\"once\":\"2026-12-01T08:00:00Z\"}", SpecRecord.class);
    TaskSpec onceDefaults = TaskSpec.builder("o").job(null).once(Instant.parse("2026-12-01T08:00:00Z")).buildUnvalidated();
    assertEquals(SpecRecord.of(onceDefaults), once);
    assertEquals(onceDefaults, once.toSpec());
    assertEquals("UTC", once.zone());
    assertEquals(WindowSpec.PER_FIRING.name(), once.window());

    // A policy missing its span reads as zero, as the policy reads it.
    SpecRecord noSpan = mapper.readValue("{\"id\":\"d\",\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\","
        + "\"catchUp\":{\"mode\":\"ALL\",\"horizon\":\"PT6H\"}}", SpecRecord.class);
    assertEquals(CatchUpPolicy.all().withHorizon(Duration.ofHours(6)), noSpan.catchUp().toPolicy());
    assertEquals(Duration.ZERO, noSpan.catchUp().span());
  }

  @Test
  @DisplayName("R33 toSpec() checks the policies as reading a TaskSpec did: a refused one is named")
  void toSpecChecksThePolicies() throws Exception {
    SpecRecord r = mapper.readValue("{\"id\":\"d\",\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\","
        + "\"retry\":{\"maxRetries\":-1,\"backoff\":\"IMMEDIATE\",\"multiplier\":1.0}}", SpecRecord.class);
    assertNotNull(r, "reading the record never refuses");
    InvalidSpecException e = assertThrows(InvalidSpecException.class, r::toSpec);
    assertTrue(e.getMessage().contains("retry.maxRetries"), e.getMessage());
  }
}

package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.CatchUpOutcome;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.TaskSpecMigration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Journals written before retries and catch-up were separate policies hold a version 1 spec: one
 * {@code backfill} object that decided both. Read through Pekko's serializer (and so through {@link
 * TaskSpecMigration}), each replays to the same behaviour: the fixtures under {@code
 * serialization/v1} are the JSON the version 1 code wrote for each backfill mode (checked against
 * that code when they were committed: it reads and writes them back byte for byte).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpecMigrationTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant DUE = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29";

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());
  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("digest", SETTINGS);

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  /** Reads a committed version 1 SpecDefined as the runtime would replay it. */
  private TaskSpec readV1(String name) throws Exception {
    List<String> lines = Files.readAllLines(Path.of("src/test/resources/serialization/v1/TaskJournal.SpecDefined." + name + ".json"));
    assertEquals("io.almanac.journal.TaskJournal$SpecDefined", lines.get(0), "version 1: no version in the manifest");
    assertTrue(lines.get(1).contains("\"backfill\":{"), "a version 1 spec");
    Serializer serializer = serialization.serializerFor(TaskJournal.SpecDefined.class);
    Object read = serialization.deserialize(lines.get(1).getBytes(StandardCharsets.UTF_8), serializer.identifier(),
        lines.get(0)).get();
    TaskSpec spec = ((TaskJournal.SpecDefined) read).spec().toSpec(); // the policies checked, as the entity reads them
    // Written again today, it is a version 2 spec, and reads back unchanged.
    TaskJournal.SpecDefined again = new TaskJournal.SpecDefined(SpecRecord.of(spec), Instant.EPOCH);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(again);
    assertEquals("io.almanac.journal.TaskJournal$SpecDefined#" + TaskSpecMigration.VERSION, manifest);
    String json = new String(serializer.toBinary(again), StandardCharsets.UTF_8);
    assertFalse(json.contains("backfill"), json);
    assertEquals(again, serialization.deserialize(serializer.toBinary(again), serializer.identifier(), manifest).get());
    return spec;
  }

  private State replayed(TaskSpec spec) {
    return RetryAndCatchUpTest.fold(State.empty(20), List.of(new TaskJournal.SpecDefined(SpecRecord.of(spec), DUE.minus(Duration.ofDays(1)))));
  }

  /** Every attempt fails as soon as it starts: the delays of the retries and the final reason. */
  private List<String> failUntilFinal(TaskSpec spec) {
    State s = replayed(spec);
    s = RetryAndCatchUpTest.fold(s, fires.fire(s, new Fire(WindowKey.of(W), DUE.minus(Duration.ofHours(8)),
        DUE.plus(Duration.ofHours(16)), DUE, FireKind.ON_TIME, null), DUE).events());
    Instant now = DUE;
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      s = RetryAndCatchUpTest.fold(s, attempts.start(s, WindowKey.of(W), "node-1", now).events());
      List<Event> after = attempts.finish(s, new TaskProtocol.FinishAttempt(WindowKey.of(W), s.windows().get(W).attempt(),
          JobResult.failure("tool timeout"), Duration.ofSeconds(1), null), now).events();
      s = RetryAndCatchUpTest.fold(s, after);
      if (s.windows().get(W).status() == InstanceStatus.FINAL_FAILED) {
        String reason = after.stream().filter(InstanceFinalFailed.class::isInstance).map(e -> ((InstanceFinalFailed) e).reason())
            .findFirst().orElseThrow();
        out.add("final: " + reason.substring(0, reason.indexOf(';')));
        return out;
      }
      RetryScheduled r = (RetryScheduled) after.stream().filter(RetryScheduled.class::isInstance).findFirst().orElseThrow();
      out.add(Duration.between(now, r.dueAt()).toString());
      now = r.dueAt();
      s = RetryAndCatchUpTest.fold(s, attempts.dueRetries(s, now));
    }
    throw new AssertionError("never final: " + out);
  }

  /** A window missed 4 hours ago (daily, started 12 hours ago), handed over as a catch-up. */
  private Decision catchUpOf(TaskSpec spec, List<Event> events) {
    Instant now = DUE.plus(Duration.ofHours(4));
    Decided<CatchUpOutcome> d = fires.catchUp(replayed(spec),
        List.of(new DueFire(WindowKey.of(W), DUE.minus(Duration.ofHours(8)), DUE.plus(Duration.ofHours(16)), DUE)), now);
    events.addAll(d.events());
    return d.reply().apply(replayed(spec)).outcomes().get(0).decision();
  }

  @Test
  @DisplayName("R12/R13/R15 version 1 backfill DELAYED 5, 15, 30 min with 3 retries: retried 3 times after those delays, and caught up")
  void delayedWithThreeRetries() throws Exception {
    TaskSpec spec = readV1("delayed-3");
    assertEquals(RetryPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)), spec.retry());
    assertEquals(3, spec.retry().maxRetries());
    assertEquals(CatchUpPolicy.all(), spec.catchUp());
    assertEquals(List.of("PT5M", "PT15M", "PT30M", "final: retry cap 3 reached"), failUntilFinal(spec));
    assertEquals(Decision.SCHEDULED, catchUpOf(spec, new ArrayList<>()));
  }

  @Test
  @DisplayName("R12 version 1 backfill NONE (with the old default of 3 retries): no retries and no catch-up")
  void noneMeansNoRetriesAndNoCatchUp() throws Exception {
    TaskSpec spec = readV1("none");
    assertEquals(RetryPolicy.none(), spec.retry());
    assertEquals(0, spec.retry().maxRetries(), "the old cap of 3 never applied without backfill");
    assertEquals(CatchUpPolicy.none(), spec.catchUp());
    assertEquals(List.of("final: not retried: the task is not marked for retry (max retries 0, R12)"), failUntilFinal(spec));
    List<Event> events = new ArrayList<>();
    assertEquals(Decision.MISSED, catchUpOf(spec, events));
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, ((WindowMissed) events.get(0)).reason());
  }

  @Test
  @DisplayName("R13 version 1 backfill IMMEDIATE with 2 retries: 2 immediate retries, and caught up")
  void immediate() throws Exception {
    TaskSpec spec = readV1("immediate-2");
    assertEquals(RetryPolicy.immediate().withMaxRetries(2), spec.retry());
    assertEquals(CatchUpPolicy.all(), spec.catchUp());
    assertEquals(List.of("PT0S", "PT0S", "final: retry cap 2 reached"), failUntilFinal(spec));
    assertEquals(Decision.SCHEDULED, catchUpOf(spec, new ArrayList<>()));
  }

  @Test
  @DisplayName("R13 version 1 backfill WINDOWED 24 h: immediate retries and catch-up, both only within 24 h of the window's start")
  void windowed() throws Exception {
    TaskSpec spec = readV1("windowed-24h");
    assertEquals(RetryPolicy.immediate().withinSpan(Duration.ofHours(24)), spec.retry());
    assertEquals(CatchUpPolicy.all().withinSpan(Duration.ofHours(24)), spec.catchUp());
    assertEquals(List.of("PT0S", "PT0S", "PT0S", "final: retry cap 3 reached"), failUntilFinal(spec));
    assertEquals(Decision.SCHEDULED, catchUpOf(spec, new ArrayList<>()));
    // 25 h after the window's start (its local midnight): past the span, neither retried nor caught up.
    Instant late = DUE.plus(Duration.ofHours(17));
    assertTrue(spec.retry().retryDueAt(1, late, DUE.minus(Duration.ofHours(8)), 0).isEmpty());
    assertFalse(spec.catchUp().allowsCatchUpAt(late, DUE.minus(Duration.ofHours(8))));
  }
}

package io.almanac.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.journal.DurationSamples;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.serialization.jackson.JacksonJsonSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every event and snapshot type round-trips through the serializer Pekko binds for it (Jackson
 * JSON). The list of fixtures is checked against the event types the entity declares, so a new
 * event cannot be added without a serialization test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  private static final Instant AT = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29";

  /**
   * A spec with every component set. It is also what the committed fixtures of the version 1 spec
   * (backfill DELAYED exponential 5 min x2 up to 1 h, jitter 0.1, 5 retries, horizon 6 h) read as.
   */
  static TaskSpec fullSpec() {
    return TaskSpec.builder("daily-digest").cron("0 0 8 * * ?", "Asia/Shanghai").window(WindowSpec.HOURLY.name())
        .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.BOTH)).overlap(OverlapPolicy.BUFFER_ONE)
        .retry(RetryPolicy.exponential(Duration.ofMinutes(5), 2.0, Duration.ofHours(1), 0.1).withMaxRetries(5))
        .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(6)))
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(2)).ceiling(Duration.ofHours(1)).factor(1.5).minSamples(10).build())
        .job("news-digest").description("the field report's 08:00 digest").buildUnvalidated();
  }

  /** {@link #fullSpec()} as the journal holds it. */
  static SpecRecord fullRecord() {
    return SpecRecord.of(fullSpec());
  }

  static List<TaskJournal.Event> fixtures() {
    Instant start = AT.minus(Duration.ofHours(8));
    Instant end = start.plus(Duration.ofDays(1));
    return List.of(
        new TaskJournal.SpecDefined(fullRecord(), AT),
        new TaskJournal.TaskPaused(AT),
        new TaskJournal.TaskResumed(AT),
        new TaskJournal.TaskRemoved(AT),
        new TaskJournal.InstanceScheduled(W, start, end, AT, RunKind.BACKFILL, AT),
        new TaskJournal.FireSkipped(W, start, end, AT, SkipReason.PREVIOUS_RUNNING, "window 2026-11-28 is RUNNING", AT),
        new TaskJournal.WindowMissed(W, start, end, AT, MissReason.OUTSIDE_HORIZON, "older than PT24H", AT),
        new TaskJournal.SkipRangeOpened(W, start, end, AT, InstanceStatus.SKIPPED, SkipReason.PREVIOUS_RUNNING, null,
            "window 2026-11-28 is RUNNING", AT),
        new TaskJournal.SkipRangeClosed(W, "2026-12-02", start.plus(Duration.ofDays(3)), AT.plus(Duration.ofDays(3)), 4,
            AT.plus(Duration.ofDays(4)), "PREVIOUS_RUNNING: window 2026-11-28 is RUNNING"),
        new TaskJournal.WindowsSkipped(W, start, end, AT, "2026-12-02", start.plus(Duration.ofDays(3)),
            AT.plus(Duration.ofDays(3)), 4, InstanceStatus.MISSED, null, MissReason.BACKFILL_NOT_ALLOWED,
            "catch-up mode NONE", AT.plus(Duration.ofDays(4))),
        new TaskJournal.AttemptStarted(W, 2, RunKind.RETRY, AT.plusSeconds(90), "pekko://almanac@127.0.0.1:25520#42", AT),
        new TaskJournal.WindowStarted(W, start, end, AT, RunKind.FIRST, 1, AT.plusSeconds(90),
            "pekko://almanac@127.0.0.1:25520#42", AT),
        new TaskJournal.LeaseExtended(W, 2, AT.plusSeconds(180), AT),
        new TaskJournal.AttemptSucceeded(W, 2, Duration.ofMillis(123_456), "12 items", "s3://b/k", AT),
        new TaskJournal.AttemptFailed(W, 2, Duration.ofSeconds(7), "tool timeout", AT),
        new TaskJournal.AttemptTimedOut(W, 2, AT.plusSeconds(90), Duration.ofSeconds(90), AT),
        new TaskJournal.AttemptInterrupted(W, 2, io.almanac.InterruptCause.NODE_STOPPED,
            "executor node-1#2 stopped: shutdown grace PT25S ended with the job running", AT),
        new TaskJournal.LateResultRecorded(W, 1, JobResult.Outcome.SUCCEEDED, "after the lease", AT),
        new TaskJournal.RetryScheduled(W, 1, AT.plusSeconds(300), AT),
        new TaskJournal.InstanceFinalFailed(W, "retry cap 3 reached", AT),
        new TaskJournal.InstanceResolved(W, "sent by hand", AT),
        new TaskJournal.InstanceCancelled(W, 1, "operator", AT),
        new TaskJournal.EffectIntended(W, 1, "push:wechat", AT),
        new TaskJournal.EffectRecorded(W, 1, "push:wechat", "msg-1", AT),
        new TaskJournal.StepRecorded(W, 1, "draft", "com.example.Draft", "{\"text\":\"Dear team\",\"tokens\":42}",
            new io.almanac.journal.UsageRecord("gpt-x", 1200, 300, 25_000), Duration.ofMillis(8_250), AT),
        new TaskJournal.StepsReplayed(W, 2, List.of("gather", "draft"), AT),
        new TaskJournal.EventReceived(W, "order.paid", "evt-1234", AT.minusSeconds(30), "order 1234 paid", AT),
        new TaskJournal.EventDuplicated(W, "evt-1234", AT),
        new TaskJournal.WindowWaiting(W, start, end, AT, RunKind.FIRST, "upstream order-export (SAME_WINDOW)",
            AT.plus(Duration.ofHours(6)), AT),
        new TaskJournal.WaitSatisfied(W, "upstream order-export succeeded for 2026-11-29", AT),
        new TaskJournal.WaitEnded(W, SkipReason.DEPENDENCY_NOT_MET, "upstream order-export window 2026-11-29 is FAILED", AT),
        new TaskJournal.ConditionCheckFailed(W, "settlement-file", "timed out after PT10S", AT),
        new TaskJournal.UpstreamRerunRecorded(W, "order-export", W, "KEPT", "the window succeeded: no window succeeds twice",
            AT),
        new TaskJournal.PoolWaited(W, "openai", io.almanac.PoolWaitReason.PAUSED, AT.plusSeconds(30), AT),
        new TaskJournal.DeadlineMissed(W, AT, AT.plus(Duration.ofHours(1)), InstanceStatus.RUNNING, 2,
            AT.plus(Duration.ofHours(1))),
        new TaskJournal.BudgetRaised(java.time.LocalDate.of(2026, 11, 29), 2_500_000, 7_500_000, "month-end report", AT),
        new TaskJournal.AttemptLogged(W, 2, List.of(new io.almanac.journal.LogLine(AT.minusSeconds(3),
            io.almanac.JobLog.Level.INFO, "fetched 12 articles"), new io.almanac.journal.LogLine(AT.minusSeconds(1),
            io.almanac.JobLog.Level.WARN, "model answered 429, waiting")), 3,
            "java.lang.IllegalStateException: tool 'search' failed\n\tat demo.Agent.run(Agent.java:42)", AT));
  }

  static TaskJournal.State snapshot() {
    WindowState w = new WindowState(W, AT.minus(Duration.ofHours(8)), AT.plus(Duration.ofHours(16)), AT,
        InstanceStatus.RETRY_WAIT, RunKind.RETRY, 2, 1, 2, AT.minusSeconds(60), null, "pekko://almanac@127.0.0.1:25520#42",
        AT.plusSeconds(300), null, null, "tool timeout", Map.of("push:wechat", "msg-1"), List.of("push:email"), AT,
        AT.plusSeconds(5), null); // skipReason: absent from snapshots written before it existed, read as null

    return new TaskJournal.State(fullRecord(), true, Map.of(W, w), AT.minus(Duration.ofDays(30)), 42,
        DurationSamples.of(100, List.of(1000L, 2000L, 3000L)), null); // removedAt: absent from snapshots before it existed
  }

  /** The snapshot of a task with a budget whose day has usage, a raise and budget skips. */
  static TaskJournal.State usageSnapshot() {
    TaskJournal.State s = snapshot();
    return new TaskJournal.State(s.spec(), false, s.windows(), s.archivedThrough(), s.archivedCount(), s.samples(), null,
        Map.of(), null, new io.almanac.journal.BudgetDay(java.time.LocalDate.of(2026, 11, 29), 12_000, 1_500, 5_420_000, 3,
            2_500_000, 1));
  }

  /** The snapshot of a removed task: its spec and history kept, removedAt set. */
  static TaskJournal.State removedSnapshot() {
    TaskJournal.State s = snapshot();
    return new TaskJournal.State(s.spec(), false, s.windows(), s.archivedThrough(), s.archivedCount(), s.samples(),
        AT.plusSeconds(60));
  }

  /** The trigger's events and snapshot. */
  static List<Object> triggerFixtures() {
    return List.of(
        new TriggerJournal.TasksRegistered(List.of(fullRecord()), AT, null),
        new TriggerJournal.Progressed(AT, List.of("daily-digest"), List.of("other"), AT),
        new TriggerJournal.TaskSetAside("daily-digest", "window spec 'w': the window of the firing at " + AT
            + " cannot be computed: IllegalStateException: boom", AT),
        new TriggerJournal.TaskRemoved("daily-digest", AT),
        new TriggerJournal.State(Map.of("daily-digest", fullRecord()), AT, java.util.Set.of("daily-digest"), null),
        new TriggerJournal.HandedOver(AT, "pekko://almanac@127.0.0.1:25520", AT.plusSeconds(1)));
  }

  @Test
  @DisplayName("the trigger's events and snapshot round-trip unchanged")
  void triggerTypesRoundTrip() {
    for (Object value : triggerFixtures()) {
      assertEquals(value, roundTrip(value), value.getClass().getSimpleName());
    }
    Set<Class<?>> declared = Arrays.stream(TriggerJournal.class.getDeclaredClasses())
        .filter(c -> (TriggerJournal.Event.class.isAssignableFrom(c) || c == TriggerJournal.State.class) && !c.isInterface())
        .collect(Collectors.toSet());
    assertEquals(declared, triggerFixtures().stream().map(Object::getClass).collect(Collectors.toSet()));
  }

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  private Object roundTrip(Object value) {
    Serializer serializer = serialization.findSerializerFor(value);
    assertTrue(serializer instanceof JacksonJsonSerializer, value.getClass() + " must be bound to Jackson JSON, is " + serializer);
    byte[] bytes = serializer.toBinary(value);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
    return serialization.deserialize(bytes, serializer.identifier(), manifest).get();
  }

  /**
   * The committed fixtures: the JSON each event and snapshot type was written as. Reading them with
   * today's code must give today's fixture objects, so a renamed type, field or enum constant fails
   * here before it breaks a user's journal. A type with a migration is written with its version in
   * the manifest ({@code ...$SpecDefined#2}); its fixture is {@code <Type>.v<version>.json}, and the
   * fixtures of its older versions stay, read by {@link #fixturesOfOlderVersionsStillRead}. After an
   * intended, migrated change, regenerate them with {@code mvn -pl runtime test
   * -Dtest=EventSerializationTest -Dalmanac.writeFixtures=true}.
   */
  @Test
  @DisplayName("committed JSON fixtures of every event and of the snapshot still read as the same values")
  void committedFixturesStillRead() throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    boolean write = Boolean.getBoolean("almanac.writeFixtures");
    List<Object> all = new java.util.ArrayList<>(fixtures());
    all.add(snapshot());
    all.addAll(triggerFixtures());
    for (Object value : all) {
      Serializer serializer = serialization.findSerializerFor(value);
      String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
      java.nio.file.Path file = dir.resolve(fixtureName(value, manifest));
      if (write) {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(file, manifest + "\n" + new String(serializer.toBinary(value),
            java.nio.charset.StandardCharsets.UTF_8) + "\n");
        continue;
      }
      assertTrue(java.nio.file.Files.exists(file), "missing fixture " + file + ": regenerate with -Dalmanac.writeFixtures=true");
      List<String> lines = java.nio.file.Files.readAllLines(file);
      assertEquals(manifest, lines.get(0), "the manifest (class name) of " + file + " changed: a rename needs a migration");
      Object read = serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          serializer.identifier(), lines.get(0)).get();
      assertEquals(value, read, file + " no longer reads as the same value: a changed field needs a migration");
    }
  }

  /** {@code TaskJournal.SpecDefined.json}, or {@code TaskJournal.SpecDefined.v2.json} for a versioned manifest. */
  private static String fixtureName(Object value, String manifest) {
    int hash = manifest.indexOf('#');
    String version = hash < 0 ? "" : ".v" + manifest.substring(hash + 1);
    return value.getClass().getEnclosingClass().getSimpleName() + "." + value.getClass().getSimpleName() + version + ".json";
  }

  /**
   * The types that hold a spec are at version 2 ({@link io.almanac.journal.TaskSpecMigration}): their
   * fixtures of version 1, committed before (a {@code backfill} object in the spec, no version in the
   * manifest), read as today's values, with the same retry and catch-up behaviour.
   */
  @Test
  @DisplayName("events and snapshots holding a version 1 spec (one backfill policy) still read, as the same behaviour")
  void fixturesOfOlderVersionsStillRead() throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    List<Object> specHolders = List.of(fixtures().get(0), snapshot(), triggerFixtures().get(0), triggerFixtures().get(4));
    for (Object value : specHolders) {
      Serializer serializer = serialization.findSerializerFor(value);
      String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
      assertTrue(manifest.endsWith("#" + io.almanac.journal.TaskSpecMigration.VERSION), manifest);
      java.nio.file.Path file = dir.resolve(fixtureName(value, manifest.substring(0, manifest.indexOf('#'))));
      List<String> lines = java.nio.file.Files.readAllLines(file);
      assertEquals(value.getClass().getName(), lines.get(0), "version 1: no version in the manifest of " + file);
      assertTrue(lines.get(1).contains("\"backfill\":{\"mode\":\"DELAYED\""), file + " holds the version 1 spec");
      Object read = serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          serializer.identifier(), lines.get(0)).get();
      assertEquals(value, read, file + " must read as today's " + value.getClass().getName());
    }
  }

  /**
   * Journals written before the journal's types moved to {@code io.almanac.journal} hold the old
   * class names ({@code TaskEntity.*.json} here, committed before the move): they read as today's
   * values through {@link io.almanac.journal.JournalRenames}.
   */
  @Test
  @DisplayName("events and snapshots written under the old class names (io.almanac.internal.TaskEntity$...) still read")
  void journalsWrittenBeforeTheMoveStillRead() throws Exception {
    List<Object> today = new java.util.ArrayList<>(fixtures());
    today.removeIf(v -> AFTER_THE_MOVE.contains(v.getClass()));
    today.add(snapshot());
    assertEquals(19, readUnderOldNames("TaskEntity", today), "18 event types and the snapshot");
  }

  /** Types added after the journal's types moved: they were never written under the old names. */
  private static final Set<Class<?>> AFTER_THE_MOVE = Set.of(TaskJournal.AttemptInterrupted.class, TaskJournal.TaskRemoved.class, TriggerJournal.TaskRemoved.class,
      TriggerJournal.HandedOver.class, TaskJournal.EventReceived.class, TaskJournal.EventDuplicated.class,
      TaskJournal.WindowWaiting.class, TaskJournal.WaitSatisfied.class, TaskJournal.WaitEnded.class,
      TaskJournal.ConditionCheckFailed.class, TaskJournal.UpstreamRerunRecorded.class, TaskJournal.WindowStarted.class,
      TaskJournal.PoolWaited.class,
      TaskJournal.DeadlineMissed.class,
      TaskJournal.BudgetRaised.class, TaskJournal.StepRecorded.class, TaskJournal.StepsReplayed.class,
      TaskJournal.AttemptLogged.class, TaskJournal.SkipRangeOpened.class, TaskJournal.SkipRangeClosed.class,
      TaskJournal.WindowsSkipped.class);

  /**
   * The trigger's journals written before its types moved from {@code TriggerActor} to {@code
   * io.almanac.journal.TriggerJournal} ({@code TriggerActor.*.json} here, committed before the
   * move) read as today's values through {@link io.almanac.journal.JournalRenames}.
   */
  @Test
  @DisplayName("the trigger's events and snapshot written under the old class names (io.almanac.internal.TriggerActor$...) still read")
  void triggerJournalsWrittenBeforeTheMoveStillRead() throws Exception {
    List<Object> today = new java.util.ArrayList<>(triggerFixtures());
    today.removeIf(v -> AFTER_THE_MOVE.contains(v.getClass()));
    assertEquals(4, readUnderOldNames("TriggerActor", today), "3 event types and the snapshot");
  }

  /** Reads each value's pre-move fixture {@code <oldClass>.<Name>.json}; returns how many read as the value. */
  private int readUnderOldNames(String oldClass, List<Object> today) throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    int read = 0;
    for (Object value : today) {
      java.nio.file.Path file = dir.resolve(oldClass + "." + value.getClass().getSimpleName() + ".json");
      assertTrue(java.nio.file.Files.exists(file), "missing pre-move fixture " + file);
      List<String> lines = java.nio.file.Files.readAllLines(file);
      assertEquals("io.almanac.internal." + oldClass + "$" + value.getClass().getSimpleName(), lines.get(0));
      Serializer serializer = serialization.findSerializerFor(value);
      Object old = serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          serializer.identifier(), lines.get(0)).get();
      assertEquals(value, old, file + " must read as today's " + value.getClass().getName());
      read++;
    }
    return read;
  }

  /** A one-shot task's spec (its instant in {@code once}, no cron), as its SpecDefined is written. */
  static TaskJournal.SpecDefined oneShotSpecDefined() {
    return new TaskJournal.SpecDefined(SpecRecord.of(oneShotSpec()), AT);
  }

  /** A one-shot task's spec: its instant in {@code once}, no cron. */
  static TaskSpec oneShotSpec() {
    return TaskSpec.builder("launch").once(Instant.parse("2026-12-01T08:00:00Z"))
        .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(1))).job("launch-job")
        .description("run once").build();
  }

  /**
   * Shapes of a type beyond its {@link #fixtures()} value, each with its own committed fixture
   * {@code <Enclosing>.<Type>.<shape>.json}, so a renamed component of that shape fails here: a
   * one-shot task's spec ({@code once} set, no cron), a removed task's snapshot ({@code
   * removedAt} set) and a registration whose windows are fired from an earlier instant ({@code
   * since} set) and the trigger's snapshot after a hand-over ({@code handedOverAt} set). Written with
   * the other fixtures under {@code -Dalmanac.writeFixtures=true}.
   */
  static Map<String, Object> shapes() {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.putAll(Map.of("one-shot", oneShotSpecDefined(), "removed", removedSnapshot(),
        "budget", new TaskJournal.SpecDefined(SpecRecord.of(TaskSpec.builder("llm-digest").cron("0 0 8 * * ? Europe/Berlin")
            .budgetPerDay(new java.math.BigDecimal("5.00")).build()), AT),
        "usage", usageSnapshot(),
        "since", new TriggerJournal.TasksRegistered(List.of(fullRecord()), AT, AT.minusSeconds(9)),
        "handed-over", new TriggerJournal.State(Map.of("daily-digest", fullRecord()), AT, java.util.Set.of("daily-digest"),
            AT.plusSeconds(1)),
        "pools", new TaskJournal.SpecDefined(SpecRecord.of(TaskSpec.builder("digest").cron("0 0 8 * * ? UTC")
            .pools("openai", "search").buildUnvalidated()), AT),
        "deadlines", deadlinesSnapshot(),
        "deadline-spec", new TaskJournal.SpecDefined(deadlinesSnapshot().spec(), AT)));
    m.putAll(Map.of(        "schedules", new TaskJournal.SpecDefined(SpecRecord.of(richScheduleSpec()), AT),
        "excluded", new TaskJournal.FireSkipped("2027-02-10", AT, AT.plusSeconds(86_400), AT, io.almanac.SkipReason.EXCLUDED,
            "due date 2027-02-10 is in exclusion calendar holidays-cn-2027 (2027-02-10..2027-02-16)", AT)));
    m.put("pool-wait-usage", poolWaitUsageSnapshot());
    m.put("skip-ranges", skipRangesSnapshot());
    // a traced node's start (docs/tracing.md): the attempt span's trace context, kept by the window for the next attempt
    m.put("traced", new TaskJournal.AttemptStarted(W, 2, RunKind.RETRY, AT.plusSeconds(90),
        "pekko://almanac@127.0.0.1:25520#42", AT, TRACEPARENT));
    m.put("traced-start", new TaskJournal.WindowStarted(W, AT.minus(Duration.ofHours(8)), AT.plus(Duration.ofHours(16)), AT,
        RunKind.FIRST, 1, AT.plusSeconds(90), "pekko://almanac@127.0.0.1:25520#42", AT, TRACEPARENT));
    m.put("traced-window", tracedSnapshot());
    return m;
  }

  /** A W3C trace context as a traced node records it with an attempt's start. */
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** The snapshot of a task whose window keeps its last attempt's trace context. */
  static TaskJournal.State tracedSnapshot() {
    TaskJournal.State s = snapshot();
    WindowState w = s.windows().get(W);
    WindowState traced = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), w.status(), w.runKind(), w.attempt(),
        w.retries(), w.resultAttempt(), w.startedAt(), w.leaseUntil(), w.executor(), w.retryDueAt(), w.summary(),
        w.artifactUri(), w.reason(), w.effects(), w.pendingEffects(), w.createdAt(), w.updatedAt(), w.skipReason(),
        w.waitUntil(), w.events(), w.deadlineMissedAt(), w.poolWait(), w.usage(), w.version(), w.steps(), w.interruptions(),
        w.missReason(), io.almanac.EndCause.JOB_FAILED, TRACEPARENT);
    return new TaskJournal.State(s.spec(), true, Map.of(W, traced), s.archivedThrough(), s.archivedCount(), s.samples(),
        null);
  }

  @Test
  @DisplayName("an attempt's start written before trace contexts were recorded reads with none, and a start without "
      + "one writes no traceparent (an untraced node's events are as before)")
  void traceparentIsOptional() throws Exception {
    TaskJournal.AttemptStarted untraced = (TaskJournal.AttemptStarted) fixtures().stream()
        .filter(e -> e instanceof TaskJournal.AttemptStarted).findFirst().orElseThrow();
    assertEquals(null, untraced.traceparent());
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    List<String> committed = java.nio.file.Files.readAllLines(dir.resolve("TaskJournal.AttemptStarted.json"));
    Serializer serializer = serialization.findSerializerFor(untraced);
    Object read = serialization.deserialize(committed.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
        serializer.identifier(), committed.get(0)).get();
    assertEquals(untraced, read, "the committed start (no traceparent) reads as a start without one");
    assertFalse(new String(serializer.toBinary(untraced), java.nio.charset.StandardCharsets.UTF_8).contains("traceparent"));
    assertFalse(new String(serializer.toBinary(snapshot()), java.nio.charset.StandardCharsets.UTF_8).contains("traceparent"));
    assertEquals(TRACEPARENT, ((TaskJournal.AttemptStarted) shapes().get("traced")).traceparent());
  }

  /** The snapshot of a task with an open skip range and a recent closed one (docs/skip-ranges.md). */
  static TaskJournal.State skipRangesSnapshot() {
    TaskJournal.State s = snapshot();
    io.almanac.journal.SkipRange closed = new io.almanac.journal.SkipRange(W, AT.minus(Duration.ofHours(8)), AT, "2026-12-02",
        AT.plus(Duration.ofDays(3)).minus(Duration.ofHours(8)), AT.plus(Duration.ofDays(3)), 4, InstanceStatus.MISSED, null,
        MissReason.BACKFILL_NOT_ALLOWED, "catch-up mode NONE", AT.plus(Duration.ofDays(4)), AT.plus(Duration.ofDays(4)));
    io.almanac.journal.SkipRange open = new io.almanac.journal.SkipRange("2026-12-05", AT.plus(Duration.ofDays(6)),
        AT.plus(Duration.ofDays(6)), null, null, null, 0, InstanceStatus.SKIPPED, SkipReason.PAUSED, null, "paused by an operator",
        AT.plus(Duration.ofDays(6)), null);
    return new TaskJournal.State(s.spec(), true, s.windows(), s.archivedThrough(), s.archivedCount(), s.samples(), null,
        Map.of(), null, null, open, List.of(closed));
  }

  /** A spec with every part of a richer schedule (docs/schedules.md): two crons, bounds, a calendar, jitter. */
  static TaskSpec richScheduleSpec() {
    return TaskSpec.builder("weekday-report").cron("0 0 9 ? * MON-FRI", "Asia/Shanghai").alsoCron("0 0 9 1 * ?")
        .window(WindowSpec.DAILY).from("2027-01-01").until("2027-03-31")
        .exclude(io.almanac.ExclusionCalendar.of("holidays-cn-2027", "2027-01-01", "2027-02-10..2027-02-16"))
        .jitter(Duration.ofMinutes(5)).job("report").build();
  }

  /**
   * The snapshot of a task with a deadline and pause on failure: its spec with both, a window whose
   * deadline was recorded missed ({@code deadlineMissedAt}), and the streak of failures that paused it.
   */
  static TaskJournal.State deadlinesSnapshot() {
    TaskJournal.State s = snapshot();
    SpecRecord spec = SpecRecord.of(TaskSpec.builder("daily-digest").cron("0 0 8 * * ?", "Asia/Shanghai").job("news-digest")
        .deadline(Duration.ofHours(1)).pauseAfterFailures(3).buildUnvalidated());
    WindowState w = s.windows().get(W);
    WindowState missed = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), w.status(), w.runKind(), w.attempt(),
        w.retries(), w.resultAttempt(), w.startedAt(), w.leaseUntil(), w.executor(), w.retryDueAt(), w.summary(),
        w.artifactUri(), w.reason(), w.effects(), w.pendingEffects(), w.createdAt(), w.updatedAt(), w.skipReason(), null,
        null, AT.plus(Duration.ofHours(1)));
    return new TaskJournal.State(spec, true, Map.of(W, missed), s.archivedThrough(), s.archivedCount(), s.samples(), null,
        Map.of(), new TaskJournal.FailureStreak(3, "2026-11-27", W, AT.plusSeconds(5)), null);
  }

  /**
   * The snapshot of a task with a PENDING window that waits for a pool ({@code poolWait}) and whose
   * earlier attempt reported usage ({@code usage}, the window's sum).
   */
  static TaskJournal.State poolWaitUsageSnapshot() {
    TaskJournal.State s = snapshot();
    WindowState w = s.windows().get(W);
    WindowState waiting = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), InstanceStatus.PENDING, w.runKind(),
        w.attempt(), w.retries(), w.resultAttempt(), w.startedAt(), null, null, null, null, null,
        "waiting for pool openai: PAUSED until " + AT.plusSeconds(30), w.effects(), w.pendingEffects(), w.createdAt(),
        w.updatedAt(), null, null, null, null,
        new WindowState.PoolWait("openai", io.almanac.PoolWaitReason.PAUSED, AT.plusSeconds(30), AT),
        new io.almanac.journal.UsageRecord("gpt-4o", 1200, 340, 21_500));
    return new TaskJournal.State(s.spec(), false, Map.of(W, waiting), s.archivedThrough(), s.archivedCount(), s.samples(),
        null);
  }

  @Test
  @DisplayName("R1/R31: a one-shot spec and a removed task's snapshot round-trip, and their committed fixtures still read")
  void shapeFixturesStillRead() throws Exception {
    boolean write = Boolean.getBoolean("almanac.writeFixtures");
    for (Map.Entry<String, Object> shape : shapes().entrySet()) {
      Object value = shape.getValue();
      assertEquals(value, roundTrip(value), shape.getKey());
      Serializer serializer = serialization.findSerializerFor(value);
      String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
      java.nio.file.Path file = java.nio.file.Path.of("src/test/resources/serialization", value.getClass().getEnclosingClass()
          .getSimpleName() + "." + value.getClass().getSimpleName() + "." + shape.getKey() + ".json");
      if (write) {
        java.nio.file.Files.writeString(file, manifest + "\n" + new String(serializer.toBinary(value),
            java.nio.charset.StandardCharsets.UTF_8) + "\n");
        continue;
      }
      assertTrue(java.nio.file.Files.exists(file), "missing fixture " + file + ": regenerate with -Dalmanac.writeFixtures=true");
      List<String> lines = java.nio.file.Files.readAllLines(file);
      assertEquals(manifest, lines.get(0), file.toString());
      assertEquals(value, serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          serializer.identifier(), lines.get(0)).get(), file + " no longer reads as the same value");
    }
  }

  /**
   * The typed facts a final failure and a cancel carry since they were recorded (a final failure's
   * {@code decision} and {@code lastCause}, a cancel's {@code cause}), each with its committed fixture
   * {@code TaskJournal.<Type>.typed.json}: they round-trip and their fixtures read as the same values.
   */
  static Map<String, TaskJournal.Event> typedShapes() {
    return Map.of(
        "TaskJournal.InstanceFinalFailed.typed.json", TaskJournal.InstanceFinalFailed.after(W, "retry cap 3 reached",
            "lease expired at 2026-11-29T00:01:30Z", AT),
        "TaskJournal.InstanceCancelled.typed.json", new TaskJournal.InstanceCancelled(W, 1, "superseded by window 2026-11-30",
            AT, TaskJournal.CancelCause.SUPERSEDED),
        "TaskJournal.AttemptFailed.throttled.json", new TaskJournal.AttemptFailed(W, 2, Duration.ofSeconds(3),
            "throttled: retry after PT30S (pool openai)", AT, Duration.ofSeconds(30), "openai"),
        "TaskJournal.TaskPaused.typed.json", new TaskJournal.TaskPaused(AT, TaskJournal.PauseCause.FAILURES,
            new TaskJournal.FailureStreak(3, "2026-11-27", W)),
        "TaskJournal.AttemptSucceeded.usage.json", new TaskJournal.AttemptSucceeded(W, 2, Duration.ofMillis(123_456), "12 items",
            "s3://b/k", AT, new io.almanac.journal.UsageRecord("gpt-4o", 12_000, 1_500, 420_000)),
        "TaskJournal.AttemptFailed.usage.json", new TaskJournal.AttemptFailed(W, 2, Duration.ofSeconds(7), "tool timeout", AT,
            null, null, new io.almanac.journal.UsageRecord(null, 800, 0, 10_000)),
        "TaskJournal.LateResultRecorded.usage.json", new TaskJournal.LateResultRecorded(W, 1, JobResult.Outcome.SUCCEEDED,
            "after the lease", AT, new io.almanac.journal.UsageRecord("claude-sonnet", 3_000, 900, 75_000)),
        "TaskJournal.WaitEnded.pool-budget.json", new TaskJournal.WaitEnded(W, SkipReason.BUDGET_EXHAUSTED,
            "pool openai's budget for 2026-11-29 (UTC) was spent: cost 5.00 reached the budget per day 5.00", AT, "openai"));
  }

  @Test
  @DisplayName("R15/R6/R31: a final failure's decision and last cause and a cancel's cause round-trip, and their committed "
      + "fixtures still read")
  void typedFactsRoundTripAndTheirFixturesRead() throws Exception {
    assertEquals("retry cap 3 reached; last: lease expired at 2026-11-29T00:01:30Z",
        ((TaskJournal.InstanceFinalFailed) typedShapes().get("TaskJournal.InstanceFinalFailed.typed.json")).reason(),
        "the reason people read is rendered from the two facts, as before they were recorded");
    for (Map.Entry<String, TaskJournal.Event> shape : typedShapes().entrySet()) {
      TaskJournal.Event value = shape.getValue();
      assertEquals(value, roundTrip(value), shape.getKey());
      Serializer serializer = serialization.findSerializerFor(value);
      String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
      java.nio.file.Path file = java.nio.file.Path.of("src/test/resources/serialization", shape.getKey());
      if (Boolean.getBoolean("almanac.writeFixtures")) {
        java.nio.file.Files.writeString(file, manifest + "\n" + new String(serializer.toBinary(value),
            java.nio.charset.StandardCharsets.UTF_8) + "\n");
        continue;
      }
      List<String> lines = java.nio.file.Files.readAllLines(file);
      assertEquals(manifest, lines.get(0), "the typed facts are new fields, not a new type or version: " + file);
      assertEquals(value, serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          serializer.identifier(), lines.get(0)).get(), file + " no longer reads as the same value");
    }
  }

  /**
   * Final failures and cancels written before their typed facts were recorded (the committed
   * fixtures, under today's and the pre-move class names) read with those facts null, their reason
   * as written; an event without them is still written in that old shape (a null fact is left out).
   */
  @Test
  @DisplayName("R24: a final failure and a cancel written before their typed facts read with them null, and are still "
      + "written in the old shape")
  void eventsWrittenBeforeTheTypedFactsRead() throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    for (String prefix : List.of("TaskJournal", "TaskEntity")) {
      TaskJournal.InstanceFinalFailed ff = (TaskJournal.InstanceFinalFailed) readFixture(dir.resolve(prefix
          + ".InstanceFinalFailed.json"));
      assertEquals(new TaskJournal.InstanceFinalFailed(W, "retry cap 3 reached", AT, null, null), ff, prefix);
      TaskJournal.InstanceCancelled c = (TaskJournal.InstanceCancelled) readFixture(dir.resolve(prefix
          + ".InstanceCancelled.json"));
      assertEquals(new TaskJournal.InstanceCancelled(W, 1, "operator", AT, null), c, prefix);
    }
    for (TaskJournal.Event old : List.of(new TaskJournal.InstanceFinalFailed(W, "retry cap 3 reached", AT),
        new TaskJournal.InstanceCancelled(W, 1, "operator", AT))) {
      String json = new String(serialization.findSerializerFor(old).toBinary(old), java.nio.charset.StandardCharsets.UTF_8);
      String committed = java.nio.file.Files.readAllLines(dir.resolve("TaskJournal." + old.getClass().getSimpleName()
          + ".json")).get(1);
      assertEquals(committed, json, "an event without its typed facts is written as before they existed");
    }
  }

  /** The operator-action events with who acted and their note, as an operator's action records them. */
  static List<TaskJournal.Event> actedFixtures() {
    Instant start = AT.minus(Duration.ofHours(8));
    Instant end = start.plus(Duration.ofDays(1));
    return List.of(
        new TaskJournal.TaskPaused(AT, null, null, "alice", "provider outage"),
        new TaskJournal.TaskResumed(AT, "alice", "provider fixed"),
        new TaskJournal.InstanceScheduled(W, start, end, AT, RunKind.MANUAL, AT, "alice", "provider fixed"),
        new TaskJournal.InstanceResolved(W, "sent by hand", AT, "bob"),
        new TaskJournal.InstanceCancelled(W, 1, "wrong input", AT, TaskJournal.CancelCause.OPERATOR, "bob"),
        new TaskJournal.BudgetRaised(java.time.LocalDate.of(2026, 11, 29), 2_500_000, 7_500_000, "month-end report", AT,
            "java-api"));
  }

  /**
   * The operator-action events carry who acted (and a note) as new last fields: with them they
   * round-trip, and the committed JSON written before they existed (today's and the pre-move class
   * names) reads with them null, as the same event; an event without them is written as before.
   */
  @Test
  @DisplayName("operator actions record who acted and their note; events written before read with a null actor")
  void operatorActionsCarryTheirActor() throws Exception {
    for (TaskJournal.Event e : actedFixtures()) {
      assertEquals(e, roundTrip(e), e.getClass().getSimpleName());
      String json = new String(serialization.findSerializerFor(e).toBinary(e), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(json.contains("\"actor\":\"" + ((TaskJournal.Acted) e).actor() + "\""), json);
    }
    java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/serialization");
    List<TaskJournal.Event> old = fixtures().stream().filter(e -> e instanceof TaskJournal.Acted).toList();
    assertEquals(actedFixtures().stream().map(Object::getClass).collect(Collectors.toSet()),
        old.stream().map(Object::getClass).collect(Collectors.toSet()), "every operator-action event has an acted fixture");
    for (TaskJournal.Event e : old) {
      for (String prefix : List.of("TaskJournal", "TaskEntity")) {
        java.nio.file.Path file = dir.resolve(prefix + "." + e.getClass().getSimpleName() + ".json");
        if (!java.nio.file.Files.exists(file)) {
          continue; // a type added after the move (BudgetRaised) was never written under the old names
        }
        List<String> lines = java.nio.file.Files.readAllLines(file);
        assertTrue(!lines.get(1).contains("actor"), file + " was written before actors were recorded");
        Object read = serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8),
            serialization.findSerializerFor(e).identifier(), lines.get(0)).get();
        assertEquals(e, read, file.toString());
        assertEquals(null, ((TaskJournal.Acted) read).actor(), file.toString());
      }
      String json = new String(serialization.findSerializerFor(e).toBinary(e), java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(java.nio.file.Files.readAllLines(dir.resolve("TaskJournal." + e.getClass().getSimpleName() + ".json"))
          .get(1), json, "an event without an actor is written as before actors existed");
    }
  }

  private Object readFixture(java.nio.file.Path file) throws Exception {
    List<String> lines = java.nio.file.Files.readAllLines(file);
    Serializer serializer = serialization.serializerFor(Class.forName("io.almanac.journal.TaskJournal$InstanceCancelled"));
    return serialization.deserialize(lines.get(1).getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(),
        lines.get(0)).get();
  }

  @Test
  @DisplayName("a skipped window's typed reason survives a snapshot round trip")
  void skipReasonRoundTrips() {
    WindowState skipped = new WindowState(W, AT, AT.plusSeconds(1), AT, InstanceStatus.SKIPPED, RunKind.FIRST, 0, 0, 0, null,
        null, null, null, null, null, "PREVIOUS_RUNNING: window x is RUNNING", Map.of(), List.of(), AT, AT,
        SkipReason.PREVIOUS_RUNNING);
    TaskJournal.State s = new TaskJournal.State(fullRecord(), false, Map.of(W, skipped), null, 0, DurationSamples.empty(10), null);
    assertEquals(s, roundTrip(s));
  }

  @Test
  @DisplayName("R31: a window's version (what an operator's action expects, the HTTP ETag) survives a snapshot and a "
      + "window list round trip; a snapshot or a list written before it existed reads with version 0")
  void windowVersionRoundTrips() {
    WindowState w = snapshot().windows().get(W);
    WindowState versioned = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), w.status(), w.runKind(), w.attempt(),
        w.retries(), w.resultAttempt(), w.startedAt(), w.leaseUntil(), w.executor(), w.retryDueAt(), w.summary(),
        w.artifactUri(), w.reason(), w.effects(), w.pendingEffects(), w.createdAt(), w.updatedAt(), w.skipReason(),
        w.waitUntil(), w.events(), w.deadlineMissedAt(), w.poolWait(), w.usage(), 7);
    TaskJournal.State s = new TaskJournal.State(fullRecord(), false, Map.of(W, versioned), null, 0, DurationSamples.empty(10),
        null);
    assertEquals(s, roundTrip(s));
    assertEquals(7, ((TaskJournal.State) roundTrip(s)).windows().get(W).version());
    Serializer serializer = serialization.findSerializerFor(s);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(s);
    String json = new String(serializer.toBinary(s), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"version\":7"), json);
    TaskJournal.State older = (TaskJournal.State) serialization.deserialize(json.replace(",\"version\":7", "")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
    assertEquals(0, older.windows().get(W).version());
    assertEquals(0, snapshot().windows().get(W).version(), "the committed snapshot fixture, written before, reads as 0");

    TaskProtocol.WindowList list = new TaskProtocol.WindowList(List.of(versioned.view("t", 3)));
    assertEquals(list, roundTrip(list));
    assertEquals(7, ((TaskProtocol.WindowList) roundTrip(list)).windows().get(0).version());
  }

  @Test
  @DisplayName("interruptions: a window's interruptions in a row and a spec's on-interruption FAIL survive a snapshot round "
      + "trip; written only when set, so a snapshot and a spec written before read as 0 and RESUME")
  void interruptionFieldsRoundTrip() {
    WindowState w = snapshot().windows().get(W);
    WindowState interrupted = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), w.status(), RunKind.RESUME, w.attempt(),
        w.retries(), w.resultAttempt(), w.startedAt(), w.leaseUntil(), w.executor(), w.retryDueAt(), w.summary(),
        w.artifactUri(), w.reason(), w.effects(), w.pendingEffects(), w.createdAt(), w.updatedAt(), w.skipReason(),
        w.waitUntil(), w.events(), w.deadlineMissedAt(), w.poolWait(), w.usage(), 3, 2);
    io.almanac.journal.SpecRecord r = fullRecord();
    io.almanac.journal.SpecRecord failing = new io.almanac.journal.SpecRecord(r.id(), r.cron(), r.zone(), r.window(), r.dst(),
        r.overlap(), r.retry(), r.catchUp(), r.lease(), r.job(), r.description(), r.once(), r.event(), r.dependency(),
        r.condition(), r.pools(), r.deadline(), r.pauseAfterFailures(), r.budgetPerDayMicros(), r.schedule(),
        io.almanac.OnInterruption.FAIL);
    TaskJournal.State s = new TaskJournal.State(failing, false, Map.of(W, interrupted), null, 0, DurationSamples.empty(10),
        null);
    TaskJournal.State read = (TaskJournal.State) roundTrip(s);
    assertEquals(s, read);
    assertEquals(2, read.windows().get(W).interruptions());
    assertEquals(io.almanac.OnInterruption.FAIL, read.spec().interruption());
    Serializer serializer = serialization.findSerializerFor(s);
    String json = new String(serializer.toBinary(s), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"interruptions\":2") && json.contains("\"onInterruption\":\"FAIL\""), json);
    String plain = new String(serializer.toBinary(snapshot()), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(!plain.contains("interruptions") && !plain.contains("onInterruption"), "not written when not set: " + plain);
    assertEquals(io.almanac.OnInterruption.RESUME, snapshot().spec().interruption());
    assertEquals(0, snapshot().windows().get(W).interruptions());
  }

  @Test
  @DisplayName("every event type declared by TaskJournal has a fixture here")
  void everyEventTypeHasAFixture() {
    Set<Class<?>> declared = Arrays.stream(TaskJournal.class.getDeclaredClasses())
        .filter(c -> TaskJournal.Event.class.isAssignableFrom(c) && !c.isInterface())
        .collect(Collectors.toSet());
    Set<Class<?>> covered = fixtures().stream().map(Object::getClass).collect(Collectors.toSet());
    assertEquals(declared, covered);
  }

  @Test
  @DisplayName("every event round-trips unchanged through Jackson JSON")
  void eventsRoundTrip() {
    for (TaskJournal.Event e : fixtures()) {
      assertEquals(e, roundTrip(e), e.getClass().getSimpleName());
    }
  }

  @Test
  @DisplayName("the snapshot (state with spec, windows, ledger, samples) round-trips unchanged")
  void snapshotRoundTrips() {
    TaskJournal.State s = snapshot();
    assertEquals(s, roundTrip(s));
    TaskJournal.State empty = TaskJournal.State.empty(100);
    assertEquals(empty, roundTrip(empty));
  }

  @Test
  @DisplayName("a window list (the answer of windows()) round-trips with the attempt's start; one from a node that "
      + "did not send it reads with startedAt null")
  void windowListRoundTrips() {
    io.almanac.WindowView view = runningView().effects(Map.of("k", "v")).build();
    TaskProtocol.WindowList list = new TaskProtocol.WindowList(List.of(view));
    assertEquals(list, roundTrip(list));
    Serializer serializer = serialization.findSerializerFor(list);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(list);
    String json = new String(serialization.serialize(list).get(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"startedAt\""), json);
    String older = json.replaceAll(",?\"startedAt\":\"[^\"]*\"", "");
    TaskProtocol.WindowList read = (TaskProtocol.WindowList) serialization.deserialize(
        older.getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
    assertEquals(null, read.windows().get(0).startedAt(), older);
    assertEquals(view.window(), read.windows().get(0).window());
  }

  @Test
  @DisplayName("a window list round-trips with a running attempt's live progress; one from a node that did not send it "
      + "reads with progress null")
  void windowListWithProgressRoundTrips() {
    io.almanac.WindowView view = runningView().build().withProgress(new io.almanac.WindowView.Progress(1, 0.25, "drafting", AT,
        List.of(new io.almanac.journal.LogLine(AT, io.almanac.JobLog.Level.INFO, "gathered 12 items"))));
    TaskProtocol.ReportProgress report = new TaskProtocol.ReportProgress(io.almanac.WindowKey.of(W), 1, view.progress());
    assertEquals(report, roundTrip(report), "the executor's report to a task on another node");
    TaskProtocol.WindowList list = new TaskProtocol.WindowList(List.of(view));
    assertEquals(list, roundTrip(list));
    Serializer serializer = serialization.findSerializerFor(list);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(list);
    String json = new String(serialization.serialize(list).get(), java.nio.charset.StandardCharsets.UTF_8);
    String older = json.replaceAll(",?\"progress\":\\{.*?\\]\\}", "");
    assertTrue(!older.equals(json) && !older.contains("progress"), older);
    TaskProtocol.WindowList read = (TaskProtocol.WindowList) serialization.deserialize(
        older.getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
    assertEquals(null, read.windows().get(0).progress(), older);
  }

  @Test
  @DisplayName("a window list round-trips with every part of a view set (the view is read through its builder), under "
      + "the names its parts had as a record")
  void windowListWithEveryPartRoundTrips() {
    io.almanac.WindowView view = runningView().status(InstanceStatus.SKIPPED).retries(2).maxRetries(3)
        .retryDueAt(AT.plusSeconds(2)).summary("ok").artifactUri("s3://a").reason("skipped").effects(Map.of("k", "v"))
        .waitUntil(AT.plusSeconds(3)).events(new io.almanac.WindowView.Events(4, 5, "e0", "e3"))
        .deadlineMissedAt(AT.plusSeconds(4))
        .poolWait(new io.almanac.WindowView.PoolWait("p", io.almanac.PoolWaitReason.RATE, AT.plusSeconds(5), AT))
        .usage(new io.almanac.WindowView.Usage(10, 20, new java.math.BigDecimal("0.05"), "m"))
        .skipReason(io.almanac.SkipReason.BUDGET_EXHAUSTED).version(9)
        .progress(new io.almanac.WindowView.Progress(1, 0.5, "half", AT, List.of()))
        .missReason(io.almanac.MissReason.OUTSIDE_HORIZON).build();
    TaskProtocol.WindowList list = new TaskProtocol.WindowList(List.of(view));
    assertEquals(list, roundTrip(list));
    String json = new String(serialization.serialize(list).get(), java.nio.charset.StandardCharsets.UTF_8);
    for (String part : List.of("taskId", "window", "start", "end", "dueAt", "status", "runKind", "attempt", "retries",
        "maxRetries", "leaseUntil", "retryDueAt", "summary", "artifactUri", "reason", "effects", "createdAt", "updatedAt",
        "startedAt", "waitUntil", "events", "deadlineMissedAt", "poolWait", "usage", "skipReason", "version", "progress",
        "missReason")) {
      assertTrue(json.contains("\"" + part + "\":"), part + " in " + json);
    }
  }

  /** A RUNNING view of window W, its attempt 1 started at AT plus 1 s. */
  private static io.almanac.WindowView.Builder runningView() {
    return io.almanac.WindowView.builder().taskId("t").window(io.almanac.WindowKey.of(W)).start(AT).end(AT.plusSeconds(60))
        .dueAt(AT).status(InstanceStatus.RUNNING).runKind(RunKind.FIRST).attempt(1).leaseUntil(AT.plusSeconds(30))
        .effects(Map.of()).createdAt(AT).updatedAt(AT).startedAt(AT.plusSeconds(1));
  }

  @Test
  @DisplayName("an attempt's result round-trips with its log; one from a node that did not send a log reads with an "
      + "empty one (nothing more is written)")
  void finishAttemptWithoutALogReadsEmpty() {
    org.apache.pekko.actor.testkit.typed.javadsl.TestProbe<org.apache.pekko.pattern.StatusReply<org.apache.pekko.Done>> probe =
        testKit.createTestProbe();
    TaskProtocol.FinishAttempt finish = new TaskProtocol.FinishAttempt(io.almanac.WindowKey.of(W), 2,
        JobResult.failure("boom"), Duration.ofSeconds(3), new io.almanac.journal.AttemptLog(List.of(
        new io.almanac.journal.LogLine(AT, io.almanac.JobLog.Level.ERROR, "search failed")), 1, "java.lang.X: boom"),
        probe.getRef());
    org.apache.pekko.actor.ExtendedActorSystem system = (org.apache.pekko.actor.ExtendedActorSystem) testKit.system()
        .classicSystem();
    Serialization.Information info = new Serialization.Information(system.provider().getDefaultAddress(), system);
    scala.Function0<TaskProtocol.FinishAttempt> check = () -> {
      assertEquals(finish, roundTrip(finish));
      Serializer serializer = serialization.findSerializerFor(finish);
      String manifest = ((SerializerWithStringManifest) serializer).manifest(finish);
      String json = new String(serialization.serialize(finish).get(), java.nio.charset.StandardCharsets.UTF_8);
      String older = json.replaceAll(",?\"log\":\\{.*?\"stackTrace\":\"[^\"]*\"\\}", "");
      assertTrue(!older.contains("\"log\""), older);
      return (TaskProtocol.FinishAttempt) serialization.deserialize(
          older.getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
    };
    TaskProtocol.FinishAttempt read = org.apache.pekko.serialization.Serialization$.MODULE$.currentTransportInformation().withValue(info, check);
    String older = "a result without its log";
    assertEquals(io.almanac.journal.AttemptLog.EMPTY, read.log(), older);
    assertTrue(read.log().isEmpty());
  }

  @Test
  @DisplayName("a task's view (the answer of task()) round-trips with archivedThrough; one from a node that did not send "
      + "it reads with null")
  void taskInfoRoundTrips() {
    io.almanac.TaskView view = io.almanac.TaskView.builder().spec(fullSpec()).paused(true).hotWindows(3).archivedWindows(7)
        .interventionQueue(1).durationSamples(5).p99(Duration.ofSeconds(2)).lease(Duration.ofMinutes(2))
        .minInterval(Duration.ofHours(1)).intervalShorterThanP99(true).nextDue(AT.plusSeconds(3600))
        .removedAt(AT.plusSeconds(7200)).archivedThrough(AT.minusSeconds(86_400)).build();
    TaskProtocol.TaskInfo info = new TaskProtocol.TaskInfo(view);
    assertEquals(info, roundTrip(info));
    Serializer serializer = serialization.findSerializerFor(info);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(info);
    String json = new String(serialization.serialize(info).get(), java.nio.charset.StandardCharsets.UTF_8);
    String older = json.replaceAll(",?\"archivedThrough\":\"[^\"]*\"", "");
    assertTrue(!older.equals(json), json);
    TaskProtocol.TaskInfo read = (TaskProtocol.TaskInfo) serialization.deserialize(
        older.getBytes(java.nio.charset.StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
    assertEquals(null, read.view().archivedThrough(), older);
    assertEquals(view.spec(), read.view().spec());
  }

  @Test
  @DisplayName("a day's usage (the answer of usage()) round-trips with every part set, read through its builder")
  void usageInfoRoundTrips() {
    io.almanac.DailyUsage usage = io.almanac.DailyUsage.builder().taskId("t").day(java.time.LocalDate.of(2026, 11, 29))
        .zone("Europe/Berlin").tokensIn(2_000).tokensOut(500).cost(new java.math.BigDecimal("1.05")).attempts(2)
        .budgetPerDay(new java.math.BigDecimal("1.00")).raised(new java.math.BigDecimal("0.50"))
        .limit(new java.math.BigDecimal("1.50")).exhausted(true).windowsSkipped(3).build();
    TaskProtocol.UsageInfo info = new TaskProtocol.UsageInfo(usage);
    assertEquals(info, roundTrip(info));
  }
}

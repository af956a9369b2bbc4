package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import io.almanac.schedule.Jitter;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Richer schedules through the real trigger, sharded entities and executor on the in-memory journal
 * (docs/schedules.md): the union of two crons, an excluded holiday, the end bound, and a jittered
 * window that fires at its offset after a restart. Time from a SettableClock.
 */
@ExtendWith(LogCapturingExtension.class)
class RichScheduleNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final List<JobContext> runs = new CopyOnWriteArrayList<>();

  private Almanac start(String name) {
    testKit = ActorTestKit.create(name, AlmanacNodeTest.config(""));
    return started();
  }

  private Almanac started() {
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("report", ctx -> {
          runs.add(ctx);
          return CompletableFuture.completedFuture(JobResult.success("ok " + ctx.window()));
        }).start();
    NodeReady.await(almanac);
    return almanac;
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  /** Lets the trigger tick (every 20 ms) a few dozen times at the current clock. */
  private void settle() {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.expectNoMessage(Duration.ofMillis(600));
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " in " + await(almanac.windows(task))));
  }

  private List<Object> journal(String pid) {
    return PersistenceTestKit.create(testKit.system()).persistedInStorage(pid);
  }

  private long runsOf(String window) {
    return runs.stream().filter(r -> r.window().value().equals(window)).count();
  }

  @Test
  @DisplayName("two crons fire both (one window where they coincide), a holiday is SKIPPED EXCLUDED, nothing fires after until")
  void unionCalendarAndEndBound() {
    Almanac almanac = start("rich-schedule");
    // weekdays at 09:00, and Sundays and Tuesdays at 09:00: on Tuesday both crons fire at one instant
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 9 ? * MON-FRI", "UTC").alsoCron("0 0 9 ? * SUN,TUE")
        .window(WindowSpec.DAILY).until("2026-12-01")
        .exclude(ExclusionCalendar.of("holidays", "2026-11-30")).job("report").build()));

    clock.set(Instant.parse("2026-11-29T09:00:00Z")); // Sunday: the second cron
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "digest", "2026-11-29").status()));

    clock.set(Instant.parse("2026-11-30T09:00:00Z")); // Monday, a holiday
    eventually(() -> assertEquals(InstanceStatus.SKIPPED, window(almanac, "digest", "2026-11-30").status()));
    WindowView holiday = window(almanac, "digest", "2026-11-30");
    assertTrue(holiday.reason().contains("EXCLUDED") && holiday.reason().contains("holidays"), holiday.reason());
    assertEquals(0, runsOf("2026-11-30"));

    clock.set(Instant.parse("2026-12-01T09:00:00Z")); // Tuesday: both crons, one window, the last before until
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "digest", "2026-12-01").status()));
    assertNull(await(almanac.task("digest")).nextDue(), "past the end bound the schedule has no next firing");

    clock.set(Instant.parse("2026-12-03T09:00:00Z"));
    settle();
    assertEquals(List.of("2026-11-29", "2026-11-30", "2026-12-01"),
        await(almanac.windows("digest")).stream().map(w -> w.window().value()).sorted().toList());
    assertEquals(1, runsOf("2026-12-01"), "two crons at one instant make one window and one run");
    // the holiday opens a skip range (docs/skip-ranges.md), closed by the next window that ran
    List<TaskJournal.SkipRangeOpened> skips = journal(TaskEntity.persistenceId("digest").id()).stream()
        .filter(e -> e instanceof TaskJournal.SkipRangeOpened).map(e -> (TaskJournal.SkipRangeOpened) e).toList();
    assertEquals(1, skips.size(), skips.toString());
    assertEquals(SkipReason.EXCLUDED, skips.get(0).skipReason());
    assertEquals(Instant.parse("2026-11-30T09:00:00Z"), skips.get(0).dueAt());
  }

  @Test
  @DisplayName("a jittered window fires at its offset after due, the same offset after a restart; its key and due time unchanged")
  void jitterSurvivesRestart() {
    Duration jitter = Duration.ofHours(1);
    Duration offset = Jitter.offset("spread", "2026-11-29", jitter);
    assertTrue(offset.compareTo(Duration.ofSeconds(10)) > 0, "this test wants an offset of some seconds: " + offset);
    Instant due = Instant.parse("2026-11-29T09:00:00Z");
    Instant fires = due.plus(offset);

    Almanac first = start("jitter-before");
    await(first.register(TaskSpec.builder("spread").cron("0 0 9 * * ?", "UTC").jitter(jitter).job("report").build()));
    assertEquals(fires, await(first.task("spread")).nextDue(), "the view's next fire counts the offset");
    clock.set(fires.minusSeconds(5)); // due, but before its offset: it has not fired
    settle();
    assertEquals(List.of(), await(first.windows("spread")));
    List<Object> trigger = journal(TriggerJournal.PERSISTENCE_ID);
    List<Object> task = journal(TaskEntity.persistenceId("spread").id());
    testKit.shutdownTestKit();

    // the node restarts with the same journals: the trigger's watermark is past the window's due time
    testKit = ActorTestKit.create("jitter-after", AlmanacNodeTest.config(""));
    PersistenceTestKit.create(testKit.system()).persistForRecovery(TriggerJournal.PERSISTENCE_ID, trigger);
    PersistenceTestKit.create(testKit.system()).persistForRecovery(TaskEntity.persistenceId("spread").id(), task);
    Almanac second = started();
    settle();
    assertEquals(List.of(), await(second.windows("spread")), "not fired before its offset after the restart either");
    clock.set(fires);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(second, "spread", "2026-11-29").status()));
    WindowView w = window(second, "spread", "2026-11-29");
    assertEquals(due, w.dueAt(), "the recorded due time is the un-jittered one");
    assertTrue(!w.startedAt().isBefore(fires), w.startedAt() + " before " + fires);
    assertEquals(1, runsOf("2026-11-29"));
  }

  @Test
  @DisplayName("an unknown calendar in almanac.tasks stops the start with the key and the value; nothing is registered")
  void unknownCalendarRefusedAtStart() {
    testKit = ActorTestKit.create("unknown-calendar", AlmanacNodeTest.config(
        "almanac.calendars.holidays { dates = [\"2026-12-25\"] }\n"
        + "almanac.tasks.digest { cron = \"0 0 9 * * ? UTC\", job = report, calendars = [holidays, holidayz] }"));
    InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class, this::started);
    assertEquals("almanac.tasks.digest.calendars", e.field());
    assertEquals("holidayz", e.value());
    assertTrue(journal(TriggerJournal.PERSISTENCE_ID).isEmpty());
    assertTrue(journal(TaskEntity.persistenceId("digest").id()).isEmpty());
  }

  @Test
  @DisplayName("a calendar declared in code is named by a task of almanac.tasks")
  void codeCalendarNamedByConfig() {
    testKit = ActorTestKit.create("code-calendar", AlmanacNodeTest.config(
        "almanac.tasks.digest { cron = \"0 0 9 * * ? UTC\", job = report, calendars = [xmas] }"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .calendar(ExclusionCalendar.of("xmas", "2026-11-29..2026-12-26"))
        .job("report", ctx -> CompletableFuture.completedFuture(JobResult.success("ok"))).start();
    NodeReady.await(almanac);
    eventually(() -> assertEquals(List.of("xmas"),
        await(almanac.task("digest")).spec().calendars().stream().map(ExclusionCalendar::name).toList()));
    clock.set(Instant.parse("2026-11-29T09:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SKIPPED, window(almanac, "digest", "2026-11-29").status()));
  }
}

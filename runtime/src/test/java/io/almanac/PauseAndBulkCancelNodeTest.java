package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingResult;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A pause holds back every attempt that has not started, backfills included, and a bulk cancel of
 * 1,000 windows is one journal write: end to end on a one-node cluster on the in-memory journal,
 * time from a SettableClock, the task's journal writes counted as {@link FireCostTest} counts them.
 */
class PauseAndBulkCancelNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:30:00Z"));
  /** Writes (persist calls) and rows (events) of the task "history". */
  private final long[] writes = new long[2];
  private final List<Instant> started = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private Almanac start(String extra, AgentJob job) {
    testKit = ActorTestKit.create("pause-test", AlmanacNodeTest.config(extra
        + "\npekko.persistence.testkit.events.serialize = off\npekko.persistence.testkit.snapshots.serialize = off"));
    PersistenceTestKit.create(testKit.system()).withPolicy((String pid, JournalOperation op) -> {
      if (op instanceof WriteEvents w && pid.equals("task|history")) {
        synchronized (writes) {
          writes[0]++;
          writes[1] += w.getBatch().size();
        }
      }
      return (ProcessingResult) ProcessingSuccess$.MODULE$;
    });
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).job("bf", job).start();
    await(almanac.ready());
    return almanac;
  }

  private long[] written() {
    synchronized (writes) {
      return writes.clone();
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

  /** No clock moves meanwhile: what is in flight (offers, admissions, ticks) completes. */
  private static void settle() {
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private long count(Almanac almanac, InstanceStatus status) {
    return await(almanac.windows("history")).stream().filter(w -> w.status() == status).count();
  }

  @Test
  @DisplayName("R31: a backfill of 10 windows, one at a time, paused after the first started: while paused no further "
      + "attempt starts however the clock moves, the windows stay PENDING; resumed, all run")
  void pauseHoldsBackfill() {
    CompletableFuture<JobResult> first = new CompletableFuture<>();
    Almanac almanac = start("almanac.executor { max-concurrent = 1, backlog-rate = 1000, backlog-burst = 1000, "
        + "backlog-rate-per-task = 1000, backlog-burst-per-task = 1000 }", ctx -> {
          started.add(ctx.scheduledAt());
          return started.size() == 1 ? first : CompletableFuture.completedFuture(JobResult.success("ok"));
        });
    await(almanac.register(TaskSpec.builder("history").cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING).job("bf").build()));
    List<FireDecision> decisions = await(almanac.backfill("history", Instant.parse("2026-11-28T14:30:00Z"),
        Instant.parse("2026-11-29T00:00:00Z")));
    assertEquals(10, decisions.size());
    eventually(() -> assertEquals(1, started.size(), "the first backfill window started"));
    await(almanac.pause("history"));
    first.complete(JobResult.success("ok")); // the running attempt is not covered: it ends as it would
    eventually(() -> assertEquals(1, count(almanac, InstanceStatus.SUCCEEDED)));
    for (int step = 1; step <= 10; step++) { // 20 minutes: past the re-offer (redispatch-after 60s) many times
      clock.set(Instant.parse("2026-11-29T00:30:00Z").plus(Duration.ofMinutes(2L * step)));
      settle();
      assertEquals(1, started.size(), "no attempt starts while the task is paused (step " + step + ")");
    }
    assertEquals(9, count(almanac, InstanceStatus.PENDING), "they keep their status");
    await(almanac.resume("history"));
    eventually(() -> assertEquals(10, count(almanac, InstanceStatus.SUCCEEDED)));
    assertEquals(10, started.size());
  }

  @Test
  @DisplayName("R31: a bulk cancel of a 1,000-window backfill is one call and one journal write of 1,000 rows; its "
      + "dry run writes nothing; a second cancel finds nothing")
  void bulkCancelIsOneWrite() {
    Almanac almanac = start("", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")));
    await(almanac.register(TaskSpec.builder("history").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("bf").build()));
    await(almanac.pause("history")); // nothing starts meanwhile: every window stays PENDING
    Instant to = Instant.parse("2026-11-29T00:00:00Z");
    List<FireDecision> decisions = await(almanac.backfill("history", to.minus(Duration.ofMinutes(1000)), to));
    assertEquals(1000, decisions.size());
    assertTrue(decisions.stream().allMatch(FireDecision::scheduled));
    settle();
    long[] before = written();
    List<WindowKey> planned = await(almanac.planCancelAll("history", null, null, RunKind.BACKFILL));
    assertEquals(1000, planned.size());
    assertEquals(before[0], written()[0], "a dry run writes nothing");
    List<WindowKey> cancelled = await(almanac.cancelAll("history", to.minus(Duration.ofMinutes(1000)), to, RunKind.BACKFILL,
        "wrong range"));
    assertEquals(planned, cancelled);
    long[] after = written();
    assertEquals(1, after[0] - before[0], "1,000 windows cancelled in one journal write");
    assertEquals(1000, after[1] - before[1], "one InstanceCancelled per window");
    assertEquals(1000, count(almanac, InstanceStatus.CANCELLED));
    assertEquals(List.of(), await(almanac.cancelAll("history", null, null, null, null)));
    assertEquals(after[0], written()[0], "a cancel that finds nothing writes nothing");
    WindowView one = await(almanac.windows("history")).get(0);
    assertEquals("wrong range", one.reason());
  }

  @Test
  @DisplayName("R30, R31: recent successes, then a 900-window backfill bulk-cancelled, with the default settings: the "
      + "recent windows still answer, a backfill's dry run over them says none is ARCHIVED, and a recent cancelled "
      + "window runs again")
  void bulkCancelKeepsRecentWindows() {
    Almanac almanac = start("almanac.executor { backlog-rate = 1000, backlog-burst = 1000, backlog-rate-per-task = 1000, "
        + "backlog-burst-per-task = 1000 }", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")));
    await(almanac.register(TaskSpec.builder("history").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("bf").build()));
    Instant to = Instant.parse("2026-11-29T00:30:00Z");
    await(almanac.backfill("history", to.minus(Duration.ofMinutes(5)), to)); // the recent successes
    eventually(() -> assertTrue(count(almanac, InstanceStatus.SUCCEEDED) >= 5));
    List<WindowKey> recent = await(almanac.windows("history")).stream()
        .filter(w -> w.status() == InstanceStatus.SUCCEEDED).map(WindowView::window).toList();
    await(almanac.pause("history"));
    // one more recent window, left PENDING, then the 900-window backfill of a day before, all bulk-cancelled
    await(almanac.backfill("history", to.minus(Duration.ofMinutes(6)), to.minus(Duration.ofMinutes(5))));
    Instant old = to.minus(Duration.ofDays(1));
    assertEquals(900, await(almanac.backfill("history", old.minus(Duration.ofMinutes(900)), old)).size());
    assertEquals(901, await(almanac.cancelAll("history", null, null, RunKind.BACKFILL, "wrong range")).size());

    List<WindowView> hot = await(almanac.windows("history"));
    for (WindowKey key : recent) { // what GET /api/tasks/{task}/windows/{window} reads
      assertTrue(hot.stream().anyMatch(w -> w.window().equals(key) && w.status() == InstanceStatus.SUCCEEDED),
          key + " still answers");
    }
    assertEquals(null, await(almanac.task("history")).archivedThrough(), "nothing left the hot state");
    List<FireDecision> plan = await(almanac.planBackfill("history", to.minus(Duration.ofMinutes(6)), to));
    assertTrue(plan.stream().noneMatch(d -> d.decision() == Decision.ARCHIVED), plan.toString());
    WindowKey cancelled = plan.get(0).window();
    assertEquals(Decision.SCHEDULED, plan.get(0).decision(), "the recent cancelled window can run again: " + plan);
    await(almanac.resume("history"));
    await(almanac.retry("history", cancelled));
    eventually(() -> assertTrue(await(almanac.windows("history")).stream()
        .anyMatch(w -> w.window().equals(cancelled) && w.status() == InstanceStatus.SUCCEEDED)));
  }

  @Test
  @DisplayName("R31: the bulk cancel's command and answer cross the cluster: both round-trip through the serializer")
  void bulkCancelMessagesRoundTrip() {
    start("", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")));
    org.apache.pekko.serialization.Serialization serialization =
        org.apache.pekko.serialization.SerializationExtension.get(testKit.system());
    TestProbe<org.apache.pekko.pattern.StatusReply<io.almanac.internal.protocol.TaskProtocol.CancelReport>> probe =
        testKit.createTestProbe();
    for (Object m : List.of(new io.almanac.internal.protocol.TaskProtocol.CancelAll(Instant.parse("2026-11-01T00:00:00Z"),
            null, RunKind.BACKFILL, "wrong range", true, probe.getRef()),
        new io.almanac.internal.protocol.TaskProtocol.CancelReport(List.of(WindowKey.of("2026-11-29"))))) {
      byte[] bytes = serialization.serialize(m).get();
      org.apache.pekko.serialization.Serializer s = serialization.findSerializerFor(m);
      Object back = serialization.deserialize(bytes, s.identifier(),
          org.apache.pekko.serialization.Serializers.manifestFor(s, m)).get();
      assertEquals(m, back);
    }
  }
}

package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.LogLine;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a job did, kept with its attempt: end to end on a one-node cluster on the in-memory journal.
 * A failing job's lines and stack trace are written with its attempt's end (one {@link
 * TaskJournal.AttemptLogged} in the same write as the failure), a succeeding job's lines too, and its
 * live progress shows in the window's view while it runs and is gone when it ends.
 */
class JobLogNodeTest {

  private ActorTestKit testKit;
  private PersistenceTestKit journal;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:30:00Z"));

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private Almanac start(String name, AgentJob job) {
    testKit = ActorTestKit.create(name, AlmanacNodeTest.config("almanac.executor.job-log { max-lines = 3 }\n"
        + "pekko.persistence.testkit.events.serialize = on"));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).job("j", job).start();
    NodeReady.await(almanac);
    await(almanac.register(TaskSpec.builder("agent").cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING)
        .retry(RetryPolicy.none()).job("j").build()));
    return almanac;
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

  private List<Object> events() {
    return journal.persistedInStorage(TaskJournal.persistenceId("agent"));
  }

  private WindowView only(Almanac almanac) {
    List<WindowView> ws = await(almanac.windows("agent"));
    assertEquals(1, ws.size(), ws.toString());
    return ws.get(0);
  }

  @Test
  @DisplayName("A failing job's log lines (bounded: 3 kept, 2 dropped) and its stack trace are written with its attempt, "
      + "right after AttemptFailed in the same write; its live progress showed while it ran and is gone after")
  void failingJobsLinesAndStackTraceAreRecordedWithItsAttempt() {
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    Almanac almanac = start("joblog-fail", ctx -> {
      for (int i = 1; i <= 5; i++) {
        ctx.log().info("step {} of 5", i);
      }
      ctx.progress(0.4, "drafting");
      assertThrows(IllegalArgumentException.class, () -> ctx.progress(1.5, "too far"));
      return release.thenApply(r -> {
        throw new IllegalStateException("tool 'search' failed");
      });
    });
    await(almanac.runNow("agent"));
    eventually(() -> {
      WindowView w = only(almanac);
      assertEquals(InstanceStatus.RUNNING, w.status());
      assertNotNull(w.progress(), "progress shows while the attempt runs");
      assertEquals(0.4, w.progress().fraction());
      assertEquals("drafting", w.progress().text());
      assertEquals(1, w.progress().attempt());
      assertTrue(w.progress().latest().stream().map(LogLine::text).toList().contains("step 5 of 5"),
          w.progress().latest().toString());
    });
    release.complete(null);
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, only(almanac).status()));
    assertNull(only(almanac).progress(), "progress is gone once the attempt ended");

    List<Object> events = events();
    int failed = -1;
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof TaskJournal.AttemptFailed) {
        failed = i;
      }
    }
    assertTrue(failed >= 0, events.toString());
    TaskJournal.AttemptLogged logged = (TaskJournal.AttemptLogged) events.get(failed + 1);
    assertEquals(1, logged.attempt());
    assertEquals(List.of("step 1 of 5", "step 2 of 5", "step 3 of 5"), logged.lines().stream().map(LogLine::text).toList());
    assertEquals(2, logged.droppedLines());
    assertTrue(logged.stackTrace().startsWith("java.lang.IllegalStateException: tool 'search' failed"),
        logged.stackTrace());
    assertTrue(logged.stackTrace().contains("\tat "), "the frames are kept: " + logged.stackTrace());
    assertEquals(1, events.stream().filter(e -> e instanceof TaskJournal.AttemptLogged).count());
  }

  @Test
  @DisplayName("A succeeding job's lines are written with its attempt, right after its success (a job that logs nothing "
      + "and does not throw writes nothing more: FireCostTest)")
  void succeedingJobsLinesAreRecorded() {
    Almanac almanac = start("joblog-ok", ctx -> {
      ctx.log().warn("model answered {}, retrying once", 429);
      ctx.log().info("published");
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    });
    await(almanac.runNow("agent"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, only(almanac).status()));
    List<Object> events = events();
    TaskJournal.AttemptLogged logged = events.stream().filter(e -> e instanceof TaskJournal.AttemptLogged)
        .map(e -> (TaskJournal.AttemptLogged) e).findFirst().orElseThrow(() -> new AssertionError(events.toString()));
    Object before = events.get(events.indexOf(logged) - 1);
    assertTrue(before instanceof TaskJournal.AttemptSucceeded, "written right after the success: " + before);
    assertEquals(List.of(JobLog.Level.WARN, JobLog.Level.INFO), logged.lines().stream().map(LogLine::level).toList());
    assertEquals("model answered 429, retrying once", logged.lines().get(0).text());
    assertEquals(0, logged.droppedLines());
    assertNull(logged.stackTrace());
  }
}

package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.InstanceStatus;
import io.almanac.PoolWaitReason;
import io.almanac.RunKind;
import io.almanac.WindowView;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A window's pool wait, missed deadline and usage as typed fields of its state and its view. */
class WindowTypedFieldsTest {

  private static final Instant T = Instant.parse("2026-11-29T08:00:00Z");
  private static final String W = "2026-11-29";
  private static final HotState ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(3650));

  private static WindowView view(List<TaskJournal.Event> events) {
    TaskJournal.State s = Evolve.fold(TaskJournal.State.empty(10), events, ALL);
    return s.windows().get(W).view("digest", 0);
  }

  private static TaskJournal.InstanceScheduled scheduled() {
    return new TaskJournal.InstanceScheduled(W, T, T.plusSeconds(86_400), T, RunKind.FIRST, T);
  }

  @Test
  @DisplayName("a pool wait is typed on a PENDING window (pool, reason, until, since) and cleared when it starts")
  void poolWaitTypedAndClearedOnStart() {
    TaskJournal.PoolWaited waited = new TaskJournal.PoolWaited(W, "openai", PoolWaitReason.PAUSED, T.plusSeconds(300),
        T.plusSeconds(1));
    WindowView waiting = view(List.of(scheduled(), waited));
    assertEquals(InstanceStatus.PENDING, waiting.status());
    assertEquals(new WindowView.PoolWait("openai", PoolWaitReason.PAUSED, T.plusSeconds(300), T.plusSeconds(1)),
        waiting.poolWait());
    assertEquals("waiting for pool openai: PAUSED until " + T.plusSeconds(300), waiting.reason(), "the text stays too");

    WindowView running = view(List.of(scheduled(), waited,
        new TaskJournal.AttemptStarted(W, 1, RunKind.FIRST, T.plusSeconds(900), "node-1", T.plusSeconds(301))));
    assertEquals(InstanceStatus.RUNNING, running.status());
    assertNull(running.poolWait(), "the wait ends when the window starts");
  }

  @Test
  @DisplayName("a pool wait is cleared when the window ends without starting (cancelled)")
  void poolWaitClearedOnEnd() {
    WindowView cancelled = view(List.of(scheduled(),
        new TaskJournal.PoolWaited(W, "openai", PoolWaitReason.FULL, null, T.plusSeconds(1)),
        new TaskJournal.InstanceCancelled(W, 0, "operator", T.plusSeconds(2), null)));
    assertEquals(InstanceStatus.CANCELLED, cancelled.status());
    assertNull(cancelled.poolWait());
  }

  @Test
  @DisplayName("a window's usage is the sum of its attempts' (the latest named model); none reported: null")
  void usageSummedOverAttempts() {
    TaskJournal.Event start1 = new TaskJournal.AttemptStarted(W, 1, RunKind.FIRST, T.plusSeconds(600), "n", T);
    TaskJournal.Event failed = new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(3), "tool timeout", T.plusSeconds(3),
        null, null, new UsageRecord("gpt-4o", 1000, 200, 12_500));
    TaskJournal.Event retry = new TaskJournal.RetryScheduled(W, 1, T.plusSeconds(60), T.plusSeconds(3));
    TaskJournal.Event again = new TaskJournal.InstanceScheduled(W, T, T.plusSeconds(86_400), T, RunKind.RETRY,
        T.plusSeconds(60));
    TaskJournal.Event start2 = new TaskJournal.AttemptStarted(W, 2, RunKind.RETRY, T.plusSeconds(700), "n", T.plusSeconds(60));
    TaskJournal.Event ok = new TaskJournal.AttemptSucceeded(W, 2, Duration.ofSeconds(4), "sent", null, T.plusSeconds(64),
        new UsageRecord(null, 500, 100, 7_500));
    WindowView v = view(List.of(scheduled(), start1, failed, retry, again, start2, ok));
    assertEquals(InstanceStatus.SUCCEEDED, v.status());
    assertEquals(new WindowView.Usage(1500, 300, new BigDecimal("0.02"), "gpt-4o"), v.usage());

    WindowView none = view(List.of(scheduled(), start1, new TaskJournal.AttemptSucceeded(W, 1, Duration.ofSeconds(1), "ok",
        null, T.plusSeconds(1), null)));
    assertNull(none.usage());
  }

  @Test
  @DisplayName("a missed deadline is typed on the view and stays after the window ends")
  void deadlineMissedStays() {
    Instant missedAt = T.plus(Duration.ofHours(1));
    WindowView v = view(List.of(scheduled(),
        new TaskJournal.DeadlineMissed(W, T, missedAt, InstanceStatus.PENDING, 0, missedAt),
        new TaskJournal.AttemptStarted(W, 1, RunKind.FIRST, missedAt.plusSeconds(600), "n", missedAt.plusSeconds(1)),
        new TaskJournal.AttemptSucceeded(W, 1, Duration.ofSeconds(1), "ok", null, missedAt.plusSeconds(2), null)));
    assertEquals(missedAt, v.deadlineMissedAt());
  }

  @Test
  @DisplayName("a MISSED window (alone or first of a range) has its MissReason as its typed cause; a SKIPPED one its "
      + "SkipReason; the text stays as it was")
  void missedAndSkippedCarryTheirTypedCause() {
    WindowView missed = view(List.of(new TaskJournal.WindowMissed(W, T, T.plusSeconds(86_400), T,
        io.almanac.MissReason.OUTSIDE_HORIZON, "older than 7 days", T)));
    assertEquals(InstanceStatus.MISSED, missed.status());
    assertEquals(io.almanac.MissReason.OUTSIDE_HORIZON, missed.missReason());
    assertEquals(io.almanac.MissReason.OUTSIDE_HORIZON, missed.reasonCode());
    assertNull(missed.skipReason());
    assertEquals("OUTSIDE_HORIZON: older than 7 days", missed.reason());
    assertEquals(io.almanac.MissReason.OUTSIDE_HORIZON, Evolve.fold(TaskJournal.State.empty(10), List.of(
        new TaskJournal.WindowMissed(W, T, T.plusSeconds(86_400), T, io.almanac.MissReason.OUTSIDE_HORIZON, "old", T)), ALL)
        .windows().get(W).reasonCode(), "the state's one typed cause");

    WindowView rangeFirst = view(List.of(new TaskJournal.SkipRangeOpened(W, T, T.plusSeconds(86_400), T,
        InstanceStatus.MISSED, null, io.almanac.MissReason.BACKFILL_NOT_ALLOWED, "catch-up NONE", T)));
    assertEquals(io.almanac.MissReason.BACKFILL_NOT_ALLOWED, rangeFirst.reasonCode());

    WindowView skipped = view(List.of(new TaskJournal.FireSkipped(W, T, T.plusSeconds(86_400), T,
        io.almanac.SkipReason.PREVIOUS_RUNNING, "still running", T)));
    assertEquals(io.almanac.SkipReason.PREVIOUS_RUNNING, skipped.reasonCode());
    assertNull(skipped.missReason());

    WindowView running = view(List.of(scheduled()));
    assertNull(running.reasonCode(), "a window that runs has no such cause");
  }

  @Test
  @DisplayName("a window that ended without a success carries its EndCause as its typed cause: failed, throttled, timed "
      + "out, interrupted (by its cause), cancelled (by who); a success or a new attempt clears it")
  void endedWindowsCarryTheirEndCause() {
    TaskJournal.AttemptStarted started = new TaskJournal.AttemptStarted(W, 1, RunKind.FIRST, T.plusSeconds(900), "node-1",
        T.plusSeconds(1));
    WindowView failed = view(List.of(scheduled(), started,
        new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(2), "boom", T.plusSeconds(3))));
    assertEquals(InstanceStatus.FAILED, failed.status());
    assertEquals(io.almanac.EndCause.JOB_FAILED, failed.reasonCode());
    assertEquals(io.almanac.EndCause.THROTTLED, view(List.of(scheduled(), started,
        new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(2), "429", T.plusSeconds(3), Duration.ofSeconds(8), "llm")))
        .reasonCode());
    assertEquals(io.almanac.EndCause.TIMED_OUT, view(List.of(scheduled(), started,
        new TaskJournal.AttemptTimedOut(W, 1, T.plusSeconds(900), null, T.plusSeconds(900)))).reasonCode());
    WindowView interrupted = view(List.of(scheduled(), started,
        new TaskJournal.AttemptInterrupted(W, 1, io.almanac.InterruptCause.NODE_LOST, "kill -9", T.plusSeconds(5))));
    assertEquals(InstanceStatus.INTERRUPTED, interrupted.status());
    assertEquals(io.almanac.EndCause.NODE_LOST, interrupted.reasonCode());
    assertEquals(io.almanac.EndCause.TASK_REMOVED, view(List.of(scheduled(),
        new TaskJournal.InstanceCancelled(W, 0, "task removed", T.plusSeconds(2), TaskJournal.CancelCause.TASK_REMOVED,
            null))).reasonCode());
    assertEquals(io.almanac.EndCause.CANCELLED, view(List.of(scheduled(),
        new TaskJournal.InstanceCancelled(W, 0, "operator", T.plusSeconds(2), null))).reasonCode());
    WindowView again = view(List.of(scheduled(), started,
        new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(2), "boom", T.plusSeconds(3)),
        new TaskJournal.RetryScheduled(W, 1, T.plusSeconds(60), T.plusSeconds(3))));
    assertEquals(InstanceStatus.RETRY_WAIT, again.status());
    assertEquals(io.almanac.EndCause.JOB_FAILED, again.reasonCode(), "waiting for its retry: why it failed");
    again = view(List.of(scheduled(), started,
        new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(2), "boom", T.plusSeconds(3)),
        new TaskJournal.RetryScheduled(W, 1, T.plusSeconds(60), T.plusSeconds(3)),
        new TaskJournal.InstanceScheduled(W, T, T.plusSeconds(86_400), T.plusSeconds(60), RunKind.RETRY, T.plusSeconds(60)),
        new TaskJournal.AttemptStarted(W, 2, RunKind.RETRY, T.plusSeconds(960), "node-1", T.plusSeconds(60))));
    assertEquals(InstanceStatus.RUNNING, again.status());
    assertNull(again.reasonCode(), "a running window has no end cause");
    assertNull(again.endCause());
  }
}

package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.journal.Evolve;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LeaseExtended;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.WindowEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The row mapping from journal events, without a database or actors. */
class RowMappingTest {

  private static final Instant START = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant END = Instant.parse("2026-11-30T00:00:00Z");
  private static final String W = "2026-11-29";

  private static Instant t(int minutes) {
    return START.plus(Duration.ofMinutes(minutes));
  }

  private final List<String> violations = new ArrayList<>();
  private final Evolve.Violations sink = (w, f, to, e) -> violations.add(w + ":" + f + "->" + to);

  private InstanceRow row;
  private long seq;

  private Optional<InstanceRow> apply(WindowEvent e) {
    Optional<InstanceRow> next = RowMapping.apply(row, "digest", 3, ++seq, e, sink);
    next.ifPresent(r -> row = r);
    return next;
  }

  @Test
  void aPoolWaitReasonIsClearedWhenTheAttemptStartsOthersAreKept() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)));
    apply(new io.almanac.journal.TaskJournal.PoolWaited(W, "openai", io.almanac.PoolWaitReason.FULL, null, t(1)));
    assertEquals("waiting for pool openai: FULL", row.failReason());
    apply(new AttemptStarted(W, 1, RunKind.FIRST, t(60), "node-1", t(2)));
    assertEquals(InstanceStatus.RUNNING, row.status());
    assertNull(row.failReason(), "a RUNNING window waits for no pool");
    apply(new AttemptFailed(W, 1, Duration.ofSeconds(1), "boom", t(3)));
    apply(new RetryScheduled(W, 1, t(5), t(3)));
    apply(new InstanceScheduled(W, START, END, START, RunKind.RETRY, t(5)));
    apply(new AttemptStarted(W, 2, RunKind.RETRY, t(60), "node-1", t(6)));
    assertEquals("boom", row.failReason(), "another reason stays");
  }

  @Test
  void aRunWithARetryThenSuccess() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)));
    assertEquals(InstanceStatus.PENDING, row.status());
    assertEquals(START, row.windowStart());
    assertEquals(END, row.windowEnd());
    assertEquals(START, row.scheduledAt());
    assertEquals(t(0), row.createdAt());
    assertEquals(3, row.maxRetry());
    assertEquals(1, row.lastSeq());
    assertNull(row.finishedAt());

    apply(new AttemptStarted(W, 1, RunKind.FIRST, t(10), "node-1", t(1)));
    assertEquals(InstanceStatus.RUNNING, row.status());
    assertEquals(1, row.attempt());
    assertEquals(t(1), row.startedAt());

    apply(new LeaseExtended(W, 1, t(20), t(2)));
    assertEquals(InstanceStatus.RUNNING, row.status());
    assertEquals(t(2), row.updatedAt());

    apply(new AttemptFailed(W, 1, Duration.ofMinutes(2), "upstream 503", t(3)));
    assertEquals(InstanceStatus.FAILED, row.status());
    assertEquals("upstream 503", row.failReason());
    assertEquals(t(3), row.finishedAt());

    apply(new RetryScheduled(W, 1, t(5), t(3)));
    assertEquals(InstanceStatus.RETRY_WAIT, row.status());
    assertEquals(1, row.retryCount());
    assertEquals(t(3), row.finishedAt(), "waiting to retry keeps the failed attempt's end");

    apply(new InstanceScheduled(W, START, END, START, RunKind.RETRY, t(5)));
    assertEquals(InstanceStatus.PENDING, row.status());
    assertEquals(RunKind.RETRY, row.runKind());
    assertEquals(1, row.retryCount(), "a retry keeps the count");
    assertNull(row.finishedAt());

    apply(new AttemptStarted(W, 2, RunKind.RETRY, t(20), "node-1", t(6)));
    apply(new AttemptSucceeded(W, 2, Duration.ofMinutes(1), "digest ok", null, t(7)));
    assertEquals(InstanceStatus.SUCCEEDED, row.status());
    assertEquals(2, row.attempt());
    assertEquals("digest ok", row.resultSummary());
    assertNull(row.failReason());
    assertEquals(t(7), row.finishedAt());
    assertEquals(t(0), row.createdAt());
    assertEquals(t(7), row.updatedAt());
    assertEquals(8, row.lastSeq());
    assertTrue(violations.isEmpty(), violations.toString());
  }

  @Test
  void anEventAtOrBelowTheRowsLastSeqIsNotAppliedAgain() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)));
    apply(new AttemptStarted(W, 1, RunKind.FIRST, t(10), "node-1", t(1)));
    InstanceRow before = row;
    assertEquals(Optional.empty(), RowMapping.apply(row, "digest", 3, 2, new AttemptStarted(W, 1, RunKind.FIRST, t(10), "n", t(1)), sink));
    assertEquals(Optional.empty(), RowMapping.apply(row, "digest", 3, 1,
        new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)), sink));
    assertEquals(before, row);
  }

  @Test
  void aTransitionTheTableRefusesChangesNothingAndIsReported() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)));
    assertEquals(Optional.empty(), apply(new AttemptSucceeded(W, 1, Duration.ZERO, "x", null, t(1))));
    assertEquals(InstanceStatus.PENDING, row.status());
    assertEquals(List.of(W + ":PENDING->SUCCEEDED"), violations);
  }

  @Test
  void aSkipCreatesASkippedRowAndASkipOfAnExistingWindowChangesNothing() {
    apply(new FireSkipped(W, START, END, START, SkipReason.PAUSED, "task paused", t(0)));
    assertEquals(InstanceStatus.SKIPPED, row.status());
    assertEquals("PAUSED: task paused", row.failReason());
    assertEquals(t(0), row.finishedAt());
    assertEquals(Optional.empty(), apply(new FireSkipped(W, START, END, START, SkipReason.WINDOW_EXISTS, "again", t(1))));
  }

  @Test
  void finishedAtKeepsTheAttemptsEndThroughFinalFailureAndResolution() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.FIRST, t(0)));
    apply(new AttemptStarted(W, 1, RunKind.FIRST, t(10), "node-1", t(1)));
    apply(new AttemptFailed(W, 1, Duration.ofMinutes(1), "boom", t(2)));
    apply(new InstanceFinalFailed(W, "not retried", t(2)));
    assertEquals(InstanceStatus.FINAL_FAILED, row.status());
    assertEquals(t(2), row.finishedAt());
    apply(new InstanceResolved(W, "fixed by hand", t(30)));
    assertEquals(InstanceStatus.RESOLVED, row.status());
    assertEquals("fixed by hand", row.failReason());
    assertEquals(t(2), row.finishedAt());
    assertEquals(t(30), row.updatedAt());
  }

  @Test
  void aCancelledPendingWindowIsFinishedWhenCancelled() {
    apply(new InstanceScheduled(W, START, END, START, RunKind.BACKFILL, t(0)));
    apply(new InstanceCancelled(W, 0, "task removed", t(4)));
    assertEquals(InstanceStatus.CANCELLED, row.status());
    assertEquals(RunKind.BACKFILL, row.runKind());
    assertEquals(t(4), row.finishedAt());
  }

  @Test
  void anEventForAWindowWithoutARowIsReportedAndCreatesNothing() {
    assertEquals(Optional.empty(), apply(new AttemptStarted(W, 1, RunKind.FIRST, t(10), "n", t(1))));
    assertNull(row);
    assertEquals(List.of(W + ":null->RUNNING"), violations);
  }

  @Test
  void aRowFromTheHistoryTableComesBackLive() {
    apply(new FireSkipped(W, START, END, START, SkipReason.PAUSED, "task paused", t(0)));
    InstanceRow moved = new InstanceRow(row.taskId(), row.windowKey(), row.windowStart(), row.windowEnd(), row.status(),
        row.attempt(), row.retryCount(), row.maxRetry(), row.runKind(), row.resultSummary(), row.failReason(),
        row.scheduledAt(), row.startedAt(), row.finishedAt(), row.createdAt(), row.updatedAt(), row.lastSeq(), t(100));
    row = moved;
    apply(new InstanceScheduled(W, START, END, START, RunKind.MANUAL, t(200)));
    assertEquals(InstanceStatus.PENDING, row.status());
    assertNull(row.movedAt());
    assertEquals(t(0), row.createdAt());
  }
}

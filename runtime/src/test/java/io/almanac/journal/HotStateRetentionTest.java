package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What leaves a task's hot state (R30): age and status decide; the count bound is memory's only,
 * counts done windows alone and lets the oldest start go first, so a bulk action (a backfill and its
 * bulk cancel) never pushes a recent window out.
 */
class HotStateRetentionTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private static WindowState window(Instant start, InstanceStatus status, Instant at) {
    return WindowState.created(start.toString(), start, start.plus(MINUTE), start.plus(MINUTE), status, RunKind.BACKFILL,
        null, null, at);
  }

  /** The window with this status now. */
  private static WindowState now(WindowState w, InstanceStatus status) {
    WindowState.Copy c = w.copy();
    c.status = status;
    return c.at(NOW);
  }

  /** A task with 20 successes of the last 20 minutes. */
  private static TaskJournal.State recent(HotState hot) {
    TaskJournal.State s = TaskJournal.State.empty(10);
    for (int i = 20; i >= 1; i--) {
      Instant start = NOW.minus(MINUTE.multipliedBy(i + 1L));
      s = s.withWindow(window(start, InstanceStatus.SUCCEEDED, start.plus(MINUTE)), hot);
    }
    return s;
  }

  /** The 900 windows of a backfill of a day ago: PENDING, then bulk-cancelled. */
  private static TaskJournal.State backfillThenCancel(TaskJournal.State s, HotState hot, List<Instant> starts) {
    Instant from = NOW.minus(Duration.ofDays(1));
    for (int i = 0; i < 900; i++) {
      Instant start = from.plus(MINUTE.multipliedBy(i));
      starts.add(start);
      s = s.withWindow(window(start, InstanceStatus.PENDING, NOW), hot);
    }
    for (Instant start : starts) {
      s = s.withWindow(now(s.windows().get(start.toString()), InstanceStatus.CANCELLED), hot);
    }
    return s;
  }

  @Test
  @DisplayName("R30: after a 900-window backfill bulk-cancelled, with the default bound, every window stays hot and "
      + "nothing is archived")
  void bulkCancelUnderTheDefaultBound() {
    HotState hot = new HotState(2000, Duration.ofDays(30));
    List<Instant> starts = new ArrayList<>();
    TaskJournal.State s = backfillThenCancel(recent(hot), hot, starts);
    assertEquals(920, s.windows().size());
    assertNull(s.archivedThrough(), "nothing left the hot state");
    assertEquals(0, s.archivedCount());
  }

  @Test
  @DisplayName("R30: windows not done never count toward the bound: 900 PENDING backfill windows push no success out")
  void liveWindowsDoNotCount() {
    HotState hot = new HotState(30, Duration.ofDays(30));
    TaskJournal.State s = recent(hot);
    for (int i = 0; i < 900; i++) {
      Instant start = NOW.minus(Duration.ofDays(1)).plus(MINUTE.multipliedBy(i));
      s = s.withWindow(window(start, InstanceStatus.PENDING, NOW), hot);
    }
    assertEquals(920, s.windows().size());
    assertEquals(0, s.archivedCount());
  }

  @Test
  @DisplayName("R30: past a small bound, the bulk-cancelled backfill's own oldest windows leave; the recent successes "
      + "stay, and no recent window counts as archived")
  void smallBoundTakesTheOldestFirst() {
    HotState hot = new HotState(100, Duration.ofDays(30));
    List<Instant> starts = new ArrayList<>();
    TaskJournal.State s = backfillThenCancel(recent(hot), hot, starts);
    for (int i = 1; i <= 20; i++) {
      Instant start = NOW.minus(MINUTE.multipliedBy(i + 1L));
      assertEquals(InstanceStatus.SUCCEEDED, s.windows().get(start.toString()).status(), "recent window " + start);
      assertTrue(!s.archived(start), "recent window " + start + " is not archived");
    }
    assertEquals(100, s.table().doneCount());
    assertEquals(820, s.archivedCount(), "the 820 oldest cancelled windows left");
    assertEquals(starts.get(819), s.archivedThrough(), "through the newest that left, the rest kept");
    assertTrue(s.windows().containsKey(starts.get(820).toString()));
  }

  @Test
  @DisplayName("R30, the rule over any mix: a window leaves by count only when it is done and no kept done window is "
      + "older; live and FINAL_FAILED windows never leave")
  void countBoundIsOldestFirstOverAnyMix() {
    InstanceStatus[] statuses = InstanceStatus.values();
    Random random = new Random(34);
    HotState hot = new HotState(25, Duration.ofDays(30));
    TaskJournal.State s = TaskJournal.State.empty(10);
    List<String> keys = new ArrayList<>();
    for (int step = 0; step < 2000; step++) {
      Instant start = NOW.minus(MINUTE.multipliedBy(random.nextInt(5000)));
      InstanceStatus status = statuses[random.nextInt(statuses.length)];
      String key = start.toString();
      WindowState w = s.windows().containsKey(key) ? now(s.windows().get(key), status)
          : window(start, status, NOW);
      TaskJournal.State before = s;
      s = s.withWindow(w, hot);
      keys.add(key);
      assertTrue(s.table().doneCount() <= 25, "at most 25 done windows");
      Instant oldestKeptDone = null;
      for (WindowState kept : s.windows().values()) {
        if (kept.status().isTerminal() && (oldestKeptDone == null || kept.start().isBefore(oldestKeptDone))) {
          oldestKeptDone = kept.start();
        }
      }
      for (WindowState gone : before.windows().values()) {
        if (!s.windows().containsKey(gone.key()) && !gone.key().equals(key)) {
          assertTrue(gone.status().isTerminal(), "only a done window leaves: " + gone);
          assertTrue(oldestKeptDone == null || !gone.start().isAfter(oldestKeptDone),
              gone.start() + " left while " + oldestKeptDone + " stayed");
        }
      }
      if (!status.isTerminal()) {
        assertEquals(status, s.windows().get(key).status(), "the window just written stays");
      }
    }
  }
}

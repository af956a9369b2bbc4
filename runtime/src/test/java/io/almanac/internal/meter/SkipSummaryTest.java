package io.almanac.internal.meter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.WindowMissed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SkipSummaryTest {
  private static final Instant T = Instant.parse("2026-12-01T08:00:00Z");
  private static final Duration FIVE = Duration.ofSeconds(5);

  private static FireSkipped skipped(int second, SkipReason reason) {
    Instant s = T.plusSeconds(second);
    return new FireSkipped(s.toString(), s, s.plusSeconds(1), s, reason, "detail", s);
  }

  @Test
  @DisplayName("R7/R32: thousands of skipped windows make one line: counts by reason, tasks, three examples")
  void manySkipsOneLine() {
    SkipSummary summary = new SkipSummary();
    for (int task = 0; task < 1000; task++) {
      for (int second = 0; second < 5; second++) {
        summary.written("t" + task, List.of(skipped(second, task % 10 == 0 ? SkipReason.BUFFER_FULL : SkipReason.PREVIOUS_RUNNING)));
      }
    }
    summary.alerted("t1");
    summary.alerted("t2");
    summary.alerted("t1");
    SkipSummary.Line line = summary.drain(FIVE);
    assertNotNull(line);
    assertTrue(line.warn(), "overlap skips mean the node is behind: WARN");
    assertEquals("5000 windows of 1000 tasks did not run in the last 5 s (BUFFER_FULL 500, PREVIOUS_RUNNING 4500; "
        + "e.g. task 't0', 't1', 't2'); 2 tasks raised REPEATED_SKIPS (each alert went to the alert sink); "
        + "each window is recorded in its task's journal", line.text());
    assertNull(summary.drain(FIVE), "counted afresh after each line: nothing since");
  }

  @Test
  @DisplayName("skip ranges: a range's first window and the 99 windows it covered (no event each) are 100 windows of the "
      + "line; a catch-up's range counts its windows")
  void rangesCountEveryWindow() {
    SkipSummary summary = new SkipSummary();
    var opened = new io.almanac.journal.TaskJournal.SkipRangeOpened("w1", T, T.plusSeconds(1), T, io.almanac.InstanceStatus.SKIPPED,
        SkipReason.PREVIOUS_RUNNING, null, "window w0 is RUNNING", T);
    summary.written("busy", List.of(opened));
    for (int i = 0; i < 99; i++) {
      summary.covered("busy", opened.range());
    }
    summary.written("down", List.of(new io.almanac.journal.TaskJournal.WindowsSkipped("m1", T, T.plusSeconds(60), T, "m1400",
        T.plusSeconds(1399 * 60), T.plusSeconds(1399 * 60), 1400, io.almanac.InstanceStatus.MISSED, null,
        MissReason.BACKFILL_NOT_ALLOWED, "catch-up mode NONE", T)));
    SkipSummary.Line line = summary.drain(FIVE);
    assertTrue(line.warn());
    assertTrue(line.text().startsWith("1500 windows of 2 tasks did not run in the last 5 s (BACKFILL_NOT_ALLOWED 1400, "
        + "PREVIOUS_RUNNING 100;"), line.text());
  }

  @Test
  @DisplayName("R12: misses and pauses are summarised at INFO; a fresh fire's events count nothing")
  void policySkipsAreInfo() {
    SkipSummary summary = new SkipSummary();
    summary.written("fresh", List.of(new InstanceScheduled("w", T, T, T, RunKind.FIRST, T)));
    assertNull(summary.drain(FIVE), "no window skipped, no line");
    summary.written("paused", List.of(skipped(0, SkipReason.PAUSED)));
    summary.written("late", List.of(new WindowMissed("w", T, T, T, MissReason.OUTSIDE_HORIZON, "d", T)));
    SkipSummary.Line line = summary.drain(Duration.ofMillis(1500));
    assertFalse(line.warn());
    assertEquals("2 windows of 2 tasks did not run in the last 1500 ms (OUTSIDE_HORIZON 1, PAUSED 1; e.g. task 'paused', "
        + "'late'); each window is recorded in its task's journal", line.text());
  }

  @Test
  @DisplayName("R32: an alert counted after its windows' line still makes a line of its own")
  void alertAlone() {
    SkipSummary summary = new SkipSummary();
    summary.alerted("late-alert");
    SkipSummary.Line line = summary.drain(FIVE);
    assertTrue(line.warn());
    assertEquals("in the last 5 s 1 task raised REPEATED_SKIPS (each alert went to the alert sink); each window is "
        + "recorded in its task's journal", line.text());
  }
}

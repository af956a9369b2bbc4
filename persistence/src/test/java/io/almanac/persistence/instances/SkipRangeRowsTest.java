package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.SkipReason;
import io.almanac.journal.Evolve;
import io.almanac.journal.TaskJournal;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The instance table's rows of skip ranges (docs/skip-ranges.md): one row per range, its first
 * window's, whose reason names the range's windows and count.
 */
class SkipRangeRowsTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  @DisplayName("an open range is its first window's row; its close names first..last and the count in that row")
  void openThenClosed() {
    var opened = new TaskJournal.SkipRangeOpened("2026-11-29", T0, T0.plus(Duration.ofDays(1)), T0, InstanceStatus.SKIPPED,
        SkipReason.PAUSED, null, "task is paused", T0);
    InstanceRow row = RowMapping.apply(null, "t", 0, 1, opened, Evolve.Violations.IGNORE).orElseThrow();
    assertEquals("2026-11-29", row.windowKey());
    assertEquals(InstanceStatus.SKIPPED, row.status());
    assertTrue(row.failReason().startsWith("PAUSED: task is paused"), row.failReason());
    assertTrue(row.failReason().endsWith(Evolve.OPEN_RANGE), row.failReason());
    assertEquals(SkipReason.PAUSED, row.reasonCode(), "the typed cause, beside the text");
    var closed = new TaskJournal.SkipRangeClosed("2026-11-29", "2026-12-03", T0.plus(Duration.ofDays(4)),
        T0.plus(Duration.ofDays(4)), 5, T0.plus(Duration.ofDays(5)), "PAUSED: task is paused");
    InstanceRow after = RowMapping.apply(row, "t", 0, 7, closed, Evolve.Violations.IGNORE).orElseThrow();
    assertEquals(InstanceStatus.SKIPPED, after.status());
    assertEquals("PAUSED: task is paused [skip range: 5 windows from 2026-11-29 to 2026-12-03]", after.failReason());
    assertEquals(SkipReason.PAUSED, after.reasonCode(), "kept through the row's next event");
  }

  @Test
  @DisplayName("a catch-up's range of 1,400 missed windows is one row naming them")
  void catchUpRangeIsOneRow() {
    var range = new TaskJournal.WindowsSkipped("w-0001", T0, T0.plusSeconds(60), T0, "w-1400", T0.plusSeconds(1399 * 60),
        T0.plusSeconds(1399 * 60), 1400, InstanceStatus.MISSED, null, MissReason.BACKFILL_NOT_ALLOWED, "catch-up mode NONE",
        T0.plus(Duration.ofDays(1)));
    InstanceRow row = RowMapping.apply(null, "t", 0, 1, range, Evolve.Violations.IGNORE).orElseThrow();
    assertEquals(InstanceStatus.MISSED, row.status());
    assertEquals("BACKFILL_NOT_ALLOWED: catch-up mode NONE [skip range: 1400 windows from w-0001 to w-1400]",
        row.failReason());
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, row.reasonCode());
  }
}

package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.internal.task.OperatorRun.Action;
import io.almanac.internal.task.OperatorRun.Decided;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The operator's run of one window: one test per rule. */
class OperatorRunTest {

  @Test
  void schedulesAWindowWithNoInstance() {
    assertEquals(new Decided(Action.SCHEDULE, Decision.SCHEDULED, "BACKFILL", null),
        OperatorRun.decide(null, false, RunKind.BACKFILL));
    assertEquals("MANUAL", OperatorRun.decide(null, false, RunKind.MANUAL).reason());
  }

  @Test
  void leavesAWindowOlderThanTheHotStateToTheJournal() {
    Decided d = OperatorRun.decide(null, true, RunKind.BACKFILL);
    assertEquals(Action.ARCHIVED, d.action());
    assertEquals(Decision.ARCHIVED, d.decision());
    assertEquals("window is older than the hot state; see the journal (R30)", d.reason());
  }

  @Test
  void archivedIsAskedOnlyOfAWindowWithNoInstance() {
    assertEquals(Action.REOPEN, OperatorRun.decide(InstanceStatus.MISSED, true, RunKind.BACKFILL).action());
  }

  @Test
  void reopensFinalFailedCancelledSkippedAndMissedWindows() {
    for (InstanceStatus s : EnumSet.of(InstanceStatus.FINAL_FAILED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED,
        InstanceStatus.MISSED)) {
      assertEquals(new Decided(Action.REOPEN, Decision.SCHEDULED, "BACKFILL (was " + s + ")", null),
          OperatorRun.decide(s, false, RunKind.BACKFILL), s.name());
    }
    assertEquals(EnumSet.of(InstanceStatus.FINAL_FAILED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED,
        InstanceStatus.MISSED), OperatorRun.REOPENABLE);
  }

  @Test
  void recordsAnyOtherWindowAsExisting() {
    for (InstanceStatus s : EnumSet.complementOf(EnumSet.copyOf(OperatorRun.REOPENABLE))) {
      Decided d = OperatorRun.decide(s, false, RunKind.BACKFILL);
      assertEquals(new Decided(Action.RECORD_EXISTING, Decision.SKIPPED, "WINDOW_EXISTS: window is " + s,
          "window is " + s), d, s.name());
    }
    assertNull(OperatorRun.decide(null, false, RunKind.BACKFILL).skipDetail());
  }
}

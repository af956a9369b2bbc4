package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Firing;
import io.almanac.Window;
import io.almanac.WindowKey;
import io.almanac.schedule.DueWindow;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The hand-over of windows due while nothing fired them: after downtime, and after a planned hand-over (R12, R14). */
class CatchUpPlanTest {

  static final Instant NOW = Instant.parse("2026-11-30T08:00:00Z");
  static final Duration GRACE = Duration.ofSeconds(60);

  @Test
  @DisplayName("R12: after downtime only the latest recent window fires on time; the older ones go to the catch-up policy")
  void afterDowntime() {
    List<DueWindow> due = windows(NOW.minusSeconds(90), NOW.minusSeconds(30), NOW.minusSeconds(10));
    CatchUpPlan plan = CatchUpPlan.of(due, NOW, GRACE);
    assertEquals(due.subList(2, 3), plan.onTime());
    assertEquals(due.subList(0, 2), plan.catchUp());
    CatchUpPlan stale = CatchUpPlan.of(windows(NOW.minusSeconds(90), NOW.minusSeconds(61)), NOW, GRACE);
    assertEquals(List.of(), stale.onTime(), "a latest window older than the grace is not on time");
    assertEquals(2, stale.catchUp().size());
    assertEquals(new CatchUpPlan(List.of(), List.of()), CatchUpPlan.of(List.of(), NOW, GRACE));
  }

  @Test
  @DisplayName("R12: after a planned hand-over every window within the grace fires on time; older ones go to catch-up")
  void afterHandOver() {
    List<DueWindow> due = windows(NOW.minusSeconds(90), NOW.minusSeconds(60), NOW.minusSeconds(30), NOW);
    CatchUpPlan plan = CatchUpPlan.afterHandOver(due, NOW, GRACE);
    assertEquals(due.subList(1, 4), plan.onTime(), "due exactly at the grace's edge is still on time");
    assertEquals(due.subList(0, 1), plan.catchUp());
  }

  @Test
  @DisplayName("R12: a hand-over counts only for a successor starting within the lease time after it, never before it; "
      + "a cluster started again later (43 s, within the 60 s on-time grace) is downtime")
  void handOverApplies() {
    Duration lease = Duration.ofSeconds(8);
    assertTrue(CatchUpPlan.handOverApplies(NOW.minusSeconds(3), NOW, lease), "a successor 3 s later: a hand-over");
    assertTrue(CatchUpPlan.handOverApplies(NOW.minusSeconds(8), NOW, lease), "at the lease time's edge: still one");
    assertFalse(CatchUpPlan.handOverApplies(NOW.minusSeconds(9), NOW, lease), "beyond the lease time: nobody took over");
    assertFalse(CatchUpPlan.handOverApplies(NOW.minusSeconds(43), NOW, lease),
        "the whole cluster stopped and started 43 s later: downtime, though within the on-time grace");
    assertFalse(CatchUpPlan.handOverApplies(null, NOW, lease));
    assertFalse(CatchUpPlan.handOverApplies(NOW.plusSeconds(1), NOW, lease), "a hand-over in the future: a clock step back");
  }

  private static List<DueWindow> windows(Instant... dues) {
    return java.util.Arrays.stream(dues).map(d -> new DueWindow(new Window(WindowKey.of(d.toString()), d, d),
        new Firing(d.atOffset(ZoneOffset.UTC).toLocalDateTime(), d))).toList();
  }
}

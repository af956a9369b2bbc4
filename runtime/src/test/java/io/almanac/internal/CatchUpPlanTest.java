package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Firing;
import io.almanac.Window;
import io.almanac.WindowKey;
import io.almanac.schedule.DueWindow;
import java.time.ZoneOffset;
import java.time.Duration;
import java.time.Instant;
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
  @DisplayName("R12: a hand-over counts only for a successor starting within the grace after it, never before it")
  void handOverApplies() {
    assertTrue(CatchUpPlan.handOverApplies(NOW.minusSeconds(3), NOW, GRACE));
    assertTrue(CatchUpPlan.handOverApplies(NOW.minusSeconds(60), NOW, GRACE));
    assertFalse(CatchUpPlan.handOverApplies(NOW.minusSeconds(61), NOW, GRACE), "the whole cluster stopped: downtime");
    assertFalse(CatchUpPlan.handOverApplies(null, NOW, GRACE));
    assertFalse(CatchUpPlan.handOverApplies(NOW.plusSeconds(1), NOW, GRACE), "a hand-over in the future: a clock step back");
  }

  private static List<DueWindow> windows(Instant... dues) {
    return java.util.Arrays.stream(dues).map(d -> new DueWindow(new Window(WindowKey.of(d.toString()), d, d),
        new Firing(d.atOffset(ZoneOffset.UTC).toLocalDateTime(), d))).toList();
  }
}

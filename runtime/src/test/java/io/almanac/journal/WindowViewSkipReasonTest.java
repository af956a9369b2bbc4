package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A window's view carries the typed reason of its skip, so that callers need not read it out of the text. */
class WindowViewSkipReasonTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  @DisplayName("a SKIPPED window's view names its SkipReason; any other status has none")
  void skippedViewHasItsReason() {
    for (SkipReason reason : SkipReason.values()) {
      WindowState w = WindowState.created("2026-11-29", T0, T0.plusSeconds(86_400), T0, InstanceStatus.SKIPPED, RunKind.FIRST,
          reason + ": detail", reason, T0);
      WindowView v = w.view("t", 0);
      assertEquals(reason, v.skipReason());
      assertEquals(reason + ": detail", v.reason(), "the text stays as it was");
    }
    WindowState pending = WindowState.created("2026-11-29", T0, T0.plusSeconds(86_400), T0, InstanceStatus.PENDING,
        RunKind.FIRST, null, null, T0);
    assertNull(pending.view("t", 0).skipReason());
  }

  @Test
  @DisplayName("the view's shape before the skip reason (22 components) still builds, with none")
  void olderShapeHasNone() {
    WindowView v = new WindowView("t", WindowKey.of("2026-11-29"), T0, T0, T0, InstanceStatus.SKIPPED, RunKind.FIRST, 0, 0, 0,
        null, null, null, null, "PAUSED: task is paused", Map.of(), T0, T0, null, null, null, null);
    assertNull(v.skipReason());
    assertNull(v.deadlineMissedAt());
  }
}

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
  @DisplayName("a view built without a skip reason has none")
  void builtWithoutOneHasNone() {
    WindowView v = WindowView.builder().taskId("t").window(WindowKey.of("2026-11-29")).start(T0).end(T0).dueAt(T0)
        .status(InstanceStatus.SKIPPED).runKind(RunKind.FIRST).reason("PAUSED: task is paused").effects(Map.of())
        .createdAt(T0).updatedAt(T0).build();
    assertNull(v.skipReason());
    assertNull(v.deadlineMissedAt());
  }
}

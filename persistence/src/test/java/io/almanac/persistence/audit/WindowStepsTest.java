package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.journal.TaskJournal;
import io.almanac.journal.UsageRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A window's steps per attempt, read from its events: recorded once, replayed by later attempts. */
class WindowStepsTest {

  private static final Instant AT = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29";

  private static List<AuditEvent> events(Object... raw) {
    List<AuditEvent> out = new ArrayList<>();
    long seq = 1;
    for (Object e : raw) {
      out.add(new AuditEvent("t", seq++, e.getClass().getSimpleName(), W, 0, AT, ZoneOffset.UTC, "", e));
    }
    return out;
  }

  @Test
  @DisplayName("attempt 1 records gather and draft's usage; attempt 2 replays gather (its record's attempt and time, "
      + "no usage) and records publish; after the window is done, a new run's replays are not attributed to old records")
  void perAttempt() {
    UsageRecord u = new UsageRecord("m", 100, 20, 250_000);
    List<WindowSteps.Step> steps = WindowSteps.of(events(
        new TaskJournal.StepRecorded(W, 1, "gather", "java.lang.String", "\"facts\"", null, Duration.ofSeconds(3), AT),
        new TaskJournal.StepRecorded(W, 1, "draft", "D", "{}", u, Duration.ofSeconds(9), AT.plusSeconds(9)),
        new TaskJournal.AttemptFailed(W, 1, Duration.ofSeconds(12), "publish failed", AT.plusSeconds(12)),
        new TaskJournal.StepRecorded(W, 2, "publish", "java.lang.String", "\"id-1\"", null, Duration.ofSeconds(1),
            AT.plusSeconds(20)),
        new TaskJournal.StepsReplayed(W, 2, List.of("gather", "draft"), AT.plusSeconds(21)),
        new TaskJournal.AttemptSucceeded(W, 2, Duration.ofSeconds(2), "ok", null, AT.plusSeconds(21)),
        new TaskJournal.StepsReplayed(W, 3, List.of("gather"), AT.plusSeconds(40))));
    assertEquals(List.of("1 gather RECORDED", "1 draft RECORDED", "2 publish RECORDED", "2 gather REPLAYED",
        "2 draft REPLAYED", "3 gather REPLAYED"), steps.stream().map(s -> s.attempt() + " " + s.name() + " " + s.kind()).toList());
    assertEquals(0, new BigDecimal("0.25").compareTo(steps.get(1).usage().cost()));
    WindowSteps.Step replay = steps.get(4);
    assertEquals(1, replay.recordedBy());
    assertEquals(Duration.ofSeconds(9), replay.duration());
    assertNull(replay.usage(), "a replay uses nothing");
    assertEquals(0, steps.get(5).recordedBy(), "the window was done in between: its records were dropped");
  }
}

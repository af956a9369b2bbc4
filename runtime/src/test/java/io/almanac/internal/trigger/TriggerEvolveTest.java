package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TriggerJournal.HandedOver;
import io.almanac.journal.TriggerJournal.Progressed;
import io.almanac.journal.TriggerJournal.State;
import io.almanac.journal.TriggerJournal.TasksRegistered;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How the trigger's events change its state. */
class TriggerEvolveTest {

  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  static final SpecRecord A = SpecRecord.of(TaskSpec.builder("a").cron("0 0 * * * ? UTC").window("hourly").build());

  private static State state(Instant watermark, Instant handedOverAt) {
    return new State(Map.of(), watermark, Set.of(), handedOverAt);
  }

  @Test
  @DisplayName("R11 R24: a registration that starts before the watermark takes it back to its start")
  void registrationBehindTheWatermark() {
    State s = TriggerEvolve.registered(state(T0.plusSeconds(10), null), new TasksRegistered(List.of(A), T0, T0.plusSeconds(1)));
    assertEquals(T0.plusSeconds(1), s.watermark());
    assertEquals(A, s.tasks().get("a"));
  }

  @Test
  @DisplayName("a registration after the watermark, without a start (older journals), or before any watermark leaves it")
  void registrationLeavesTheWatermark() {
    assertEquals(T0, TriggerEvolve.registered(state(T0, null), new TasksRegistered(List.of(A), T0, T0.plusSeconds(1))).watermark());
    assertEquals(T0, TriggerEvolve.registered(state(T0, null), new TasksRegistered(List.of(A), T0, null)).watermark());
    assertNull(TriggerEvolve.registered(state(null, null), new TasksRegistered(List.of(A), T0, T0)).watermark());
  }

  @Test
  @DisplayName("the watermark only moves forward; activity changes apply")
  void progressed() {
    State s = TriggerEvolve.progressed(state(T0, null), new Progressed(T0.plusSeconds(1), List.of("a", "b"), List.of(), T0));
    assertEquals(T0.plusSeconds(1), s.watermark());
    assertEquals(Set.of("a", "b"), Set.copyOf(s.active()));
    s = TriggerEvolve.progressed(s, new Progressed(T0, List.of(), List.of("a"), T0));
    assertEquals(T0.plusSeconds(1), s.watermark(), "an older watermark does not take it back");
    assertEquals(Set.of("b"), Set.copyOf(s.active()));
  }

  @Test
  @DisplayName("R12: a hand-over is recorded; it ends when a trigger moves the watermark, not with an operator's mark")
  void handOver() {
    State s = TriggerEvolve.handedOver(state(T0, null), new HandedOver(T0, "node", T0.plusSeconds(2)));
    assertEquals(T0.plusSeconds(2), s.handedOverAt());
    State marked = TriggerEvolve.progressed(s, new Progressed(T0, List.of("a"), List.of(), T0.plusSeconds(3)));
    assertEquals(T0.plusSeconds(2), marked.handedOverAt(), "the same watermark: still handed over");
    assertNull(TriggerEvolve.progressed(s, new Progressed(T0.plusSeconds(4), List.of(), List.of(), T0)).handedOverAt());
  }
}

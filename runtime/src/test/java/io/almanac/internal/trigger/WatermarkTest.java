package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.journal.TriggerJournal.Progressed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The trigger's watermark and its writes, without an actor. */
class WatermarkTest {

  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  static final Duration INTERVAL = Duration.ofSeconds(1);

  @Test
  @DisplayName("R11: with nothing in flight or due, the watermark is now, and it is written")
  void movesToNow() {
    Watermark w = new Watermark(INTERVAL);
    assertEquals(new Progressed(T0, List.of(), List.of(), T0), w.advance(null, T0, null, null));
    assertEquals(T0, w.current());
  }

  @Test
  @DisplayName("R11: the watermark stays below the earliest fire in flight")
  void heldByAFireInFlight() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0, null, null);
    Progressed p = w.advance(T0, T0.plusSeconds(10), T0.plusSeconds(5), null);
    assertEquals(T0.plusSeconds(5).minusNanos(1), p.watermark());
  }

  @Test
  @DisplayName("R11: the watermark stays below an entry due but not yet taken (the tick stopped at max-in-flight); "
      + "one due later does not hold it")
  void heldByAnEntryDue() {
    Watermark w = new Watermark(INTERVAL);
    assertEquals(T0.plusSeconds(3).minusNanos(1), w.advance(null, T0.plusSeconds(10), null, T0.plusSeconds(3)).watermark());
    assertEquals(T0.plusSeconds(20), w.advance(T0, T0.plusSeconds(20), null, T0.plusSeconds(30)).watermark());
  }

  @Test
  @DisplayName("the watermark never moves back in memory (a clock stepped back, an older fire in flight)")
  void neverBack() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0.plusSeconds(10), null, null);
    assertNull(w.advance(T0.plusSeconds(10), T0.plusSeconds(12), T0.plusSeconds(5), null), "nothing moved: no write");
    assertEquals(T0.plusSeconds(10), w.current());
    assertNull(w.advance(T0.plusSeconds(10), T0, null, null), "the clock stepped back");
    assertEquals(T0.plusSeconds(10), w.current());
  }

  @Test
  @DisplayName("R24: a registration that starts before the watermark takes it back (reset to the persisted one)")
  void resetTakesItBack() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0.plusSeconds(10), null, null);
    w.reset(T0.plusSeconds(1));
    assertEquals(T0.plusSeconds(1), w.current());
  }

  @Test
  @DisplayName("written at most once per persist-interval")
  void persistInterval() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0, null, null);
    assertNull(w.advance(T0, T0.plusMillis(500), null, null));
    assertEquals(T0.plusMillis(500), w.current(), "it moves in memory meanwhile");
    assertEquals(T0.plusMillis(1000), w.advance(T0, T0.plusMillis(1000), null, null).watermark());
  }

  @Test
  @DisplayName("principle 5: tasks that became active or idle are written, also when the watermark did not move")
  void activityChanges() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0, null, null);
    w.reported("a", true, false);
    w.reported("b", false, true);
    w.reported("c", true, true); // known active: no change
    w.reported("d", false, false); // known idle: no change
    assertEquals(new Progressed(T0, List.of("a"), List.of("b"), T0.plusSeconds(1)),
        w.advance(T0, T0.plusSeconds(1), T0.plusNanos(1), null));
    assertNull(w.advance(T0, T0.plusSeconds(2), T0.plusNanos(1), null), "written once");
  }

  @Test
  @DisplayName("the last report of a task wins; a task whose activity is written by itself is forgotten")
  void lastReportWinsAndForget() {
    Watermark w = new Watermark(INTERVAL);
    w.advance(null, T0, null, null);
    w.reported("a", true, false);
    w.reported("a", false, false);
    w.reported("b", true, false);
    w.forget("b");
    assertNull(w.advance(T0, T0.plusSeconds(1), T0.plusNanos(1), null));
  }
}

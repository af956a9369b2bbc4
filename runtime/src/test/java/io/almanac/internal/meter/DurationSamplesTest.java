package io.almanac.internal.meter;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.almanac.journal.DurationSamples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DurationSamplesTest {

  @Test
  @DisplayName("R23 no samples, no P99")
  void emptyHasNoP99() {
    DurationSamples s = DurationSamples.empty();
    assertEquals(DurationSamples.DEFAULT_CAPACITY, s.capacity());
    assertEquals(100, s.capacity());
    assertEquals(0, s.count());
    assertEquals(Optional.empty(), s.p99());
  }

  @Test
  @DisplayName("R23 nearest-rank P99 of 1..100 ms is 99 ms, whatever the order")
  void p99NearestRank() {
    List<Long> values = new ArrayList<>(LongStream.rangeClosed(1, 100).boxed().toList());
    Collections.shuffle(values, new java.util.Random(7));
    DurationSamples s = DurationSamples.empty(100);
    for (long v : values) {
      s = s.add(ofMillis(v));
    }
    assertEquals(100, s.count());
    assertEquals(Optional.of(ofMillis(99)), s.p99());
  }

  @Test
  @DisplayName("R23 nearest-rank P99 of small sets is the largest sample")
  void p99OfSmallSets() {
    assertEquals(Optional.of(ofMillis(5)), DurationSamples.empty().add(ofMillis(5)).p99());
    assertEquals(Optional.of(ofMillis(30)), DurationSamples.of(100, List.of(10L, 30L, 20L)).p99());
    // 200 samples 1..200: rank ceil(198) = 198
    assertEquals(
        Optional.of(ofMillis(198)),
        DurationSamples.of(200, LongStream.rangeClosed(1, 200).boxed().toList()).p99());
  }

  @Test
  @DisplayName("R23 a full set evicts the oldest sample")
  void boundedCapacityEvictsOldest() {
    DurationSamples s = DurationSamples.empty(3);
    for (long v = 1; v <= 5; v++) {
      s = s.add(ofMillis(v));
    }
    assertEquals(3, s.count());
    assertEquals(List.of(3L, 4L, 5L), s.millis());
  }

  @Test
  @DisplayName("R23 add returns a new set and leaves the old one unchanged")
  void immutable() {
    DurationSamples one = DurationSamples.empty(10).add(ofMillis(1));
    DurationSamples two = one.add(ofMillis(2));
    assertEquals(List.of(1L), one.millis());
    assertEquals(List.of(1L, 2L), two.millis());
    assertThrows(UnsupportedOperationException.class, () -> two.millis().add(3L));
  }

  @Test
  @DisplayName("R23 restoring copies the list and keeps only the most recent capacity samples")
  void restoreFromSnapshot() {
    List<Long> given = new ArrayList<>(List.of(1L, 2L, 3L, 4L));
    DurationSamples s = DurationSamples.of(2, given);
    given.set(3, 40L);
    assertEquals(List.of(3L, 4L), s.millis());
    assertEquals(s, DurationSamples.of(2, List.of(3L, 4L)));
  }

  @Test
  @DisplayName("a negative duration (clock stepped back) counts as zero")
  void negativeDurationIsZero() {
    assertEquals(List.of(0L), DurationSamples.empty().add(Duration.ofSeconds(-3)).millis());
  }

  @Test
  @DisplayName("R33 durationSamples.capacity must be >= 1")
  void capacityAtLeastOne() {
    assertRefused("durationSamples.capacity", "0", () -> DurationSamples.empty(0));
  }

  @Test
  @DisplayName("R33 durationSamples.millis must not hold negative samples")
  void samplesNotNegative() {
    assertRefused(
        "durationSamples.millis", "[1, -2]", () -> DurationSamples.of(10, List.of(1L, -2L)));
  }
}

package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pool tests' judge, on lines made up here: it must see an overlap where there is one. */
class PoolTimelineTest {

  private static String line(String kind, String task, int attempt, String node, String at) {
    return "POOL-JOB " + kind + " " + task + " 2026-12-02T10:00:00Z " + attempt + " " + node + " 2026-12-02T10:00:" + at + "Z";
  }

  @Test
  @DisplayName("the most runs at once across nodes; an end and a start at the same instant do not overlap")
  void peak() {
    PoolTimeline t = PoolTimeline.parse(List.of(
        line("START", "a", 1, "n1", "01.000"),
        line("START", "b", 1, "n2", "01.500"),
        line("END", "a", 1, "n1", "02.000"),
        line("START", "c", 1, "n3", "02.000"), // starts as a ends: 2 at once, not 3
        line("START", "d", 1, "n1", "02.100"), // now b, c, d: 3
        line("END", "b", 1, "n2", "03.000"),
        line("END", "c", 1, "n3", "03.000"),
        line("END", "d", 1, "n1", "03.000"),
        "READY 1"));
    PoolTimeline.Peak p = t.peak(Map.of());
    assertEquals(3, p.count());
    assertEquals(Instant.parse("2026-12-02T10:00:02.100Z"), p.at());
    assertEquals(List.of("b", "c", "d"), p.runs().stream().map(PoolTimeline.Run::task).sorted().toList());
    assertEquals(1, t.peakBetween(Instant.parse("2026-12-02T10:00:01.200Z"), Instant.parse("2026-12-02T10:00:01.400Z"),
        Map.of()).count(), "a alone runs from 01.2 to 01.4");
    assertEquals(2, t.peakBetween(Instant.parse("2026-12-02T10:00:01.600Z"), Instant.parse("2026-12-02T10:00:02.050Z"),
        Map.of()).count());
    assertEquals(Map.of("n1", 2L, "n2", 1L, "n3", 1L), t.startsByNode());
    assertEquals(List.of(), t.unmatched());
  }

  @Test
  @DisplayName("a run without an end counts until its node's death, or for ever")
  void unended() {
    PoolTimeline t = PoolTimeline.parse(List.of(
        line("START", "a", 1, "n1", "01.000"),
        line("START", "b", 1, "n2", "05.000"),
        line("END", "b", 1, "n2", "06.000"),
        line("END", "x", 1, "n2", "06.000")));
    assertEquals(2, t.peak(Map.of()).count(), "a never ends");
    assertEquals(1, t.peak(Map.of("n1", Instant.parse("2026-12-02T10:00:04Z"))).count(), "a ended with n1 at 04");
    assertNull(t.unended().get(0).end());
    assertEquals(1, t.unmatched().size(), "x's END has no START");
    assertEquals(2, t.byWindow().size());
  }
}

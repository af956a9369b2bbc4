package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** InstanceFilter: what it accepts, and every bad input refused naming field and value. */
class InstanceFilterTest {

  private static void refused(String field, String value, Executable call) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, call);
    assertEquals(field, e.field(), e.getMessage());
    assertEquals(value, e.value(), e.getMessage());
  }

  @Test
  void defaults() {
    InstanceFilter f = InstanceFilter.builder().build();
    assertNull(f.taskId());
    assertTrue(f.statuses().isEmpty());
    assertEquals(100, f.limit());
    assertNull(f.after());
    assertEquals(false, f.history());
  }

  @Test
  void fromParamsReadsEveryParameter() {
    String cursor = new Cursor(Instant.parse("2026-11-29T00:00:00Z"), "digest", "2026-11-29").encode();
    InstanceFilter f = InstanceFilter.fromParams(Map.of(
        "task", List.of("digest"),
        "status", List.of("failed,final_failed", "SUCCEEDED"),
        "from", List.of("2026-11-01T00:00:00Z"),
        "to", List.of("2026-12-01T00:00:00Z"),
        "limit", List.of("50"),
        "after", List.of(cursor),
        "history", List.of("true")));
    assertEquals("digest", f.taskId());
    assertEquals(EnumSet.of(InstanceStatus.FAILED, InstanceStatus.FINAL_FAILED, InstanceStatus.SUCCEEDED), EnumSet.copyOf(f.statuses()));
    assertEquals(Instant.parse("2026-11-01T00:00:00Z"), f.from());
    assertEquals(Instant.parse("2026-12-01T00:00:00Z"), f.to());
    assertEquals(50, f.limit());
    assertEquals(cursor, f.after());
    assertTrue(f.history());
    assertEquals(new Cursor(Instant.parse("2026-11-29T00:00:00Z"), "digest", "2026-11-29"), f.cursor().orElseThrow());
  }

  @Test
  void aCursorRoundTripsWithAnyText() {
    Cursor c = new Cursor(Instant.parse("2026-11-29T00:00:00.123456789Z"), "täsk|with\nodd chars", "2026-11-29T00:00:00Z");
    assertEquals(c, Cursor.decode(c.encode()));
  }

  @Test
  void badLimits() {
    refused("limit", "0", () -> InstanceFilter.builder().limit(0).build());
    refused("limit", "501", () -> InstanceFilter.builder().limit(501).build());
    refused("limit", "-1", () -> InstanceFilter.builder().limit(-1).build());
    refused("limit", "ten", () -> InstanceFilter.fromParams(Map.of("limit", List.of("ten"))));
    refused("limit", "0", () -> InstanceFilter.fromParams(Map.of("limit", List.of("0"))));
  }

  @Test
  void fromMustBeBeforeTo() {
    refused("from", "2026-12-02T00:00:00Z", () -> InstanceFilter.builder()
        .from(Instant.parse("2026-12-02T00:00:00Z")).to(Instant.parse("2026-12-01T00:00:00Z")).build());
    refused("from", "2026-12-01T00:00:00Z", () -> InstanceFilter.builder()
        .from(Instant.parse("2026-12-01T00:00:00Z")).to(Instant.parse("2026-12-01T00:00:00Z")).build());
  }

  @Test
  void badInstants() {
    refused("from", "yesterday", () -> InstanceFilter.fromParams(Map.of("from", List.of("yesterday"))));
    refused("to", "2026-13-01", () -> InstanceFilter.fromParams(Map.of("to", List.of("2026-13-01"))));
  }

  @Test
  void unknownStatus() {
    refused("status", "DONE", () -> InstanceFilter.builder().status("DONE"));
    refused("status", "nope", () -> InstanceFilter.fromParams(Map.of("status", List.of("FAILED,nope"))));
  }

  @Test
  void malformedCursors() {
    refused("after", "not-a-cursor!", () -> InstanceFilter.builder().after("not-a-cursor!").build());
    refused("after", "AAAA", () -> InstanceFilter.builder().after("AAAA").build());
    String truncated = new Cursor(Instant.parse("2026-11-29T00:00:00Z"), "digest", "w").encode();
    String cut = truncated.substring(0, truncated.length() - 4);
    refused("after", cut, () -> InstanceFilter.fromParams(Map.of("after", List.of(cut))));
  }

  @Test
  void badTaskAndHistory() {
    refused("task", "", () -> InstanceFilter.builder().task("").build());
    refused("history", "yes", () -> InstanceFilter.fromParams(Map.of("history", List.of("yes"))));
  }

  @Test
  void orderIsAscOrDesc() {
    assertEquals(false, InstanceFilter.builder().build().descending());
    assertEquals(true, InstanceFilter.fromParams(Map.of("order", List.of("desc"))).descending());
    assertEquals(false, InstanceFilter.fromParams(Map.of("order", List.of("asc"))).descending());
    refused("order", "newest", () -> InstanceFilter.fromParams(Map.of("order", List.of("newest"))));
    assertEquals("task_id DESC, window_start DESC, window_key DESC", InstanceQueries.order(true, false, true));
    assertEquals("window_start, task_id, window_key", InstanceQueries.order(false, false, false));
  }

  @Test
  void instantsOutsideTheYears0001To9999AreRefused() {
    refused("from", "+200000-01-01T00:00:00Z",
        () -> InstanceFilter.fromParams(Map.of("from", List.of("+200000-01-01T00:00:00Z"))));
    refused("to", "+1000000000-01-01T00:00:00Z",
        () -> InstanceFilter.fromParams(Map.of("to", List.of("+1000000000-01-01T00:00:00Z"))));
    refused("from", "-0001-01-01T00:00:00Z",
        () -> InstanceFilter.builder().from(Instant.parse("-0001-01-01T00:00:00Z")).build());
    String far = new Cursor(Instant.parse("+200000-01-01T00:00:00Z"), "digest", "w").encode();
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> InstanceFilter.builder().after(far).build());
    assertEquals("after", e.field());
    assertTrue(e.getMessage().contains("outside the years 0001..9999"), e.getMessage());
    InstanceFilter edge = InstanceFilter.builder().from(Instant.parse("0001-01-01T00:00:00Z"))
        .to(Instant.parse("9999-12-31T23:59:59.999999999Z")).build();
    assertEquals(Instant.parse("0001-01-01T00:00:00Z"), edge.from());
  }

  @org.junit.jupiter.api.Test
  @org.junit.jupiter.api.DisplayName("by last change needs from and to, at most 31 days apart, the live table, and its own cursors")
  void byUpdatedIsBounded() {
    java.time.Instant from = java.time.Instant.parse("2026-11-01T00:00:00Z");
    InstanceFilter.Builder b = InstanceFilter.builder().byUpdated(true);
    org.junit.jupiter.api.Assertions.assertEquals("from", org.junit.jupiter.api.Assertions.assertThrows(
        io.almanac.InvalidSpecException.class, () -> InstanceFilter.builder().byUpdated(true).to(from).build()).field());
    org.junit.jupiter.api.Assertions.assertEquals("to", org.junit.jupiter.api.Assertions.assertThrows(
        io.almanac.InvalidSpecException.class, () -> InstanceFilter.builder().byUpdated(true).from(from).build()).field());
    org.junit.jupiter.api.Assertions.assertEquals("to", org.junit.jupiter.api.Assertions.assertThrows(
        io.almanac.InvalidSpecException.class, () -> b.from(from).to(from.plus(java.time.Duration.ofDays(32))).build())
        .field());
    org.junit.jupiter.api.Assertions.assertEquals("by", org.junit.jupiter.api.Assertions.assertThrows(
        io.almanac.InvalidSpecException.class, () -> InstanceFilter.builder().byUpdated(true).history(true).from(from)
            .to(from.plusSeconds(60)).build()).field());
    InstanceFilter ok = InstanceFilter.builder().byUpdated(true).from(from).to(from.plus(java.time.Duration.ofDays(31)))
        .after(from, "t", "w").build();
    org.junit.jupiter.api.Assertions.assertTrue(ok.cursor().orElseThrow().byUpdated());
    org.junit.jupiter.api.Assertions.assertEquals("after", org.junit.jupiter.api.Assertions.assertThrows(
        io.almanac.InvalidSpecException.class, () -> InstanceFilter.builder().after(ok.after()).build()).field());
  }
}

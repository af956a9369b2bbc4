package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The /api/windows query, parsed and paged without actors. */
class WindowFilterTest {

  static WindowFilter parse(String... pairs) {
    Map<String, List<String>> params = new java.util.LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      params.computeIfAbsent(pairs[i], k -> new ArrayList<>()).add(pairs[i + 1]);
    }
    return WindowFilter.parse(params);
  }

  static Problem refused(String... pairs) {
    return assertThrows(Problem.Raised.class, () -> parse(pairs)).problem();
  }

  static WindowView w(String task, String key, String start, InstanceStatus status) {
    Instant s = Instant.parse(start);
    return WindowView.builder().taskId(task).window(WindowKey.of(key)).start(s).end(s.plusSeconds(3600)).dueAt(s)
        .status(status).runKind(RunKind.FIRST).effects(Map.of()).createdAt(s).updatedAt(s).build();
  }

  @Test
  @DisplayName("defaults, repeated and comma-separated statuses, from inclusive and to exclusive on the start")
  void parses() {
    WindowFilter none = parse();
    assertEquals(100, none.limit());
    assertNull(none.task());
    assertEquals(Set.of(), none.statuses());
    WindowFilter f = parse("task", "digest", "status", "FINAL_FAILED,running", "status", "PENDING", "from",
        "2026-11-29T00:00:00Z", "to", "2026-11-30T00:00:00Z", "limit", "500");
    assertEquals(Set.of(InstanceStatus.FINAL_FAILED, InstanceStatus.RUNNING, InstanceStatus.PENDING), f.statuses());
    assertEquals(500, f.limit());
    assert f.matches(w("digest", "a", "2026-11-29T00:00:00Z", InstanceStatus.RUNNING));
    assert !f.matches(w("digest", "b", "2026-11-30T00:00:00Z", InstanceStatus.RUNNING));
    assert !f.matches(w("other", "c", "2026-11-29T01:00:00Z", InstanceStatus.RUNNING));
    assert !f.matches(w("digest", "d", "2026-11-29T01:00:00Z", InstanceStatus.SUCCEEDED));
  }

  static WindowView changed(String key, String start, String updated) {
    Instant s = Instant.parse(start);
    return WindowView.builder().taskId("digest").window(WindowKey.of(key)).start(s).end(s.plusSeconds(3600)).dueAt(s)
        .status(InstanceStatus.FAILED).runKind(RunKind.FIRST).effects(Map.of()).createdAt(s)
        .updatedAt(Instant.parse(updated)).build();
  }

  @Test
  @DisplayName("by=updated bounds the last change, needs from and to at most 31 days apart, and takes only its own cursors")
  void byLastChange() {
    WindowFilter f = parse("by", "updated", "from", "2026-11-29T00:00:00Z", "to", "2026-11-30T00:00:00Z");
    assertTrue(f.byUpdated());
    WindowView early = changed("a", "2026-11-01T00:00:00Z", "2026-11-29T10:00:00Z");
    assertTrue(f.matches(early), "started long before, changed in the range");
    assertFalse(f.matches(changed("b", "2026-11-29T10:00:00Z", "2026-11-30T00:00:00Z")), "to is exclusive");
    assertEquals("by", refused("by", "end").field());
    assertEquals("end", refused("by", "end").value());
    assertEquals("from", refused("by", "updated", "to", "2026-11-30T00:00:00Z").field());
    assertEquals("to", refused("by", "updated", "from", "2026-11-29T00:00:00Z").field());
    Problem wide = refused("by", "updated", "from", "2026-10-01T00:00:00Z", "to", "2026-11-02T00:00:00Z");
    assertEquals("to", wide.field());
    assertEquals("2026-11-02T00:00:00Z", wide.value());
    assertTrue(wide.detail().contains("at most 31 days"), wide.detail());
    String startCursor = WindowFilter.Cursor.of(early).encode();
    assertEquals("after", refused("by", "updated", "from", "2026-11-29T00:00:00Z", "to", "2026-11-30T00:00:00Z", "after",
        startCursor).field());
    String updatedCursor = WindowFilter.Cursor.of(early, true).encode();
    assertEquals("after", refused("after", updatedCursor).field());
    assertTrue(parse("by", "updated", "from", "2026-11-29T00:00:00Z", "to", "2026-11-30T00:00:00Z", "after", updatedCursor)
        .after().byUpdated());
  }

  @Test
  @DisplayName("each bad parameter is a 400 naming it and its value")
  void refusals() {
    Problem p = refused("limit", "0");
    assertEquals("limit: 0 must be between 1 and 500", p.detail());
    assertEquals("limit", p.field());
    assertEquals("0", p.value());
    assertEquals("https://almanac.io/problems/invalid-input", p.type());
    assertEquals("limit", refused("limit", "501").field());
    assertEquals("x", refused("limit", "x").value());
    assertEquals("NOPE", refused("status", "RUNNING,NOPE").value());
    assertEquals("", refused("status", "RUNNING,").value());
    assertEquals("from", refused("from", "2026-11-30").field());
    assertEquals("to", refused("to", "soon").field());
    assertEquals("from", refused("from", "2026-11-30T00:00:00Z", "to", "2026-11-30T00:00:00Z").field());
    assertEquals("after", refused("after", "!!").field());
    assertEquals("after", refused("after", "YWJj").field());
    assertEquals("task", refused("task", "a b").field());
    assertEquals("limit", refused("limit", "1", "limit", "2").field());
    assertEquals("page", refused("page", "2").field());
  }

  @Test
  @DisplayName("keyset pages: ordered by start, task, window; each cursor continues exactly after the last window, "
      + "even when windows are added before it between pages")
  void pages() {
    List<WindowView> all = new ArrayList<>(List.of(
        w("b", "2", "2026-11-29T01:00:00Z", InstanceStatus.PENDING),
        w("a", "1", "2026-11-29T00:00:00Z", InstanceStatus.PENDING),
        w("b", "1", "2026-11-29T00:00:00Z", InstanceStatus.PENDING),
        w("a", "2", "2026-11-29T01:00:00Z", InstanceStatus.PENDING),
        w("a", "3", "2026-11-29T02:00:00Z", InstanceStatus.PENDING)));
    all.sort(WindowFilter.ORDER);
    WindowPage first = WindowPage.of(all, parse("limit", "2"));
    assertEquals(List.of("a/1", "b/1"), first.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    all.add(0, w("a", "0", "2026-11-28T00:00:00Z", InstanceStatus.PENDING)); // before the cursor: not seen again
    WindowPage second = WindowPage.of(all, parse("limit", "2", "after", first.next()));
    assertEquals(List.of("a/2", "b/2"), second.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    WindowPage last = WindowPage.of(all, parse("limit", "2", "after", second.next()));
    assertEquals(List.of("a/3"), last.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    assertNull(last.next());
    assertNull(WindowPage.of(all.subList(0, 2), parse("limit", "2")).next(), "exactly a full page: no next");
  }

  @Test
  @DisplayName("order=desc: pages newest first, each cursor continuing backwards; order other than asc or desc is 400 "
      + "naming order; instants outside the years 0001..9999 are 400 naming the field")
  void descendingPages() {
    List<WindowView> all = new ArrayList<>(List.of(
        w("b", "2", "2026-11-29T01:00:00Z", InstanceStatus.PENDING),
        w("a", "1", "2026-11-29T00:00:00Z", InstanceStatus.PENDING),
        w("b", "1", "2026-11-29T00:00:00Z", InstanceStatus.PENDING),
        w("a", "2", "2026-11-29T01:00:00Z", InstanceStatus.PENDING),
        w("a", "3", "2026-11-29T02:00:00Z", InstanceStatus.PENDING)));
    WindowFilter desc = parse("limit", "2", "order", "desc");
    all.sort(desc.order());
    WindowPage first = WindowPage.of(all, desc);
    assertEquals(List.of("a/3", "b/2"), first.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    WindowPage second = WindowPage.of(all, parse("limit", "2", "order", "desc", "after", first.next()));
    assertEquals(List.of("a/2", "b/1"), second.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    WindowPage last = WindowPage.of(all, parse("limit", "2", "order", "desc", "after", second.next()));
    assertEquals(List.of("a/1"), last.windows().stream().map(x -> x.taskId() + "/" + x.window()).toList());
    assertNull(last.next());
    assertEquals(false, parse().descending());
    assertEquals(false, parse("order", "asc").descending());

    Problem bad = refused("order", "latest");
    assertEquals(400, bad.status());
    assertEquals("order", bad.field());
    assertEquals("latest", bad.value());
    assertEquals("from", refused("from", "+200000-01-01T00:00:00Z").field());
    assertEquals("to", refused("to", "+1000000000-01-01T00:00:00Z").field());
    assertEquals("+1000000000-01-01T00:00:00Z", refused("to", "+1000000000-01-01T00:00:00Z").value());
  }
}

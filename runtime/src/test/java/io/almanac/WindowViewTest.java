package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The window view: made only by its builder, compared and shown by value like the record it was. */
class WindowViewTest {

  private static final Instant T = Instant.parse("2026-11-29T00:00:00Z");

  private static WindowView.Builder failed() {
    return WindowView.builder().taskId("digest").window(WindowKey.of("2026-11-29")).start(T).end(T.plusSeconds(86_400))
        .dueAt(T).status(InstanceStatus.FINAL_FAILED).runKind(RunKind.RETRY).attempt(3).retries(2).maxRetries(2)
        .reason("boom").effects(Map.of("mail", "sent")).createdAt(T).updatedAt(T.plusSeconds(9)).version(7);
  }

  @Test
  @DisplayName("a user cannot construct a view (a window's, a task's, a day's usage): each class is final and has no "
      + "public constructor")
  void noPublicConstructor() {
    for (Class<?> view : List.of(WindowView.class, TaskView.class, DailyUsage.class)) {
      assertTrue(Modifier.isFinal(view.getModifiers()), view.getName());
      assertEquals(List.of(), Arrays.stream(view.getConstructors()).toList(), view.getName());
    }
  }

  @Test
  @DisplayName("two views with equal parts are equal and hash alike; one part apart, they differ")
  void valueSemantics() {
    WindowView a = failed().build();
    WindowView b = failed().build();
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, failed().version(8).build());
    assertNotEquals(a, failed().skipReason(SkipReason.EXCLUDED).build());
    assertNotEquals(a, failed().attempt(2).build());
  }

  @Test
  @DisplayName("toString names every part in the record's order and form")
  void toStringNamesEveryPart() {
    String s = failed().build().toString();
    assertTrue(s.startsWith("WindowView[taskId=digest, window=" + WindowKey.of("2026-11-29") + ", start="), s);
    assertTrue(s.contains(", status=FINAL_FAILED, runKind=RETRY, attempt=3, retries=2, maxRetries=2, "), s);
    assertTrue(s.endsWith(", skipReason=null, version=7, progress=null, missReason=null, endCause=null]"), s);
  }

  @Test
  @DisplayName("the accessors give what was built; a part not set is null or 0; withProgress changes only the progress")
  void accessorsAndProgress() {
    WindowView v = failed().build();
    assertEquals("digest", v.taskId());
    assertEquals(InstanceStatus.FINAL_FAILED, v.status());
    assertEquals(Map.of("mail", "sent"), v.effects());
    assertEquals(7, v.version());
    assertTrue(v.reopenable());
    assertNull(v.leaseUntil());
    assertNull(v.usage());
    WindowView.Progress p = new WindowView.Progress(3, 0.5, "half", T, List.of());
    WindowView live = v.withProgress(p);
    assertEquals(p, live.progress());
    assertEquals(failed().progress(p).build(), live);
    assertNull(v.progress(), "the view itself is unchanged");
  }
}

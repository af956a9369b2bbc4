package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The operator pages' views (the alert history's, R32, and the cluster's): made only by their builders,
 * compared and shown by value like the records they were, never sharing the caller's collections.
 */
class OperatorViewsTest {

  private static final Instant T = Instant.parse("2026-12-06T10:00:00Z");

  private static AlertRecord.Builder alert() {
    return AlertRecord.builder().seq(3).id("a3").kind(Alert.Kind.FINAL_FAILED).taskId("report").window("2026-12-06")
        .message("failed for good").at(T).node("pekko://almanac@10.0.0.1:25520")
        .deliveries(List.of(AlertRecord.Delivery.builder().sink("log").status(AlertRecord.DeliveryStatus.DELIVERED)
            .attempts(1).at(T).build()));
  }

  @Test
  @DisplayName("a user cannot construct an alert, a page or the cluster's view: each class is final and has no public "
      + "constructor")
  void noPublicConstructor() {
    for (Class<?> view : List.of(AlertRecord.class, AlertRecord.Delivery.class, AlertPage.class, ClusterView.class,
        ClusterView.Member.class, ClusterView.Executor.class, ClusterView.Pool.class, ClusterView.Holder.class)) {
      assertTrue(Modifier.isFinal(view.getModifiers()), view.getName());
      assertEquals(List.of(), Arrays.stream(view.getConstructors()).toList(), view.getName());
    }
  }

  @Test
  @DisplayName("two alerts with equal parts are equal and hash alike; one part apart, they differ; toString names every "
      + "part")
  void alertValueSemantics() {
    AlertRecord a = alert().build();
    assertEquals(a, alert().build());
    assertEquals(a.hashCode(), alert().build().hashCode());
    assertNotEquals(a, alert().seq(4).build());
    assertNotEquals(a, alert().deliveries(List.of()).build());
    assertEquals("AlertRecord[seq=3, id=a3, kind=FINAL_FAILED, taskId=report, window=2026-12-06, message=failed for good, "
        + "at=2026-12-06T10:00:00Z, node=pekko://almanac@10.0.0.1:25520, deliveries=[Delivery[sink=log, status=DELIVERED, "
        + "attempts=1, detail=null, at=2026-12-06T10:00:00Z]]]", a.toString());
  }

  @Test
  @DisplayName("lists and maps not set read empty (a pool's holders stay null: not asked); the ones given are copied")
  void collectionsNeverNullNorShared() {
    assertEquals(List.of(), AlertRecord.builder().build().deliveries());
    assertEquals(List.of(), AlertPage.builder().build().alerts());
    assertNull(AlertPage.builder().build().next());
    ClusterView empty = ClusterView.builder().build();
    assertEquals(List.of(), empty.members());
    assertEquals(List.of(), empty.pools());
    assertEquals(List.of(), ClusterView.Member.builder().build().roles());
    assertEquals(Map.of(), ClusterView.Executor.builder().build().poolWaiting());
    assertNull(ClusterView.Pool.builder().build().holders());

    List<String> roles = new ArrayList<>(List.of("dc-default"));
    Map<String, Integer> waiting = new HashMap<>(Map.of("llm", 2));
    ClusterView.Member m = ClusterView.Member.builder().address("pekko://almanac@10.0.0.1:25520").roles(roles)
        .executor(ClusterView.Executor.builder().slots(4).poolWaiting(waiting).build()).build();
    roles.add("other");
    waiting.put("llm", 9);
    assertEquals(List.of("dc-default"), m.roles());
    assertEquals(Map.of("llm", 2), m.executor().poolWaiting());
    assertThrows(UnsupportedOperationException.class, () -> m.roles().add("x"));
    assertEquals(m, ClusterView.Member.builder().address("pekko://almanac@10.0.0.1:25520").roles(List.of("dc-default"))
        .executor(ClusterView.Executor.builder().slots(4).poolWaiting(Map.of("llm", 2)).build()).build());
  }
}

package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.DependencyTrigger;
import io.almanac.EventTrigger;
import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Who listens to what among the registered tasks (R9), without an actor. */
class SubscriptionsTest {

  private static SpecRecord onEvent(String id, EventTrigger trigger) {
    return SpecRecord.of(TaskSpec.builder(id).onEvent(trigger).zone("UTC").window("hourly").job("j").build());
  }

  private static SpecRecord dependsOn(String id, String... upstream) {
    return SpecRecord.of(TaskSpec.builder(id).cron("0 30 0 * * ? UTC").window("daily").job("j")
        .dependsOn(DependencyTrigger.on(upstream)).build());
  }

  private static SpecRecord timed(String id) {
    return SpecRecord.of(TaskSpec.builder(id).cron("0 0 * * * ? UTC").window("hourly").job("j").build());
  }

  @Test
  @DisplayName("R9: an event type's listeners, sorted; those mapping by event time apart")
  void listenersOfAnEventType() {
    Subscriptions s = new Subscriptions();
    s.replace(null, onEvent("z", EventTrigger.of("order.paid")));
    s.replace(null, onEvent("a", EventTrigger.of("order.paid").byArrivalTime()));
    s.replace(null, onEvent("m", EventTrigger.of("other")));
    s.replace(null, timed("t"));
    assertEquals(List.of("a", "z"), s.listeners("order.paid"));
    assertEquals(List.of("z"), s.byEventTime("order.paid"));
    assertEquals(List.of(), s.listeners("nobody"));
    assertEquals(List.of(), s.byEventTime("nobody"));
  }

  @Test
  @DisplayName("R9: a changed spec listens to its new event type only; a removed task to none")
  void changeAndRemoval() {
    Subscriptions s = new Subscriptions();
    SpecRecord before = onEvent("a", EventTrigger.of("one"));
    s.replace(null, before);
    SpecRecord after = onEvent("a", EventTrigger.of("two").byArrivalTime());
    s.replace(before, after);
    assertEquals(List.of(), s.listeners("one"));
    assertEquals(List.of("a"), s.listeners("two"));
    assertEquals(List.of(), s.byEventTime("two"));
    s.replace(after, null);
    assertEquals(List.of(), s.listeners("two"));
  }

  @Test
  @DisplayName("R9: a task's dependents, sorted; a fire announces successes only when it has some")
  void dependents() {
    Subscriptions s = new Subscriptions();
    s.replace(null, timed("up"));
    s.replace(null, dependsOn("y", "up"));
    s.replace(null, dependsOn("x", "up", "other"));
    assertTrue(s.hasDependents("up"));
    assertTrue(s.hasDependents("other"), "an upstream not registered (missing-upstream WAIT) is counted too");
    assertFalse(s.hasDependents("x"));
    assertEquals(List.of("x", "y"), List.copyOf(s.dependentsOf("up")));
    assertEquals(List.of(), List.copyOf(s.dependentsOf("x")));
  }

  @Test
  @DisplayName("R9: a dependent whose spec no longer names the upstream, or that is removed, is no longer told")
  void dependentsChange() {
    Subscriptions s = new Subscriptions();
    SpecRecord x = dependsOn("x", "up");
    s.replace(null, x);
    SpecRecord x2 = dependsOn("x", "elsewhere");
    s.replace(x, x2);
    assertFalse(s.hasDependents("up"));
    assertEquals(List.of("x"), List.copyOf(s.dependentsOf("elsewhere")));
    s.replace(x2, null);
    assertFalse(s.hasDependents("elsewhere"));
  }

  @Test
  @DisplayName("the same spec registered again changes nothing")
  void sameSpecAgain() {
    Subscriptions s = new Subscriptions();
    SpecRecord x = dependsOn("x", "up");
    s.replace(null, x);
    s.replace(x, x);
    assertEquals(List.of("x"), List.copyOf(s.dependentsOf("up")));
  }
}

package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The per-task bound on a node's publishes (almanac.task.max-pending-publishes). */
class PublishGateTest {

  @Test
  @DisplayName("principle 6: a task takes at most the limit; a slot given back is free again")
  void boundsEachTask() {
    PublishGate gate = new PublishGate(2);
    assertNull(gate.admit(List.of("a")));
    assertNull(gate.admit(List.of("a")));
    assertEquals("a", gate.admit(List.of("a")));
    assertEquals(2, gate.pending("a"));
    gate.release("a");
    assertEquals(1, gate.pending("a"));
    assertNull(gate.admit(List.of("a")));
    assertNull(gate.admit(List.of("b")), "another task has its own bound");
  }

  @Test
  @DisplayName("principle 6: a publish to several tasks takes a slot in each or in none, so an overloaded publish reaches no task")
  void allOrNothing() {
    PublishGate gate = new PublishGate(1);
    assertNull(gate.admit(List.of("b")));
    assertEquals("b", gate.admit(List.of("a", "b", "c")));
    assertEquals(0, gate.pending("a"), "the slot taken in 'a' was given back");
    assertEquals(0, gate.pending("c"), "'c' was not reached");
    gate.release("b");
    assertNull(gate.admit(List.of("a", "b", "c")));
    assertEquals(List.of(1, 1, 1), List.of(gate.pending("a"), gate.pending("b"), gate.pending("c")));
  }

  @Test
  @DisplayName("principle 6: the last listeners of a type answer 'full' without asking the trigger; a task that left stops counting")
  void fullByTheLastListeners() {
    PublishGate gate = new PublishGate(1);
    assertNull(gate.full("order.paid"), "a type never published: ask the trigger");
    assertNull(gate.admit("order.paid", List.of("a", "b")));
    assertEquals("a", gate.full("order.paid"));
    gate.release("a");
    assertEquals("b", gate.full("order.paid"));
    gate.release("b");
    assertNull(gate.full("order.paid"));
    assertNull(gate.full("order.refunded"));
  }
}

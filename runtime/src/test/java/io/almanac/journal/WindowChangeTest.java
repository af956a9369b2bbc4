package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Evolve#applyAll} tells each window status change it makes as a typed {@link WindowChange}:
 * for every kind of window event, from every status, exactly the change the table allows (none for
 * an event that changes no status, or one the table refuses), with its cause; and the state is the
 * one {@link Evolve#apply} folds to.
 */
class WindowChangeTest {

  private static final HotState HOT = new HotState(1000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  void everyKindFromEveryStatusTellsTheChangeTheTableAllows() throws Exception {
    List<InstanceStatus> froms = new ArrayList<>();
    froms.add(null);
    froms.addAll(List.of(InstanceStatus.values()));
    java.util.Set<Transition> told = java.util.EnumSet.noneOf(Transition.class);
    for (Class<?> k : EventKindsTest.concreteKinds(TaskJournal.WindowEvent.class)) {
      TaskJournal.WindowEvent e = sample(k);
      for (InstanceStatus from : froms) {
        TaskJournal.State before = from == null ? TaskJournal.State.empty(10) : TaskJournal.State.empty(10)
            .withWindow(WindowState.created(e.window(), T0, T0, T0, from, RunKind.FIRST, null, null, T0), HOT);
        String what = k.getSimpleName() + " from " + from;
        Evolve.Applied applied = Evolve.applyAll(before, List.of(e), HOT, Evolve.Violations.IGNORE);
        assertEquals(Evolve.apply(before, e, HOT, Evolve.Violations.IGNORE), applied.state(), what + ": the same fold");
        List<String> expected = new ArrayList<>();
        if (e instanceof TaskJournal.WindowStarted started) {
          // each half is applied as its own event: a refused schedule leaves the window as it was for the start
          InstanceStatus mid = started.scheduled().statusAfter(from);
          if (Transition.isAllowed(from, mid)) {
            expected.add(from + "->" + mid);
          } else {
            mid = from;
          }
          if (Transition.isAllowed(mid, InstanceStatus.RUNNING)) {
            expected.add(mid + "->RUNNING");
          }
        } else {
          InstanceStatus to = e.statusAfter(from);
          if (to != null && Transition.isAllowed(from, to)) {
            expected.add(from + "->" + to);
          }
        }
        assertEquals(expected, applied.changes().stream().map(c -> c.from() + "->" + c.to()).toList(), what);
        for (WindowChange c : applied.changes()) {
          assertNotNull(c.cause(), what);
          assertEquals(WindowKey.of(e.window()), c.key(), what);
          assertEquals(c.to(), c.transition().to(), what);
          told.add(c.transition());
        }
      }
    }
    assertEquals(java.util.EnumSet.allOf(Transition.class), told, "every row of the table is told as a change");
  }

  /** {@link EventKindsTest#sample}, with durations (which the fold keeps as samples) at zero. */
  private static TaskJournal.WindowEvent sample(Class<?> kind) throws Exception {
    java.lang.reflect.RecordComponent[] rc = kind.getRecordComponents();
    Class<?>[] types = java.util.Arrays.stream(rc).map(java.lang.reflect.RecordComponent::getType).toArray(Class<?>[]::new);
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      args[i] = t == int.class ? 0 : t == long.class ? 0L : t == boolean.class ? false : t == Instant.class ? T0
          : t == RunKind.class ? RunKind.FIRST : t == String.class ? "w" : t == Duration.class ? Duration.ZERO
          : t == InstanceStatus.class ? InstanceStatus.SKIPPED : t == List.class ? List.of() : null;
    }
    return (TaskJournal.WindowEvent) kind.getDeclaredConstructor(types).newInstance(args);
  }

  @Test
  void aWriteTellsItsChangesInOrderWithTheirAttemptAndCause() {
    List<TaskJournal.Event> write = List.of(
        new TaskJournal.InstanceScheduled("a", T0, T0, T0, RunKind.FIRST, T0),
        new TaskJournal.AttemptStarted("a", 1, RunKind.FIRST, T0.plusSeconds(60), "node", T0),
        new TaskJournal.LeaseExtended("a", 1, T0.plusSeconds(120), T0),
        new TaskJournal.AttemptFailed("a", 1, Duration.ofSeconds(1), "boom", T0, null, null, null),
        new TaskJournal.InstanceFinalFailed("a", "no retries left", T0, null, null),
        new TaskJournal.FireSkipped("b", T0, T0, T0, io.almanac.SkipReason.PAUSED, "paused", T0));
    List<WindowChange> changes = Evolve.applyAll(TaskJournal.State.empty(10), write, HOT, Evolve.Violations.IGNORE)
        .changes();
    assertEquals(List.of("a null->PENDING 0", "a PENDING->RUNNING 1", "a RUNNING->FAILED 1", "a FAILED->FINAL_FAILED 1",
        "b null->SKIPPED 0"), changes.stream().map(c -> c.key() + " " + c.from() + "->" + c.to() + " " + c.attempt()).toList());
    assertInstanceOf(WindowChange.Started.class, changes.get(1).cause());
    assertEquals("boom", ((WindowChange.Ended) changes.get(2).cause()).reason());
    assertEquals("no retries left", ((WindowChange.FailedForGood) changes.get(3).cause()).reason());
    assertEquals(io.almanac.SkipReason.PAUSED, ((WindowChange.Skipped) changes.get(4).cause()).skipReason());
    assertEquals(write.get(5), changes.get(4).event());
  }
}

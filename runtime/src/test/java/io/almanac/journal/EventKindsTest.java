package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.IllegalTransitionException;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every kind of task event is covered: the sealed hierarchy lists it, the {@link TaskJournal.Visitor}
 * has a method for it, and what it does to a window's status ({@link TaskJournal.WindowEvent#statusAfter})
 * is pinned here from every status. A new kind of event fails this test until it is added to the
 * table below, and every reader of the journal fails to compile until its visitor handles it.
 */
class EventKindsTest {

  /** "-" for no change; one row per window event kind: the status it asks for from NEW, then each status. */
  private static final Map<String, String> STATUS_AFTER = Map.ofEntries(
      Map.entry("InstanceScheduled", "PENDING from any"),
      Map.entry("FireSkipped", "SKIPPED from NEW, - otherwise"),
      Map.entry("WindowMissed", "MISSED from NEW, - otherwise"),
      // a range's first window takes its outcome (the sample's: SKIPPED); a close changes no status
      Map.entry("SkipRangeOpened", "SKIPPED from NEW, - otherwise"),
      Map.entry("SkipRangeClosed", "-"),
      Map.entry("WindowsSkipped", "SKIPPED from NEW, - otherwise"),
      Map.entry("WindowWaiting", "WAITING from any"),
      Map.entry("AttemptStarted", "RUNNING from any"),
      Map.entry("WindowStarted", "RUNNING from any"),
      Map.entry("LeaseExtended", "-"),
      Map.entry("AttemptSucceeded", "SUCCEEDED from any"),
      Map.entry("AttemptFailed", "FAILED from any"),
      Map.entry("AttemptTimedOut", "TIMED_OUT from any"),
      Map.entry("AttemptInterrupted", "INTERRUPTED from any"),
      Map.entry("LateResultRecorded", "-"),
      Map.entry("RetryScheduled", "RETRY_WAIT from any"),
      Map.entry("InstanceFinalFailed", "FINAL_FAILED from any"),
      Map.entry("InstanceResolved", "RESOLVED from any"),
      Map.entry("InstanceCancelled", "CANCELLED from any"),
      Map.entry("EffectIntended", "-"),
      Map.entry("EffectRecorded", "-"),
      Map.entry("StepRecorded", "-"),
      Map.entry("StepsReplayed", "-"),
      Map.entry("EventReceived", "-"),
      Map.entry("EventDuplicated", "-"),
      Map.entry("WaitSatisfied", "-"),
      Map.entry("WaitEnded", "- from NEW, SKIPPED otherwise"),
      Map.entry("ConditionCheckFailed", "-"),
      Map.entry("UpstreamRerunRecorded", "-"),
      Map.entry("PoolWaited", "-"),
      Map.entry("DeadlineMissed", "-"),
      Map.entry("AttemptLogged", "-"));

  private static final Set<String> TASK_EVENTS = Set.of("SpecDefined", "TaskPaused", "TaskResumed", "TaskRemoved",
      "BudgetRaised");

  static List<Class<?>> concreteKinds(Class<?> sealed) {
    List<Class<?>> out = new ArrayList<>();
    for (Class<?> c : sealed.getPermittedSubclasses()) {
      if (c.isSealed()) {
        out.addAll(concreteKinds(c));
      } else {
        out.add(c);
      }
    }
    return out;
  }

  /** An instance of a record kind with every component at its type's zero (statusAfter reads no field). */
  static TaskJournal.Event sample(Class<?> kind) throws Exception {
    RecordComponent[] rc = kind.getRecordComponents();
    Class<?>[] types = Arrays.stream(rc).map(RecordComponent::getType).toArray(Class<?>[]::new);
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      args[i] = t == int.class ? 0 : t == long.class ? 0L : t == boolean.class ? false : t == Instant.class
          ? Instant.EPOCH : t == RunKind.class ? RunKind.FIRST : t == String.class ? "w"
          : t == InstanceStatus.class ? InstanceStatus.SKIPPED : null;
    }
    Constructor<?> c = kind.getDeclaredConstructor(types);
    return (TaskJournal.Event) c.newInstance(args);
  }

  @Test
  void everyKindIsARecordAndOnlyTheTaskLevelOnesAreNotAboutAWindow() {
    Set<String> task = new TreeSet<>();
    Set<String> window = new TreeSet<>();
    for (Class<?> k : concreteKinds(TaskJournal.Event.class)) {
      assertTrue(k.isRecord(), k + " is a record (data only)");
      (TaskJournal.WindowEvent.class.isAssignableFrom(k) ? window : task).add(k.getSimpleName());
    }
    assertEquals(new TreeSet<>(TASK_EVENTS), task);
    assertEquals(new TreeSet<>(STATUS_AFTER.keySet()), window,
        "a window event kind was added or removed: pin what it does to a window's status in STATUS_AFTER");
  }

  @Test
  void theVisitorHasOneMethodPerKindAndEachKindCallsItsOwn() throws Exception {
    Map<Class<?>, Method> byParameter = new HashMap<>();
    for (Method m : TaskJournal.Visitor.class.getDeclaredMethods()) {
      assertFalse(m.isDefault(), m + " has no default: every reader says what it does with each kind");
      assertEquals(1, m.getParameterCount(), m.toString());
      assertNull(byParameter.put(m.getParameterTypes()[0], m), "two visitor methods take " + m.getParameterTypes()[0]);
    }
    List<Class<?>> kinds = concreteKinds(TaskJournal.Event.class);
    assertEquals(new HashSet<>(kinds), byParameter.keySet());
    for (Class<?> k : kinds) {
      TaskJournal.Event e = sample(k);
      Method expected = byParameter.get(k);
      String called = e.accept((TaskJournal.Visitor<String>) java.lang.reflect.Proxy.newProxyInstance(
          getClass().getClassLoader(), new Class<?>[] {TaskJournal.Visitor.class}, (p, m, a) -> m.getName()));
      assertEquals(expected.getName(), called, k.getSimpleName() + ".accept");
    }
  }

  @Test
  void whatEachKindDoesToAWindowsStatusIsPinned() throws Exception {
    List<InstanceStatus> froms = new ArrayList<>();
    froms.add(null);
    froms.addAll(List.of(InstanceStatus.values()));
    for (Class<?> k : concreteKinds(TaskJournal.WindowEvent.class)) {
      TaskJournal.WindowEvent e = (TaskJournal.WindowEvent) sample(k);
      String rule = STATUS_AFTER.get(k.getSimpleName());
      for (InstanceStatus from : froms) {
        InstanceStatus to = e.statusAfter(from);
        assertEquals(expected(rule, from), to == null ? "-" : to.name(), k.getSimpleName() + " from " + from);
        assertEquals(to != null, to != null && Evolve.targetStatus(from, e).isPresent());
      }
      assertEquals(e.statusAfter(null) != null, e.createsInstance(), k.getSimpleName() + ".createsInstance");
    }
  }

  private static String expected(String rule, InstanceStatus from) {
    if (rule.equals("-")) {
      return "-";
    }
    if (rule.endsWith(" from any")) {
      return rule.substring(0, rule.indexOf(' '));
    }
    String[] parts = rule.split(", ");
    String fromNew = parts[0].substring(0, parts[0].indexOf(' '));
    String otherwise = parts[1].substring(0, parts[1].indexOf(' '));
    return from == null ? fromNew : otherwise;
  }

  @Test
  void everyTransitionOfTheTableIsAskedForBySomeKind() throws Exception {
    Set<Transition> asked = new LinkedHashSet<>();
    for (Class<?> k : concreteKinds(TaskJournal.WindowEvent.class)) {
      TaskJournal.WindowEvent e = (TaskJournal.WindowEvent) sample(k);
      for (Transition t : Transition.values()) {
        if (e.statusAfter(t.from()) == t.to()) {
          asked.add(t);
        }
      }
    }
    assertEquals(Set.of(Transition.values()), asked, "a transition no event can take is dead in the table");
  }

  @Test
  void checkAnswersWithTheEventWhenTheTableAllowsItAndNamesFromAndToWhenNot() {
    var scheduled = new TaskJournal.InstanceScheduled("w1", Instant.EPOCH, Instant.EPOCH, Instant.EPOCH, RunKind.FIRST,
        Instant.EPOCH);
    assertEquals(scheduled, Transition.check(InstanceStatus.FINAL_FAILED, scheduled));
    IllegalTransitionException refused = assertThrows(IllegalTransitionException.class,
        () -> Transition.check(InstanceStatus.SUCCEEDED, scheduled));
    assertTrue(refused.getMessage().contains("w1"), refused.getMessage());
    var lease = new TaskJournal.LeaseExtended("w1", 1, Instant.EPOCH, Instant.EPOCH);
    assertTrue(Transition.allows(InstanceStatus.SUCCEEDED, lease), "an event that changes no status is allowed");
    var started = new TaskJournal.WindowStarted("w1", Instant.EPOCH, Instant.EPOCH, Instant.EPOCH, RunKind.FIRST, 1,
        Instant.EPOCH, "node", Instant.EPOCH);
    assertTrue(Transition.allows(null, started), "NEW -> PENDING -> RUNNING");
    assertFalse(Transition.allows(InstanceStatus.RUNNING, started), "RUNNING -> PENDING is refused");
  }
}

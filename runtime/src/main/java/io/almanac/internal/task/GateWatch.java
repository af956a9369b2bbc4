package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The gate checks of a task's waiting windows, on the entity's side (R9): which windows are being
 * checked (one check per window at a time), when each was last checked, what the checks found
 * between polls ({@link GateDecider.Memory}: a condition's debounce), and the entity's {@link
 * GateProbe}, which does the checks' I/O and reports back as messages. In memory only: lost on a
 * restart, which can only delay a release. Owned by the entity and touched only on its thread.
 * INTERNAL API.
 */
final class GateWatch {

  private final Map<String, GateDecider.Memory> memory = new HashMap<>();
  private final Map<String, Instant> lastCheck = new HashMap<>();
  private final Set<String> checking = new HashSet<>();
  private final Supplier<ActorRef<GateProbe.Command>> spawn;
  private ActorRef<GateProbe.Command> probe;

  /** @param spawn spawns the entity's probe, at the first check (it is kept across a restart) */
  GateWatch(Supplier<ActorRef<GateProbe.Command>> spawn) {
    this.spawn = spawn;
  }

  /** Has the probe check the waiting windows that are due (see {@link #due}) of a task that is defined. */
  void checkDue(State state, Duration dependencyPoll, Instant now) {
    if (state.defined() && !state.removed()) {
      due(state, Gates.pollEvery(state.spec(), dependencyPoll), now).forEach(w -> check(state, w));
    }
  }

  /** Has the probe check a window now (unless a check of it runs, or window is null). */
  void checkNow(State state, String window, Instant now) {
    if (window == null) {
      return;
    }
    state.window(window).filter(w -> start(w.key(), now)).ifPresent(w -> check(state, w));
  }

  private void check(State state, WindowState w) {
    if (probe == null) {
      probe = spawn.get();
    }
    SpecRecord spec = state.spec();
    probe.tell(new GateProbe.Check(w.key(), w.start(), w.end(), spec.dependency() == null ? null : spec.dependency().upstream(),
        spec.condition(), nextPoll(w.key())));
  }

  /**
   * Starts a check of a window unless one runs.
   *
   * @param window the window's key
   * @param now the time
   * @return whether a check is to be started now
   */
  boolean start(String window, Instant now) {
    if (!checking.add(window)) {
      return false;
    }
    lastCheck.put(window, now);
    return true;
  }

  /**
   * The checks that are due: each waiting window once per poll interval, and at its deadline; the
   * memory of windows that no longer wait is forgotten.
   *
   * @param state the task's state
   * @param every how often a waiting window is checked
   * @param now the time
   * @return the windows whose check starts now (each started, as by {@link #start})
   */
  List<WindowState> due(State state, Duration every, Instant now) {
    List<WindowState> due = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (w.status() != InstanceStatus.WAITING) {
        continue;
      }
      Instant last = lastCheck.get(w.key());
      boolean isDue = last == null || !now.isBefore(last.plus(every.dividedBy(2)))
          || (w.waitUntil() != null && !now.isBefore(w.waitUntil()));
      if (isDue && start(w.key(), now)) {
        due.add(w);
      }
    }
    memory.keySet().removeIf(k -> notWaiting(state, k));
    lastCheck.keySet().removeIf(k -> notWaiting(state, k));
    return due;
  }

  private static boolean notWaiting(State state, String window) {
    return state.window(window).map(x -> x.status() != InstanceStatus.WAITING).orElse(true);
  }

  /** @return the number of the next poll of the window's condition */
  int nextPoll(String window) {
    return memory(window).polls() + 1;
  }

  /** @return what the window's earlier checks found */
  GateDecider.Memory memory(String window) {
    return memory.getOrDefault(window, GateDecider.Memory.NONE);
  }

  /**
   * @param window a window whose check came back
   * @return what was remembered of its earlier checks, or null
   */
  GateDecider.Memory checked(String window) {
    checking.remove(window);
    return memory.get(window);
  }

  /** Remembers what a check decided, for the window's next. */
  void remember(String window, GateDecider.Memory next) {
    memory.put(window, next);
  }

  /** After a recovery: nothing survives it. */
  void clear() {
    memory.clear();
    lastCheck.clear();
    checking.clear();
  }
}

package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.WindowView;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The live progress of a task's running attempts, for its views only: held in memory (never in the
 * journal, never in the state), one entry per running attempt, dropped when the attempt ends (an
 * entry whose window no longer runs that attempt is never shown and is removed at the next report
 * or view). Confined to the entity's thread. INTERNAL API.
 */
final class LiveProgress {

  private final Map<String, WindowView.Progress> byWindow = new HashMap<>();

  /**
   * Keeps a running attempt's report; a report from an attempt that no longer runs is ignored.
   *
   * @param state the task's state
   * @param window the window's key
   * @param attempt the attempt that reported
   * @param progress what it reported
   */
  void report(State state, String window, int attempt, WindowView.Progress progress) {
    prune(state);
    if (running(state.windows().get(window), attempt) && progress != null) {
      byWindow.put(window, progress);
    }
  }

  /** The attempt ended (its result arrived): its progress goes. */
  void ended(String window, int attempt) {
    WindowView.Progress p = byWindow.get(window);
    if (p != null && p.attempt() <= attempt) {
      byWindow.remove(window);
    }
  }

  /**
   * @param w a window
   * @return its running attempt's latest progress, or null
   */
  WindowView.Progress of(WindowState w) {
    if (byWindow.isEmpty()) {
      return null;
    }
    WindowView.Progress p = byWindow.get(w.key());
    if (p == null) {
      return null;
    }
    if (!running(w, p.attempt())) {
      byWindow.remove(w.key());
      return null;
    }
    return p;
  }

  /** @return how many attempts' progress is held */
  int size() {
    return byWindow.size();
  }

  private void prune(State state) {
    for (Iterator<Map.Entry<String, WindowView.Progress>> it = byWindow.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, WindowView.Progress> e = it.next();
      if (!running(state.windows().get(e.getKey()), e.getValue().attempt())) {
        it.remove();
      }
    }
  }

  private static boolean running(WindowState w, int attempt) {
    return w != null && w.status() == InstanceStatus.RUNNING && w.attempt() == attempt;
  }
}

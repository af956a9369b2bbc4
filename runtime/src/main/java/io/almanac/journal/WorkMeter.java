package io.almanac.journal;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the work a task's state does per event, as operations rather than time: window entries
 * copied when a state is built, and windows visited when code walks all of a task's windows. A fire
 * must cost the same with one hot window as with five hundred; the fire-cost test reads these
 * counters around one fire. Process-wide (LongAdder increments; read only by tests and the bench).
 * INTERNAL API.
 */
public final class WorkMeter {

  private static final LongAdder COPIED = new LongAdder();
  private static final LongAdder VISITED = new LongAdder();

  private WorkMeter() {}

  /** @param n window entries copied into a new state */
  static void copied(int n) {
    COPIED.add(n);
  }

  /** @param n windows visited by a walk over all of a task's windows */
  static void visited(int n) {
    VISITED.add(n);
  }

  /** @return window entries copied so far, process-wide */
  public static long copied() {
    return COPIED.sum();
  }

  /** @return windows visited by walks so far, process-wide */
  public static long visited() {
    return VISITED.sum();
  }
}

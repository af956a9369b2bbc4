package io.almanac.journal;

import java.time.Duration;

/**
 * How much of a task's windows its state keeps hot (R30): none done for longer than {@code maxAge},
 * and at most {@code windows} done ones (the oldest start leaves first); the others stay in the
 * journal. Windows not done (live, FINAL_FAILED) always stay and do not count.
 *
 * @param windows the most done windows kept
 * @param maxAge how long a done window stays
 * @param eventIds the most event ids an event-triggered task remembers to recognise duplicates
 *     (the oldest are forgotten first)
 */
public record HotState(int windows, Duration maxAge, int eventIds) {

  /** The default number of event ids remembered per task. */
  public static final int DEFAULT_EVENT_IDS = 10_000;

  /**
   * @param windows the most done windows kept
   * @param maxAge how long a done window stays
   */
  public HotState(int windows, Duration maxAge) {
    this(windows, maxAge, DEFAULT_EVENT_IDS);
  }
}

package io.almanac;

/**
 * What a task decided about a window an operator asked to run (R7, R31).
 *
 * @param window the window
 * @param decision what was decided
 * @param reason the reason, e.g. {@code WINDOW_EXISTS: window is SUCCEEDED}
 */
public record FireDecision(WindowKey window, Decision decision, String reason) {

  /** @return true when the window will run */
  public boolean scheduled() {
    return decision == Decision.SCHEDULED;
  }
}

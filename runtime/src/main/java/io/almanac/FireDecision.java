package io.almanac;

/**
 * What a task decided about a window an operator asked to run (R7, R31).
 *
 * @param window the window
 * @param decision {@code SCHEDULED} (it will run), {@code DUPLICATE} (it already has an instance),
 *     {@code SKIPPED} (recorded with its reason), {@code MISSED}, or {@code ARCHIVED} (older than
 *     the hot state)
 * @param reason the reason, e.g. {@code WINDOW_EXISTS: window is SUCCEEDED}
 */
public record FireDecision(WindowKey window, String decision, String reason) {

  /** @return true when the window will run */
  public boolean scheduled() {
    return "SCHEDULED".equals(decision);
  }
}

package io.almanac.schedule;

import io.almanac.Firing;
import io.almanac.Window;
import io.almanac.WindowKey;
import java.time.Instant;
import java.util.Objects;

/**
 * A firing of a task's schedule together with the business window it belongs to (R4): what the
 * trigger turns into at most one instance per (task, window) (R5).
 *
 * @param window the business window
 * @param firing the firing (nominal local time and real instant)
 */
public record DueWindow(Window window, Firing firing) {

  /**
   * Refuses nulls.
   *
   * @param window the business window
   * @param firing the firing
   * @throws NullPointerException if either part is null
   */
  public DueWindow {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(firing, "firing");
  }

  /**
   * The window's key.
   *
   * @return {@code window().key()}
   */
  public WindowKey key() {
    return window.key();
  }

  /**
   * When the window is due: the firing's real instant.
   *
   * @return {@code firing().at()}
   */
  public Instant dueAt() {
    return firing.at();
  }
}

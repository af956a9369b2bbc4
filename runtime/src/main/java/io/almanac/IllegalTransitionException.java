package io.almanac;

/**
 * A change of instance status that the transition table does not allow (R20), e.g. {@code illegal
 * transition SUCCEEDED -> PENDING for window '2026-11-29'}: a window never succeeds twice.
 */
public class IllegalTransitionException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /** The status before, or null for "no instance yet". */
  private final InstanceStatus from;

  /** The status refused. */
  private final InstanceStatus to;

  /**
   * @param from the current status, or null when the window has no instance yet (shown as {@code
   *     NEW})
   * @param to the status that was asked for
   * @param window the window key, e.g. {@code 2026-11-29}
   */
  public IllegalTransitionException(InstanceStatus from, InstanceStatus to, String window) {
    super(
        "illegal transition "
            + (from == null ? "NEW" : from.name())
            + " -> "
            + to
            + " for window '"
            + window
            + "'");
    this.from = from;
    this.to = to;
  }

  /**
   * @return the current status, or null when the window had no instance yet
   */
  /** A refusal as it arrives from another node (see RefusalSerializer): its parts, as sent. */
  IllegalTransitionException(String message, InstanceStatus from, InstanceStatus to) {
    super(message);
    this.from = from;
    this.to = to;
  }

  public InstanceStatus from() {
    return from;
  }

  /**
   * @return the status that was refused
   */
  public InstanceStatus to() {
    return to;
  }
}

package io.almanac;

/**
 * The state an operator's action on one window was decided on (a retry, a resolve, a cancel): the
 * window's {@link WindowView#version() version}, its {@link WindowView#status() status}, or both. The
 * task compares it with the window as it is when the action reaches it, inside its single writer: an
 * action whose expectation no longer holds (another action or an attempt moved the window on) is
 * refused with {@link RefusedException.Reason#STALE_WINDOW} and changes nothing. So of concurrent
 * actions that each carry the version they observed, at most one takes effect per version; the others
 * read the window again and decide anew. An action without an expectation (null) acts on the window as
 * it is then.
 *
 * @param version the window's version the action expects, or null: any
 * @param status the window's status the action expects, or null: any
 */
public record Expecting(Long version, InstanceStatus status) {

  /**
   * @param version the window's version the action expects (at least 0)
   * @return the expectation
   * @throws InvalidSpecException naming {@code expecting} when the version is negative
   */
  public static Expecting version(long version) {
    if (version < 0) {
      throw new InvalidSpecException("expecting", version, "a window's version is 0 or more");
    }
    return new Expecting(version, null);
  }

  /**
   * @param status the window's status the action expects
   * @return the expectation
   * @throws InvalidSpecException naming {@code expecting} when the status is null
   */
  public static Expecting status(InstanceStatus status) {
    if (status == null) {
      throw new InvalidSpecException("expecting", null, "name a status, e.g. FINAL_FAILED");
    }
    return new Expecting(null, status);
  }

  /**
   * @param window the window as the operator saw it
   * @return the expectation of its version and status
   */
  public static Expecting of(WindowView window) {
    return new Expecting(window.version(), window.status());
  }

  /**
   * @param actual the window's status now
   * @param actualVersion the window's version now
   * @return whether the action may go on
   */
  public boolean holds(InstanceStatus actual, long actualVersion) {
    return (version == null || version == actualVersion) && (status == null || status == actual);
  }

  @Override
  public String toString() {
    return version != null && status != null ? "version " + version + " (" + status + ")"
        : version != null ? "version " + version : "status " + status;
  }
}

package io.almanac;

import java.util.List;

/**
 * A node's health, for a supervisor's liveness and readiness probes ({@link Almanac#health()}).
 *
 * @param live the node's ActorSystem runs: restart the node when this is false
 * @param ready every check holds: the node can take work (route to it, count it in)
 * @param checks what was looked at, each with its outcome in words
 */
public record NodeHealth(boolean live, boolean ready, List<Check> checks) {

  /** Never null, never shared mutable. */
  public NodeHealth {
    checks = List.copyOf(checks);
  }

  /**
   * One check.
   *
   * @param name what was checked: {@code actor-system}, {@code cluster-member}, {@code tasks-registered},
   *     {@code trigger} or {@code journal}
   * @param ok whether it holds
   * @param detail what was seen, e.g. "last tick 0.4 s ago"
   */
  public record Check(String name, boolean ok, String detail) {}
}

package io.almanac;

import java.util.List;

/**
 * A page of the alert history ({@link Almanac#alerts}), newest first.
 *
 * @param alerts the alerts of the page, newest first
 * @param next the {@code before} of the next (older) page, or null when this is the last
 */
public record AlertPage(List<AlertRecord> alerts, Long next) {

  /** Never null, never shared mutable. */
  public AlertPage {
    alerts = alerts == null ? List.of() : List.copyOf(alerts);
  }
}

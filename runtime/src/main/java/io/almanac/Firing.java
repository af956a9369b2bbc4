package io.almanac;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Objects;

/**
 * One firing of a cron schedule: the cron's own local time and the real instant it fires at. The
 * two differ from a plain zone conversion only around daylight-saving transitions: a nominal 02:30
 * inside a spring-forward gap fires at 03:30 local (see {@link DstPolicy}), and keeps its nominal
 * 02:30 here, so its business window is computed from what the cron meant.
 *
 * @param nominal the local date-time the cron expression names, in the schedule's zone
 * @param at the real instant (UTC) of the firing
 */
public record Firing(LocalDateTime nominal, Instant at) {

  /**
   * Refuses nulls.
   *
   * @param nominal the nominal local date-time
   * @param at the real instant
   * @throws NullPointerException if either part is null
   */
  public Firing {
    Objects.requireNonNull(nominal, "nominal");
    Objects.requireNonNull(at, "at");
  }
}

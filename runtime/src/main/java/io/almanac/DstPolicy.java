package io.almanac;

/**
 * What a cron schedule does around daylight-saving transitions (R3). Cron expressions name
 * <em>local</em> times ("nominal" times); on the two days a year when the local clock jumps, some
 * nominal times do not exist and some exist twice. This policy says how such nominal times map to
 * real instants. Everything else maps to its one real instant.
 *
 * <p>The default, {@link #DEFAULT}, is {@code SHIFT} + {@code FIRST}: every nominal time fires
 * exactly once a day, and nothing fires twice.
 *
 * @param gap what happens to nominal times inside a spring-forward gap
 * @param overlap what happens to nominal times inside a fall-back overlap
 */
public record DstPolicy(Gap gap, Overlap overlap) {

  /** Shift gap times forward, fire overlapped times once (at the first occurrence). */
  public static final DstPolicy DEFAULT = new DstPolicy(Gap.SHIFT, Overlap.FIRST);

  /**
   * Spring forward: local times that do not exist on that day (in America/New_York on 2026-03-08,
   * 02:00 to 02:59:59).
   */
  public enum Gap {
    /**
     * A nominal time inside the gap fires at that local time read with the offset in force
     * <em>before</em> the gap, that is later by the gap's length (02:30 fires at 03:30 EDT), as
     * {@link java.time.ZonedDateTime#ofLocal} does. If that instant is also the instant of a real
     * (non-gap) nominal time of the same cron, the two are one firing and the real one is kept: an
     * hourly {@code 0 0 * * * ?} simply has no 02:00 that day, while a daily {@code 0 30 2 * * ?}
     * fires at 03:30 EDT.
     */
    SHIFT,
    /** A nominal time inside the gap does not fire at all on that day. */
    SKIP
  }

  /**
   * Fall back: local times that happen twice (in America/New_York on 2026-11-01, 01:00 to
   * 01:59:59, first as EDT and then as EST).
   */
  public enum Overlap {
    /** Fire only at the earlier instant (with the offset before the transition). */
    FIRST,
    /** Fire only at the later instant (with the offset after the transition). */
    LAST,
    /**
     * Fire at both instants; but a second-pass firing whose window key equals the key of the first
     * pass is dropped. Windows are computed from the nominal local time, so with daily or hourly
     * windows this behaves like {@link #FIRST}, and only per-firing windows get two firings.
     */
    BOTH
  }

  /**
   * Refuses missing parts.
   *
   * @param gap the gap behaviour
   * @param overlap the overlap behaviour
   * @throws InvalidSpecException if {@code gap} or {@code overlap} is null
   */
  public DstPolicy {
    if (gap == null) {
      throw new InvalidSpecException("dstPolicy.gap", null, "must be set");
    }
    if (overlap == null) {
      throw new InvalidSpecException("dstPolicy.overlap", null, "must be set");
    }
  }
}

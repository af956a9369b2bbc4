package io.almanac;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;

/**
 * How firings map to business windows (R4): each firing belongs to exactly one window, computed in
 * the task's zone (R26) from the firing's nominal local time (what the cron meant) and, if the spec
 * wants, the real instant it fired at.
 *
 * <p>Window specs are persisted by {@link #name() name}, so a name must always mean the same
 * thing. The built-ins are {@link #DAILY}, {@link #HOURLY} and {@link #PER_FIRING}; others are
 * added with {@link #register(WindowSpec)} before tasks that use them are registered or replayed.
 * Implementations must be immutable, thread-safe and deterministic.
 */
public interface WindowSpec {

  /**
   * One window per local calendar day, keyed {@code yyyy-MM-dd} of the nominal time (e.g. {@code
   * 2026-11-29}); it covers the day's first local instant up to the next day's (23, 24 or 25 real
   * hours).
   */
  WindowSpec DAILY = BuiltinWindowSpec.DAILY;

  /**
   * One window per local hour, keyed {@code yyyy-MM-dd-HH} of the nominal time (e.g. {@code
   * 2026-11-29-08}). The range runs from the hour's start to the next hour's start, each read as
   * {@link java.time.ZonedDateTime#ofLocal} does (earlier offset in an overlap, shifted forward in a
   * gap), and never ends before it starts. So the hour that does not exist on a spring-forward day
   * (America/New_York 2026-03-08, hour 02) has an empty range, and the hour that happens twice on a
   * fall-back day (2026-11-01, hour 01) spans two real hours.
   */
  WindowSpec HOURLY = BuiltinWindowSpec.HOURLY;

  /**
   * One window per firing, keyed by the firing's real instant in ISO-8601 UTC (e.g. {@code
   * 2026-11-29T00:00:00Z}); its range is that instant alone ({@code start == end}).
   */
  WindowSpec PER_FIRING = BuiltinWindowSpec.PER_FIRING;

  /**
   * The name the spec is persisted and looked up by, e.g. {@code daily}.
   *
   * @return the spec's unique name
   */
  String name();

  /**
   * The window a firing belongs to.
   *
   * @param nominal the firing's nominal local date-time (the cron's own local time) in {@code zone}
   * @param firedAt the firing's real instant
   * @param zone the task's zone
   * @return the window, with a key unique to it
   */
  Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone);

  /**
   * Finds a spec by name: a built-in or one added with {@link #register(WindowSpec)}.
   *
   * @param name the spec's name, e.g. {@code daily}, {@code hourly}, {@code per-firing}
   * @return the spec
   * @throws InvalidSpecException (field {@code window}) if no spec has that name
   */
  static WindowSpec byName(String name) {
    return WindowSpecRegistry.byName(name);
  }

  /**
   * Adds a custom window spec, so {@link #byName(String)} finds it. Thread-safe. Registering the
   * same instance again does nothing.
   *
   * @param spec the spec to add
   * @throws InvalidSpecException (field {@code window}) if the spec or its name is missing, or its
   *     name is already taken by a different spec (the built-ins' names included)
   */
  static void register(WindowSpec spec) {
    WindowSpecRegistry.register(spec);
  }
}

package io.almanac.internal.task;

import io.almanac.ExclusionCalendar;
import io.almanac.journal.SpecRecord;
import io.almanac.schedule.Bounds;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The parts of a richer schedule a task entity decides by (docs/schedules.md): whether a due window
 * is outside the task's bounds, or on a date of one of its exclusion calendars. Pure: compiled from
 * the persisted spec; a task without them never gets here (its spec has no {@code schedule}).
 * Immutable. INTERNAL API.
 */
final class ScheduleRules {

  private final SpecRecord.Schedule source;
  private final String zoneSource;
  private final ZoneId zone;
  private final Instant start;
  private final Instant end;
  private final List<ExclusionCalendar> calendars;

  private ScheduleRules(SpecRecord.Schedule source, String zoneSource, ZoneId zone, Instant start, Instant end,
      List<ExclusionCalendar> calendars) {
    this.source = source;
    this.zoneSource = zoneSource;
    this.zone = zone;
    this.start = start;
    this.end = end;
    this.calendars = calendars;
  }

  /**
   * @param spec a persisted spec with a schedule
   * @return its rules; a stored part today's rules refuse (a malformed date) is left out, and the
   *     task's registration, which validates, refuses it
   */
  static ScheduleRules of(SpecRecord spec) {
    SpecRecord.Schedule s = spec.schedule();
    ZoneId zone;
    try {
      zone = ZoneId.of(spec.zone());
    } catch (DateTimeException | NullPointerException e) {
      zone = ZoneId.of("UTC");
    }
    Instant start = null;
    Instant end = null;
    List<ExclusionCalendar> calendars = new ArrayList<>();
    try {
      start = Bounds.start(s.from(), zone);
      end = Bounds.end(s.until(), zone);
    } catch (RuntimeException e) {
      // refused at registration; a stored one is not applied
    }
    if (s.calendars() != null) {
      for (SpecRecord.Calendar c : s.calendars()) {
        try {
          calendars.add(ExclusionCalendar.of(c.name(), c.dates()));
        } catch (RuntimeException e) {
          // likewise
        }
      }
    }
    return new ScheduleRules(s, spec.zone(), zone, start, end, List.copyOf(calendars));
  }

  /**
   * Whether these rules were compiled from what {@code spec}'s rules depend on: its schedule and its
   * zone (the bounds' dates and the calendars' dates are the zone's).
   */
  boolean from(SpecRecord spec) {
    return (source == spec.schedule() || source.equals(spec.schedule())) && Objects.equals(zoneSource, spec.zone());
  }

  /**
   * Why a window due at {@code dueAt} does not run by the schedule, or null when it does.
   *
   * @param dueAt the window's (un-jittered) due time
   * @return {@link Causes.OutOfBounds}, {@link Causes.Excluded}, or null
   */
  Causes.SkipCause skipCause(Instant dueAt) {
    if (start != null && dueAt.isBefore(start)) {
      return new Causes.OutOfBounds(dueAt, "from", source.from());
    }
    if (end != null && !dueAt.isBefore(end)) {
      return new Causes.OutOfBounds(dueAt, "until", source.until());
    }
    return excluded(dueAt);
  }

  /**
   * The exclusion of a window due at {@code dueAt}, or null.
   *
   * @param dueAt the window's due time
   * @return the first calendar excluding its local date, or null
   */
  Causes.Excluded excluded(Instant dueAt) {
    if (calendars.isEmpty()) {
      return null;
    }
    LocalDate date = LocalDate.ofInstant(dueAt, zone);
    for (ExclusionCalendar c : calendars) {
      if (c.excludes(date)) {
        return new Causes.Excluded(c.name(), date, c.entryFor(date));
      }
    }
    return null;
  }

  /**
   * Why an operator's run at {@code now} is refused, or null.
   *
   * @param now the run's due time
   * @return the bound it is outside of, or null
   */
  Causes.OutOfBounds outOfBounds(Instant now) {
    Causes.SkipCause c = start != null && now.isBefore(start) || end != null && !now.isBefore(end) ? skipCause(now) : null;
    return (Causes.OutOfBounds) c;
  }
}

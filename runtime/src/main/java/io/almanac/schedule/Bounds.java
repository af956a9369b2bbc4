package io.almanac.schedule;

import io.almanac.InvalidSpecException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * A task's start and end bounds ({@code from}, {@code until}) as instants. Each is given as an ISO
 * date or an ISO instant with its offset: {@code from = 2027-01-01} is the start of that day in the
 * task's zone; {@code until = 2027-03-31} includes that whole day (its end is the start of the next
 * day in the task's zone); an instant {@code until} is included. A window is within the bounds when
 * its (un-jittered) due time is at or after the start and before the end.
 */
public final class Bounds {
  private Bounds() {}

  /**
   * @param from the start bound as given, or null
   * @param zone the task's zone
   * @return the first instant a window may be due at (inclusive), or null for none
   * @throws InvalidSpecException ({@code from}) if it is neither an ISO date nor an ISO instant with its offset
   */
  public static Instant start(String from, ZoneId zone) {
    if (from == null) {
      return null;
    }
    LocalDate date = date(from);
    return date != null ? date.atStartOfDay(zone).toInstant() : instant("from", from);
  }

  /**
   * @param until the end bound as given, or null
   * @param zone the task's zone
   * @return the first instant past the bounds (exclusive), or null for none
   * @throws InvalidSpecException ({@code until}) if it is neither an ISO date nor an ISO instant with its offset
   */
  public static Instant end(String until, ZoneId zone) {
    if (until == null) {
      return null;
    }
    LocalDate date = date(until);
    if (date != null) { // a stored bound past today's range (LocalDate.MAX) saturates instead of overflowing
      return date.equals(LocalDate.MAX) ? Instant.MAX : date.plusDays(1).atStartOfDay(zone).toInstant();
    }
    Instant at = instant("until", until);
    return at.equals(Instant.MAX) ? at : at.plusNanos(1);
  }

  /**
   * Checks a bound where it enters (a spec being registered): its year is one a cron can name, 1970
   * to 2099. A stored bound is read by {@link #start} and {@link #end} without this check, so a spec
   * stored by an earlier build keeps its meaning.
   *
   * @param field {@code from} or {@code until}
   * @param bound the bound as given, or null
   * @throws InvalidSpecException naming the field and the bound if it is malformed or outside 1970 to 2099
   */
  public static void checkYears(String field, String bound) {
    if (bound == null) {
      return;
    }
    LocalDate date = date(bound);
    if (date != null && (date.getYear() < 1970 || date.getYear() > 2099)) {
      throw new InvalidSpecException(field, bound, "must be a date from 1970 to 2099 (the years a cron can name)");
    }
    Instant at = date != null ? null : instant(field, bound);
    if (at != null && (at.isBefore(io.almanac.TaskSpec.EARLIEST_ONCE) || !at.isBefore(io.almanac.TaskSpec.LATEST_ONCE))) {
      throw new InvalidSpecException(field, bound, "must be an instant from " + io.almanac.TaskSpec.EARLIEST_ONCE
          + " and before " + io.almanac.TaskSpec.LATEST_ONCE + " (the years a cron can name)");
    }
  }

  private static LocalDate date(String text) {
    if (text.indexOf('T') >= 0) {
      return null;
    }
    try {
      return LocalDate.parse(text.strip());
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static Instant instant(String field, String text) {
    try {
      return OffsetDateTime.parse(text.strip(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeException e) {
      throw new InvalidSpecException(field, text, "must be an ISO date (2027-01-01, a day in the task's zone) or an"
          + " ISO instant with its offset (2027-01-01T09:00:00Z, 2027-01-01T17:00:00+08:00)");
    }
  }
}

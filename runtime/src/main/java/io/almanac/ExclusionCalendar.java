package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A named set of dates on which a task's cron windows do not run, e.g. {@code holidays-cn-2027}:
 * single dates ({@code 2027-01-01}) and inclusive ranges ({@code 2027-02-10..2027-02-16}). A date is
 * read in the zone of the task that names the calendar: a window is excluded when the local date of
 * its due time (its nominal firing time) is in the calendar. An excluded window is recorded SKIPPED
 * with {@link SkipReason#EXCLUDED}, naming the calendar. Declared once (in {@code almanac.calendars}
 * or in code) and shared by the tasks that name it ({@link TaskSpec.Builder#exclude}); a task's spec
 * holds the calendar's dates as they were when the task was registered. Immutable; see
 * docs/schedules.md.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"name", "dates"})
public final class ExclusionCalendar extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "name", "dates", "ranges");

  @Override
  Parts parts() {
    return PARTS;
  }

  /** Most entries (dates or ranges) a calendar may hold. */
  public static final int MAX_ENTRIES = 10_000;

  /** Longest range accepted, in days (ten years). */
  public static final int MAX_RANGE_DAYS = 3_660;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  private final String name;
  private final List<String> dates;
  /** Start of each range to its inclusive end; derived from {@code dates}. */
  private final transient TreeMap<LocalDate, LocalDate> ranges;

  private ExclusionCalendar(String name, List<String> dates, TreeMap<LocalDate, LocalDate> ranges) {
    this.name = name;
    this.dates = dates;
    this.ranges = ranges;
  }

  @JsonCreator
  private static ExclusionCalendar fromJson(@JsonProperty("name") String name, @JsonProperty("dates") List<String> dates) {
    return of(name, dates);
  }

  /**
   * A calendar of dates and date ranges.
   *
   * @param name its name: 1-100 letters, digits, {@code . _ -}
   * @param dates each an ISO date {@code 2027-01-01} or an inclusive range {@code 2027-02-10..2027-02-16}
   * @return the calendar
   * @throws InvalidSpecException ({@code calendars} naming the calendar, or {@code calendars.<name>.dates})
   *     if the name is invalid, a date or range is malformed, a range ends before it starts or is
   *     longer than {@value #MAX_RANGE_DAYS} days, or there are more than {@value #MAX_ENTRIES} entries
   */
  public static ExclusionCalendar of(String name, List<String> dates) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidSpecException("calendars", name, "a calendar's name is 1-100 letters, digits, '.', '_' or '-'");
    }
    String field = "calendars." + name + ".dates";
    if (dates == null) {
      throw new InvalidSpecException(field, null, "a calendar lists its dates, e.g. [\"2027-01-01\", \"2027-02-10..2027-02-16\"]");
    }
    if (dates.size() > MAX_ENTRIES) {
      throw new InvalidSpecException(field, dates.size() + " entries", "at most " + MAX_ENTRIES);
    }
    List<String> normalized = new ArrayList<>(dates.size());
    TreeMap<LocalDate, LocalDate> ranges = new TreeMap<>();
    for (String entry : dates) {
      if (entry == null || entry.isBlank()) {
        throw new InvalidSpecException(field, entry, "an entry is a date (2027-01-01) or a range (2027-02-10..2027-02-16)");
      }
      String e = entry.strip();
      int dots = e.indexOf("..");
      LocalDate start = date(field, entry, dots < 0 ? e : e.substring(0, dots).strip());
      LocalDate end = dots < 0 ? start : date(field, entry, e.substring(dots + 2).strip());
      if (end.isBefore(start)) {
        throw new InvalidSpecException(field, entry, "the range ends (" + end + ") before it starts (" + start + ")");
      }
      if (start.plusDays(MAX_RANGE_DAYS).isBefore(end)) {
        throw new InvalidSpecException(field, entry, "a range covers at most " + MAX_RANGE_DAYS + " days");
      }
      normalized.add(start.equals(end) ? start.toString() : start + ".." + end);
      merge(ranges, start, end);
    }
    return new ExclusionCalendar(name, List.copyOf(normalized), ranges);
  }

  /**
   * A calendar of dates and date ranges.
   *
   * @param name its name
   * @param dates each a date or an inclusive range
   * @return the calendar
   * @throws InvalidSpecException as {@link #of(String, List)}
   */
  public static ExclusionCalendar of(String name, String... dates) {
    return of(name, dates == null ? null : java.util.Arrays.asList(dates)); // a null entry is refused by name, not by List.of
  }

  private static LocalDate date(String field, String entry, String text) {
    try {
      return LocalDate.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidSpecException(field, entry, "not an ISO date: '" + InvalidSpecException.echo(text)
          + "'; an entry is a date (2027-01-01) or a range (2027-02-10..2027-02-16)");
    }
  }

  /** Adds [start, end] to disjoint ranges, merging those it touches or overlaps. */
  private static void merge(TreeMap<LocalDate, LocalDate> ranges, LocalDate start, LocalDate end) {
    Map.Entry<LocalDate, LocalDate> before = ranges.floorEntry(start);
    if (before != null && !before.getValue().plusDays(1).isBefore(start)) {
      start = before.getKey();
      end = before.getValue().isAfter(end) ? before.getValue() : end;
      ranges.remove(before.getKey());
    }
    Map.Entry<LocalDate, LocalDate> next = ranges.ceilingEntry(start);
    while (next != null && !next.getKey().isAfter(end.plusDays(1))) {
      end = next.getValue().isAfter(end) ? next.getValue() : end;
      ranges.remove(next.getKey());
      next = ranges.ceilingEntry(start);
    }
    ranges.put(start, end);
  }

  /** @return the calendar's name, e.g. {@code holidays-cn-2027} */
  public String name() {
    return name;
  }

  /** @return its entries as given, normalized: {@code 2027-01-01}, {@code 2027-02-10..2027-02-16} */
  public List<String> dates() {
    return dates;
  }

  /**
   * Whether a local date is in the calendar; O(log n) in its entries.
   *
   * @param date a date in the task's zone
   * @return whether it is excluded
   */
  public boolean excludes(LocalDate date) {
    Map.Entry<LocalDate, LocalDate> range = ranges.floorEntry(Objects.requireNonNull(date, "date"));
    return range != null && !range.getValue().isBefore(date);
  }

  /**
   * The entry that excludes a date, for "why".
   *
   * @param date a date
   * @return the merged range holding it, e.g. {@code 2027-02-10..2027-02-16} or {@code 2027-01-01}, or null
   */
  public String entryFor(LocalDate date) {
    Map.Entry<LocalDate, LocalDate> range = ranges.floorEntry(Objects.requireNonNull(date, "date"));
    if (range == null || range.getValue().isBefore(date)) {
      return null;
    }
    return range.getKey().equals(range.getValue()) ? range.getKey().toString() : range.getKey() + ".." + range.getValue();
  }
}

package io.almanac;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.Year;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cron expression in Quartz syntax (with a seconds field, R2) bound to an explicit time zone, e.g.
 * {@code 0 0 8 * * ? Asia/Shanghai}. It computes absolute firing instants (R1) in UTC (R26), with a
 * defined behaviour across daylight-saving transitions given by a {@link DstPolicy} (R3).
 *
 * <p>Fields: {@code seconds minutes hours day-of-month month day-of-week [year]}; one of
 * day-of-month and day-of-week must be {@code ?}. Five-field (Unix) crons are refused. Quartz years
 * end at 2099, so no schedule fires after 2099.
 *
 * <p>What is refused ({@link InvalidSpecException} on field {@code cron}, R33), beyond what the
 * Quartz grammar refuses:
 *
 * <ul>
 *   <li>any character but printable ASCII and ASCII whitespace (which separates fields): the
 *       refusal names the first one by code point and 1-based position, e.g. {@code U+0663} for an
 *       Arabic-Indic digit three, {@code U+FF13} for a fullwidth three, {@code U+0000} for a NUL;
 *   <li>an expression longer than {@value #MAX_CRON_LENGTH} characters;
 *   <li>{@code d#n} with n outside 1-5 (no month has a 6th Tuesday);
 *   <li>a cron that <b>never fires</b>: no date from 1970 to 2099 matches it, e.g. {@code 0 0 0 30 2
 *       ?}, {@code 0 0 0 31 4,6,9,11 ?}, {@code 0 0 0 29 2 ? 2027}. The rule does not depend on the
 *       clock, so a spec valid when stored stays valid on recovery: a cron whose years are all past
 *       (a one-shot {@code 0 0 8 1 1 ? 2020}) is accepted and simply has no next firing;
 *   <li>a cron whose firings cannot be computed: cron-utils parses it but throws while computing
 *       firings, e.g. {@code 0 0 12 31W * ?} (the weekday nearest the 31st, in a 30-day month or
 *       February). The check computes firings over a fixed horizon of every month length and a 29
 *       February, once per expression; any failure it did not catch surfaces at run time as a
 *       {@link ScheduleComputationException}, never as a raw cron-utils exception.
 * </ul>
 *
 * <p>Refusal messages are bounded: the echoed expression is cut to 100 characters plus {@code …
 * (N chars)} (see {@link InvalidSpecException}).
 *
 * <p>How firings are computed: the cron is evaluated on local date-times only (no zone, so no
 * daylight saving), and the zone's real time is walked as a sequence of intervals between offset
 * transitions. Each interval has one offset; the nominal local times that map into it are its own
 * local range, plus (spring-forward gap, {@link DstPolicy.Gap#SHIFT}) the gap's local times read
 * with the earlier offset, plus or minus (fall-back overlap) the repeated local hour as the policy
 * says. The cost of {@link #nextAfter} is a few cron look-ups, whatever the cron's frequency.
 *
 * <p>Instances are immutable and thread-safe; parsed expressions are cached process-wide, so the
 * same expression is parsed once.
 */
public final class CronSchedule {

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

  /** Longest cron expression accepted, in characters after whitespace is normalized. */
  public static final int MAX_CRON_LENGTH = 512;

  /**
   * The zone the cron library computes nominal local times in: UTC as a region, not {@link
   * ZoneOffset#UTC}. The same fixed rules, but a region keeps its rules while an offset builds new
   * ones on every call of {@code getRules()}, which the library makes at every step of a search.
   */
  private static final ZoneId NOMINAL = ZoneId.of("UTC");

  /**
   * Where the construction-time probe starts: a fixed instant, so that whether a cron is valid
   * never depends on the clock (a stored spec stays valid on recovery).
   */
  private static final ZonedDateTime PROBE_ANCHOR =
      ZonedDateTime.of(2025, 1, 1, 0, 0, 0, 0, NOMINAL);

  /** The last year a Quartz cron can name. */
  private static final int LAST_YEAR = 2099;

  /** The largest n of {@code nW} that every month has; a larger one fails inside cron-utils. */
  private static final int SAFE_NEAREST_WEEKDAY = 28;

  /** Bound of the parse cache; it is emptied when full. */
  static final int CACHE_LIMIT = 10_000;

  private static final ConcurrentHashMap<String, ExecutionTime> CACHE = new ConcurrentHashMap<>();
  private static final AtomicLong PARSES = new AtomicLong();

  /**
   * The date fields (day-of-month, month, day-of-week, year) of crons whose probe passed. What the
   * probe finds (a cron that never fires, or whose day candidates cron-utils cannot compute) is a
   * matter of dates only, so crons that differ only in their second, minute and hour share one
   * probe: 100,000 daily tasks at distinct times cost one, not 100,000 (each is up to 16 look-ups).
   * Bounded like the parse cache.
   */
  private static final Set<String> PROBED_DATES = ConcurrentHashMap.newKeySet();
  private static final AtomicLong PROBES = new AtomicLong();

  /** Safety bound on the zone intervals walked by one {@link #nextAfter} (about 500 years). */
  private static final int MAX_INTERVALS = 1_000;

  /** Returned by {@link #minInterval} when fewer than two firings remain. */
  private static final Duration NEVER_AGAIN = Duration.ofDays(36_500);

  private static final int MIN_INTERVAL_SAMPLE = 20;

  private static final Pattern WHITESPACE = Pattern.compile("\\s+");
  private static final Pattern OUT_OF_RANGE =
      Pattern.compile("Value (\\S+) not in range \\[(-?\\d+), (-?\\d+)\\]");
  private static final Pattern NTH_WEEKDAY = Pattern.compile("([A-Za-z0-9]+)#(\\d+)");
  private static final Pattern NEAREST_WEEKDAY = Pattern.compile("(\\d{1,2})W");
  private static final Pattern REGION_ID = Pattern.compile("[A-Za-z][A-Za-z0-9_+\\-]*/[A-Za-z].*");
  private static final String[] FIELD_NAMES = {
    "second", "minute", "hour", "day-of-month", "month", "day-of-week", "year"
  };
  private static final String FIELDS_HELP =
      "seconds minutes hours day-of-month month day-of-week [year]";
  private static final String ZONE_EXAMPLE = "'0 0 8 * * ? Asia/Shanghai'";

  private final String expression;
  private final ZoneId zone;
  private final ZoneRules rules;
  private final ExecutionTime executionTime;

  private CronSchedule(String expression, ZoneId zone, ExecutionTime executionTime) {
    this.expression = expression;
    this.zone = zone;
    this.rules = zone.getRules();
    this.executionTime = executionTime;
  }

  // ---------------------------------------------------------------------------------- parsing

  /**
   * Parses a cron expression with its zone.
   *
   * @param expression a Quartz cron with seconds, e.g. {@code 0 0 8 * * ?}
   * @param zoneId a zone id, e.g. {@code Asia/Shanghai} or {@code UTC}
   * @return the schedule
   * @throws InvalidSpecException field {@code cron} if the expression is missing or invalid, field
   *     {@code zone} if the zone is missing or unknown
   */
  public static CronSchedule parse(String expression, String zoneId) {
    String normalized = normalize(expression);
    ExecutionTime executionTime = executionTimeFor(normalized);
    return new CronSchedule(normalized, zoneOf(zoneId), executionTime);
  }

  /**
   * Parses a cron expression with its zone.
   *
   * @param expression a Quartz cron with seconds, e.g. {@code 0 0 8 * * ?}
   * @param zone the zone the cron's local times are read in
   * @return the schedule
   * @throws InvalidSpecException field {@code cron} if the expression is missing or invalid, field
   *     {@code zone} if the zone is null
   */
  public static CronSchedule parse(String expression, ZoneId zone) {
    String normalized = normalize(expression);
    ExecutionTime executionTime = executionTimeFor(normalized);
    if (zone == null) {
      throw new InvalidSpecException("zone", null, "must be set, e.g. Asia/Shanghai or UTC");
    }
    return new CronSchedule(normalized, zone, executionTime);
  }

  /**
   * Parses the one-string form: a cron followed by its zone id as the last token, e.g. {@code 0 0 8
   * * * ? Asia/Shanghai} (R2). The zone is required: there is no default zone.
   *
   * @param cronAndZone the cron expression and the zone id, separated by whitespace
   * @return the schedule
   * @throws InvalidSpecException field {@code zone} if the zone is missing or unknown, field {@code
   *     cron} if the expression is missing or invalid
   */
  public static CronSchedule parse(String cronAndZone) {
    if (cronAndZone == null || cronAndZone.isBlank()) {
      throw new InvalidSpecException(
          "cron", cronAndZone, "must not be blank; e.g. " + ZONE_EXAMPLE);
    }
    checkCharacters(cronAndZone);
    String[] tokens = WHITESPACE.split(cronAndZone.strip());
    String last = tokens[tokens.length - 1];
    String cronPart = String.join(" ", Arrays.copyOf(tokens, tokens.length - 1));
    ZoneId zone = tryZone(last);
    if (zone != null) {
      return parse(cronPart, zone);
    }
    // Not a known zone. A region-shaped id (Area/City) or a lettered token where only a year may
    // stand (the 7th field has no letters) is a zone that was meant but is unknown.
    boolean hasLetter = last.chars().anyMatch(Character::isLetter);
    if (REGION_ID.matcher(last).matches() && last.chars().anyMatch(Character::isLowerCase)
        || tokens.length >= 7 && hasLetter) {
      throw new InvalidSpecException("zone", last, "unknown time zone");
    }
    throw new InvalidSpecException(
        "zone",
        null,
        "missing in '" + cronAndZone.strip() + "': give it as the last token, e.g. " + ZONE_EXAMPLE);
  }

  private static ZoneId tryZone(String token) {
    try {
      return ZoneId.of(token);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static ZoneId zoneOf(String zoneId) {
    if (zoneId == null || zoneId.isBlank()) {
      throw new InvalidSpecException("zone", zoneId, "must be set, e.g. Asia/Shanghai or UTC");
    }
    ZoneId zone = tryZone(zoneId.strip());
    if (zone == null) {
      throw new InvalidSpecException("zone", zoneId, "unknown time zone");
    }
    return zone;
  }

  private static String normalize(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new InvalidSpecException(
          "cron", expression, "must not be blank; e.g. '0 0 8 * * ?' (" + FIELDS_HELP + ")");
    }
    checkCharacters(expression);
    String normalized = String.join(" ", WHITESPACE.split(expression.strip()));
    if (normalized.length() > MAX_CRON_LENGTH) {
      throw new InvalidSpecException(
          "cron",
          normalized,
          "is " + normalized.length() + " characters; at most " + MAX_CRON_LENGTH);
    }
    return normalized;
  }

  /**
   * Refuses any character but printable ASCII and ASCII whitespace (which separates fields), naming
   * the first offending one by code point and 1-based position, e.g. an Arabic-Indic or fullwidth
   * digit that {@link Character#isDigit} would accept, a NUL, or a bidi control.
   */
  private static void checkCharacters(String input) {
    int position = 0;
    for (int i = 0; i < input.length(); ) {
      int cp = input.codePointAt(i);
      position++;
      boolean printable = cp >= 0x20 && cp <= 0x7E;
      boolean separator = cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == 0x0B;
      if (!printable && !separator) {
        String name = Character.getName(cp);
        throw new InvalidSpecException(
            "cron",
            input,
            String.format("character U+%04X", cp)
                + (name == null ? "" : " (" + name + ")")
                + " at position "
                + position
                + " is not allowed: a cron is printable ASCII only (digits, letters, spaces and"
                + " * ? , - / L W #)");
      }
      i += Character.charCount(cp);
    }
  }

  /** The cached parse of a normalized expression; parses and caches it on first use. */
  private static ExecutionTime executionTimeFor(String normalized) {
    ExecutionTime cached = CACHE.get(normalized);
    if (cached != null) {
      return cached;
    }
    ExecutionTime parsed = compile(normalized);
    if (CACHE.size() >= CACHE_LIMIT) {
      CACHE.clear();
    }
    ExecutionTime raced = CACHE.putIfAbsent(normalized, parsed);
    return raced != null ? raced : parsed;
  }

  private static ExecutionTime compile(String normalized) {
    String[] tokens = normalized.split(" ");
    if (tokens.length < 6 || tokens.length > 7) {
      String hint =
          tokens.length == 5
              ? " (a 5-field Unix cron lacks the seconds: '0 8 * * *' becomes '0 0 8 * * ?')"
              : "";
      throw new InvalidSpecException(
          "cron",
          normalized,
          "has "
              + tokens.length
              + (tokens.length == 1 ? " field" : " fields")
              + " but needs 6 or 7: "
              + FIELDS_HELP
              + hint);
    }
    checkNthWeekday(normalized, tokens[5]);
    ExecutionTime executionTime;
    try {
      executionTime = ExecutionTime.forCron(PARSER.parse(normalized));
      PARSES.incrementAndGet();
    } catch (RuntimeException e) {
      InvalidSpecException refused = new InvalidSpecException("cron", normalized, readable(tokens, e));
      refused.initCause(e);
      throw refused;
    }
    String dates = String.join(" ", Arrays.asList(tokens).subList(3, tokens.length));
    if (!PROBED_DATES.contains(dates)) {
      probe(normalized, tokens, executionTime);
      PROBES.incrementAndGet();
      if (PROBED_DATES.size() >= CACHE_LIMIT) {
        PROBED_DATES.clear();
      }
      PROBED_DATES.add(dates);
    }
    return executionTime;
  }

  /** Refuses {@code d#n} with n outside 1-5: no month has a 6th Tuesday, so it would never fire. */
  private static void checkNthWeekday(String normalized, String dayOfWeek) {
    for (String part : dayOfWeek.split(",")) {
      Matcher nth = NTH_WEEKDAY.matcher(part);
      if (nth.matches()) {
        String n = nth.group(2);
        if (n.length() > 1 || n.charAt(0) < '1' || n.charAt(0) > '5') {
          throw new InvalidSpecException(
              "cron",
              normalized,
              "day-of-week '"
                  + part
                  + "' asks for weekday number "
                  + n
                  + " of the month, but n in d#n must be 1-5 (a month has at most 5 of any"
                  + " weekday)");
        }
      }
    }
  }

  /**
   * Computes firings over a horizon so that a cron cron-utils parses but cannot serve is refused
   * here rather than failing at run time. The horizon is fixed, not taken from the clock: it starts
   * on 1 January of the year of the cron's first firing at or after 2025-01-01 (or, for a cron whose
   * years are all earlier, of its last firing), and runs 14 months, so months of 28 or 29, 30 and 31
   * days, plus the next February of a leap year; the search starts afresh at the beginning of each
   * month after one with a firing, so each month's day candidates are computed. The cost is at most
   * 16 cron look-ups, paid once per expression (the parse is cached); a cron that never fires costs
   * two searches of the whole 1970-2099 range instead.
   *
   * @throws InvalidSpecException "never fires" if no date in 1970-2099 matches; "firings cannot be
   *     computed" if cron-utils throws anywhere in the horizon
   */
  private static void probe(String normalized, String[] tokens, ExecutionTime executionTime) {
    ZonedDateTime searchedFrom = PROBE_ANCHOR;
    try {
      ZonedDateTime start;
      Optional<ZonedDateTime> first = executionTime.nextExecution(PROBE_ANCHOR.minusSeconds(1));
      if (first.isPresent()) {
        start = first.get();
      } else {
        Optional<ZonedDateTime> last = executionTime.lastExecution(PROBE_ANCHOR);
        if (last.isEmpty()) {
          throw new InvalidSpecException(
              "cron",
              normalized,
              "never fires: no date from 1970 to 2099 matches it (e.g. 30 February, 31 April, 29"
                  + " February of a year that is not a leap year, a 6th weekday of a month)");
        }
        start = last.get();
      }
      // January of the first firing's year to February of the next: every month length, and
      // then the February of the first leap year from there, so 28 and 29 days both.
      ZonedDateTime cursor = start.withDayOfYear(1).truncatedTo(ChronoUnit.DAYS);
      ZonedDateTime end = cursor.plusMonths(14);
      ZonedDateTime leapFebruary = cursor.withMonth(2);
      while (!Year.isLeap(leapFebruary.getYear())) {
        leapFebruary = leapFebruary.plusYears(1);
      }
      while (cursor.isBefore(end)) {
        searchedFrom = cursor;
        Optional<ZonedDateTime> next = executionTime.nextExecution(cursor.minusSeconds(1));
        if (next.isEmpty() || !next.get().isBefore(end)) {
          break;
        }
        cursor = next.get().withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
      }
      if (!leapFebruary.isBefore(end) && leapFebruary.getYear() <= LAST_YEAR) {
        searchedFrom = leapFebruary;
        executionTime.nextExecution(leapFebruary.minusSeconds(1));
      }
    } catch (InvalidSpecException e) {
      throw e;
    } catch (RuntimeException e) {
      InvalidSpecException refused =
          new InvalidSpecException(
              "cron",
              normalized,
              "its firings cannot be computed: searching from "
                  + searchedFrom.toLocalDateTime()
                  + " fails with "
                  + InvalidSpecException.echo(e.getClass().getSimpleName() + ": " + e.getMessage())
                  + nearestWeekdayHint(tokens[3]));
      refused.initCause(e);
      throw refused;
    }
  }

  /** Names a day-of-month {@code nW} that not every month has, the known cause of such failures. */
  private static String nearestWeekdayHint(String dayOfMonth) {
    for (String part : dayOfMonth.split(",")) {
      Matcher nearest = NEAREST_WEEKDAY.matcher(part);
      if (nearest.matches() && Integer.parseInt(nearest.group(1)) > SAFE_NEAREST_WEEKDAY) {
        return "; day-of-month '"
            + part
            + "' (the weekday nearest day "
            + nearest.group(1)
            + ") fails in months shorter than "
            + nearest.group(1)
            + " days: use 'LW' for the last weekday of the month, or a day of at most "
            + SAFE_NEAREST_WEEKDAY;
      }
    }
    return "";
  }

  /** Turns a cron-utils message into one naming the field, e.g. "hour 25 is out of range 0-23". */
  private static String readable(String[] tokens, RuntimeException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    message = message.replace("Failed to parse cron expression. ", "").strip();
    if (message.contains("Both, a day-of-week AND a day-of-month parameter")) {
      return "day-of-month and day-of-week cannot both be set: use '?' in one of them, e.g."
          + " '0 0 8 * * ?' or '0 0 8 ? * MON-FRI'";
    }
    int field = offendingField(tokens);
    Matcher range = OUT_OF_RANGE.matcher(message);
    if (field >= 0 && range.find()) {
      return FIELD_NAMES[field]
          + " "
          + range.group(1)
          + " is out of range "
          + range.group(2)
          + "-"
          + range.group(3);
    }
    if (range.find(0)) {
      return "value " + range.group(1) + " is out of range " + range.group(2) + "-" + range.group(3);
    }
    if (field >= 0) {
      return FIELD_NAMES[field] + " field '" + tokens[field] + "' is invalid: " + message;
    }
    return message;
  }

  /** The first field that fails to parse on its own (others set to harmless values), or -1. */
  private static int offendingField(String[] tokens) {
    for (int i = 0; i < tokens.length; i++) {
      String[] probe = {"0", "0", "0", "1", "1", "?", "2050"};
      if (i == 5) {
        probe[3] = "?".equals(tokens[i]) ? "1" : "?";
      }
      probe[i] = tokens[i];
      if (i == 3 && "?".equals(tokens[i])) {
        probe[5] = "1";
      }
      String candidate = String.join(" ", Arrays.copyOf(probe, tokens.length));
      try {
        ExecutionTime.forCron(PARSER.parse(candidate));
      } catch (RuntimeException e) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Parses without the firing probe and without the cache, as a spec stored before the probe
   * existed would have been (for tests of run-time failures).
   */
  static CronSchedule parseUnchecked(String expression, ZoneId zone) {
    String normalized = normalize(expression);
    return new CronSchedule(normalized, zone, ExecutionTime.forCron(PARSER.parse(normalized)));
  }

  /** How many firing probes this process has run (for tests of the probe cache). */
  static long probeCount() {
    return PROBES.get();
  }

  /** How many expressions this process has parsed (for tests of the cache). */
  static long parseCount() {
    return PARSES.get();
  }

  /** The cached parsed form (for tests of the cache). */
  ExecutionTime executionTime() {
    return executionTime;
  }

  // ---------------------------------------------------------------------------------- accessors

  /**
   * The cron expression, whitespace normalized (single spaces), without the zone.
   *
   * @return the expression, e.g. {@code 0 0 8 * * ?}
   */
  public String expression() {
    return expression;
  }

  /**
   * The zone the cron's local times are read in.
   *
   * @return the zone
   */
  public ZoneId zone() {
    return zone;
  }

  /**
   * The one-string form, parseable by {@link #parse(String)}.
   *
   * @return expression, a space and the zone id, e.g. {@code 0 0 8 * * ? Asia/Shanghai}
   */
  @Override
  public String toString() {
    return expression + " " + zone.getId();
  }

  /**
   * Two schedules are equal when their expressions and zones are.
   *
   * @param other the object to compare with
   * @return whether {@code other} is the same schedule
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof CronSchedule that
        && expression.equals(that.expression)
        && zone.equals(that.zone);
  }

  /**
   * A hash consistent with {@link #equals(Object)}.
   *
   * @return the hash
   */
  @Override
  public int hashCode() {
    return Objects.hash(expression, zone);
  }

  // ---------------------------------------------------------------------------------- firings

  /**
   * The earliest firing strictly after {@code t}, under the given daylight-saving policy.
   *
   * @param t the instant to search after (exclusive)
   * @param policy what to do with nominal times in a spring-forward gap or fall-back overlap
   * @return the firing, with its nominal local time and real instant; empty if the cron never
   *     fires again (past the cron's last year, e.g. {@code 0 0 0 1 1 ? 2020})
   * @throws ScheduleComputationException if the firing cannot be computed (the cron library
   *     failed); never a raw exception of the cron library
   */
  public Optional<Firing> nextAfter(Instant t, DstPolicy policy) {
    Objects.requireNonNull(t, "t");
    Objects.requireNonNull(policy, "policy");
    try {
      return search(t, policy);
    } catch (RuntimeException e) {
      // cron-utils (or date arithmetic at the ends of time) failed: one typed exception, so the
      // caller can set this task aside without stopping the others.
      throw new ScheduleComputationException(expression, zone, t, e);
    }
  }

  private Optional<Firing> search(Instant t, DstPolicy policy) {
    if (rules.isFixedOffset()) {
      ZoneOffset offset = rules.getOffset(t);
      return cronAfter(LocalDateTime.ofInstant(t, offset))
          .map(nominal -> new Firing(nominal, nominal.toInstant(offset)));
    }
    // The interval [prev, next) of real time that contains t, and its one offset.
    ZoneOffsetTransition next = rules.nextTransition(t);
    ZoneOffsetTransition prev =
        next != null ? rules.previousTransition(next.getInstant())
            : rules.previousTransition(t.plusNanos(1));
    ZoneOffset offset = rules.getOffset(t);
    boolean containsT = true;
    for (int walked = 0; walked < MAX_INTERVALS; walked++) {
      Optional<Firing> found = inInterval(t, containsT, prev, next, offset, policy);
      if (found.isPresent() || next == null) {
        return found;
      }
      // Nothing here: does the cron fire at all at or after the next interval's earliest nominal?
      LocalDateTime earliest =
          min(next.getDateTimeBefore(), next.getDateTimeAfter());
      if (cronAfter(earliest.minusNanos(1)).isEmpty()) {
        return Optional.empty();
      }
      prev = next;
      offset = next.getOffsetAfter();
      next = rules.nextTransition(next.getInstant());
      containsT = false;
    }
    return Optional.empty();
  }

  /**
   * The earliest firing after {@code t} among the nominal times that map into one interval of real
   * time with a single offset.
   *
   * @param containsT whether t is inside the interval (else the interval lies wholly after t)
   * @param prev the transition the interval starts with (null: from the beginning of time)
   * @param next the transition the interval ends with (null: to the end of time)
   */
  private Optional<Firing> inInterval(
      Instant t,
      boolean containsT,
      ZoneOffsetTransition prev,
      ZoneOffsetTransition next,
      ZoneOffset offset,
      DstPolicy policy) {
    boolean allowFirst = policy.overlap() != DstPolicy.Overlap.LAST;
    boolean allowLast = policy.overlap() != DstPolicy.Overlap.FIRST;

    // Natural candidate: a nominal time in the interval's own local range, read with its offset.
    LocalDateTime natural =
        cronAfter(
                containsT
                    ? LocalDateTime.ofInstant(t, offset)
                    : prev.getDateTimeAfter().minusNanos(1))
            .orElse(null);
    if (natural != null
        && prev != null
        && prev.isOverlap()
        && natural.isBefore(prev.getDateTimeBefore())
        && !allowLast) {
      // The repeated local hour's second pass does not fire: continue after it.
      natural = cronAfter(prev.getDateTimeBefore().minusNanos(1)).orElse(null);
    }
    if (natural != null && next != null) {
      if (!natural.isBefore(next.getDateTimeBefore())) {
        natural = null; // belongs to a later interval
      } else if (next.isOverlap() && !natural.isBefore(next.getDateTimeAfter()) && !allowFirst) {
        natural = null; // the repeated hour's first pass does not fire; the next interval decides
      }
    }

    // Gap candidate: a nominal time inside the spring-forward gap this interval starts with,
    // read with the offset before the gap, so it lands in [gap instant, gap instant + length).
    LocalDateTime shifted = null;
    if (prev != null && prev.isGap() && policy.gap() == DstPolicy.Gap.SHIFT) {
      LocalDateTime lower =
          containsT
              ? LocalDateTime.ofInstant(t, prev.getOffsetBefore())
              : prev.getDateTimeBefore().minusNanos(1);
      if (lower.isBefore(prev.getDateTimeAfter())) {
        shifted =
            cronAfter(lower).filter(l -> l.isBefore(prev.getDateTimeAfter())).orElse(null);
      }
    }

    if (natural == null && shifted == null) {
      return Optional.empty();
    }
    if (natural == null) {
      return Optional.of(new Firing(shifted, shifted.toInstant(prev.getOffsetBefore())));
    }
    Firing naturalFiring = new Firing(natural, natural.toInstant(offset));
    if (shifted != null) {
      Instant shiftedAt = shifted.toInstant(prev.getOffsetBefore());
      if (shiftedAt.isBefore(naturalFiring.at())) {
        return Optional.of(new Firing(shifted, shiftedAt));
      }
      // Same instant: one firing, the real (non-gap) nominal time is kept.
    }
    return Optional.of(naturalFiring);
  }

  /** The first local date-time the cron names strictly after {@code local}. */
  private Optional<LocalDateTime> cronAfter(LocalDateTime local) {
    ZonedDateTime from = local.truncatedTo(ChronoUnit.SECONDS).atZone(NOMINAL);
    return executionTime.nextExecution(from).map(ZonedDateTime::toLocalDateTime);
  }

  private static LocalDateTime min(LocalDateTime a, LocalDateTime b) {
    return a.isBefore(b) ? a : b;
  }

  /**
   * The firings in {@code (fromExclusive, toInclusive]}, in order.
   *
   * @param fromExclusive the start (exclusive)
   * @param toInclusive the end (inclusive)
   * @param policy the daylight-saving policy
   * @param max the most firings to return
   * @return up to {@code max} firings, strictly increasing in time
   * @throws IllegalArgumentException if {@code max} is negative
   * @throws ScheduleComputationException if a firing cannot be computed
   */
  public List<Firing> firingsBetween(
      Instant fromExclusive, Instant toInclusive, DstPolicy policy, int max) {
    Objects.requireNonNull(toInclusive, "toInclusive");
    if (max < 0) {
      throw new IllegalArgumentException("max must not be negative: " + max);
    }
    List<Firing> firings = new ArrayList<>();
    Instant cursor = fromExclusive;
    while (firings.size() < max) {
      Optional<Firing> next = nextAfter(cursor, policy);
      if (next.isEmpty() || next.get().at().isAfter(toInclusive)) {
        break;
      }
      firings.add(next.get());
      cursor = next.get().at();
    }
    return firings;
  }

  /**
   * The shortest time between two consecutive firings among the next {@value #MIN_INTERVAL_SAMPLE}
   * or so after {@code from}; compared with a job's P99 duration to warn about a too-frequent
   * schedule (R8).
   *
   * @param policy the daylight-saving policy
   * @param from where to start looking
   * @return the shortest interval, always positive; 36,500 days if fewer than two firings remain
   * @throws ScheduleComputationException if a firing cannot be computed
   */
  public Duration minInterval(DstPolicy policy, Instant from) {
    return shortestGap(firingsBetween(from, Instant.MAX, policy, MIN_INTERVAL_SAMPLE + 1)
        .stream().map(Firing::at).toList());
  }

  /** The shortest positive gap between consecutive instants; 36,500 days if fewer than two. */
  private static Duration shortestGap(List<Instant> instants) {
    Duration shortest = NEVER_AGAIN;
    for (int i = 1; i < instants.size(); i++) {
      Duration gap = Duration.between(instants.get(i - 1), instants.get(i));
      if (!gap.isNegative() && !gap.isZero() && gap.compareTo(shortest) < 0) {
        shortest = gap;
      }
    }
    return shortest;
  }
}

package io.almanac;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** The built-in window specs, exposed as {@link WindowSpec#DAILY} and friends. */
abstract class BuiltinWindowSpec implements WindowSpec {

  private static final DateTimeFormatter HOUR_KEY = DateTimeFormatter.ofPattern("uuuu-MM-dd-HH");

  static final WindowSpec DAILY =
      new BuiltinWindowSpec("daily") {
        @Override
        public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
          LocalDate date = nominal.toLocalDate();
          return new Window(
              WindowKey.of(date.toString()),
              date.atStartOfDay(zone).toInstant(),
              date.plusDays(1).atStartOfDay(zone).toInstant());
        }
      };

  static final WindowSpec HOURLY =
      new BuiltinWindowSpec("hourly") {
        @Override
        public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
          LocalDateTime hour = nominal.truncatedTo(ChronoUnit.HOURS);
          Instant start = ZonedDateTime.ofLocal(hour, zone, null).toInstant();
          Instant end = ZonedDateTime.ofLocal(hour.plusHours(1), zone, null).toInstant();
          return new Window(
              WindowKey.of(HOUR_KEY.format(hour)), start, end.isBefore(start) ? start : end);
        }
      };

  static final WindowSpec PER_FIRING =
      new BuiltinWindowSpec("per-firing") {
        @Override
        public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
          return new Window(WindowKey.of(firedAt.toString()), firedAt, firedAt);
        }
      };

  private final String name;

  private BuiltinWindowSpec(String name) {
    this.name = name;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String toString() {
    return "WindowSpec(" + name + ")";
  }
}

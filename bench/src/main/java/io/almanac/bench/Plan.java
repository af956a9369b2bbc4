package io.almanac.bench;

import java.time.Instant;

/** What a system under test is asked to schedule. Task ids are {@code prefix + index}. */
sealed interface Plan {

  int n();

  static String id(String prefix, int i) {
    return String.format("%s%06d", prefix, i);
  }

  /** n one-shot tasks all due at {@code due} (a whole second). Ids b000000... */
  record Once(int n, Instant due) implements Plan {}

  /** n tasks firing every whole second. Ids s000000... */
  record EverySecond(int n) implements Plan {}

  /**
   * n tasks firing every whole second during {@code seconds} seconds from {@code from} (a whole
   * minute, {@code seconds} at most 60), of which the first {@code low} go on firing every second
   * before and after. Ids o000000...
   */
  record Overload(int n, int low, Instant from, int seconds) implements Plan {
    public Overload {
      if (from.getEpochSecond() % 60 != 0 || seconds < 1 || seconds > 60 || low > n) {
        throw new IllegalArgumentException("overload plan: from a whole minute, 1-60 seconds, low <= n");
      }
    }

    /** @return the six-field cron (seconds first) of task i, in UTC */
    String cron(int i, String dayOfWeek) {
      if (i < low) {
        return "* * * * * " + dayOfWeek;
      }
      java.time.ZonedDateTime z = from.atZone(java.time.ZoneOffset.UTC);
      return String.format("0-%d %d %d * * %s", seconds - 1, z.getMinute(), z.getHour(), dayOfWeek);
    }
  }

  /** n daily tasks: task i at the time of day of {@code firstAt + i * spacingMs} (UTC). Ids d000000... */
  record Daily(int n, Instant firstAt, long spacingMs) implements Plan {}
}

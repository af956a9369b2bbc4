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

  /** n daily tasks: task i at the time of day of {@code firstAt + i * spacingMs} (UTC). Ids d000000... */
  record Daily(int n, Instant firstAt, long spacingMs) implements Plan {}
}

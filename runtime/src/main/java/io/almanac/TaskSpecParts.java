package io.almanac;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * The small conversions of a {@link TaskSpec} and its {@link TaskSpec.Builder}: the defaults a spec
 * fills in, the forms it keeps its parts in (a budget without trailing zeros, an extra cron without
 * its zone) and the builder's refusals, which name the task first (R33). Package-private: no part of
 * the API.
 *
 * <p>INTERNAL API.
 */
final class TaskSpecParts {

  private TaskSpecParts() {}

  /** The task a builder's refusal names: its id, or {@code ?} when it has none. */
  static String where(String id) {
    return id == null ? "?" : id;
  }

  /** A part the builder requires: the value, or a refusal naming the task, then the field (its value null). */
  static <T> T required(String id, String field, T value, String reason) {
    if (value == null) {
      throw new InvalidSpecException(where(id), new InvalidSpecException(field, null, reason));
    }
    return value;
  }

  /** A refusal of a part, as the builder throws it: naming the task first. */
  static InvalidSpecException inTask(String id, InvalidSpecException e) {
    return new InvalidSpecException(where(id), e);
  }

  /** A part the builder parses or checks at once, its refusal naming the task first. */
  static <T> T inTask(String id, Supplier<T> part) {
    try {
      return part.get();
    } catch (InvalidSpecException e) {
      throw inTask(id, e);
    }
  }

  /** A check the builder makes at once, its refusal naming the task first. */
  static void checked(String id, Runnable check) {
    try {
      check.run();
    } catch (InvalidSpecException e) {
      throw inTask(id, e);
    }
  }

  /** The window of a spec whose builder left it unset (null): per-firing for a one-shot task, else daily. */
  static String window(String window, Instant once) {
    return window == null ? (once != null ? WindowSpec.PER_FIRING.name() : WindowSpec.DAILY.name()) : window;
  }

  /** The zone of a spec: UTC for a one-shot task and for one triggered by events only, unless set. */
  static String zone(String zone, Instant once, String cron, EventTrigger event) {
    return zone == null && (once != null || (cron == null && event != null)) ? "UTC" : zone;
  }

  /** The retry policy (the default: none), its cap replaced by {@code maxRetries} when that is set. */
  static RetryPolicy retry(RetryPolicy retry, Integer maxRetries) {
    RetryPolicy retries = retry == null ? RetryPolicy.DEFAULT : retry;
    return maxRetries == null ? retries : retries.withMaxRetries(maxRetries);
  }

  /** The pools as a spec keeps them: null for none, so a spec without pools reads and prints as before. */
  static List<String> pools(List<String> pools) {
    // not List.copyOf: a null name is refused by validate(), naming pools, not by a NullPointerException here
    return pools == null || pools.isEmpty() ? null : Collections.unmodifiableList(new ArrayList<>(pools));
  }

  /** The extra crons as a spec keeps them: each without the task's zone; null for none. */
  static List<String> withoutZone(List<String> alsoCrons, String zone) {
    return alsoCrons.isEmpty() ? null : alsoCrons.stream().map(c -> withoutZone(c, zone)).toList();
  }

  /** Every cron of a schedule: the first, then the others; empty for a task without a cron. */
  static List<String> crons(String cron, List<String> alsoCrons) {
    if (cron == null) {
      return List.of();
    }
    List<String> all = new ArrayList<>(1 + alsoCrons.size());
    all.add(cron);
    all.addAll(alsoCrons);
    return List.copyOf(all);
  }

  /** An amount without trailing zeros (5.00 is 5), so equal budgets are equal specs. */
  static BigDecimal plain(BigDecimal amount) {
    BigDecimal d = amount.stripTrailingZeros();
    return d.scale() < 0 ? d.setScale(0) : d;
  }

  /** A cron whose last token is {@code zone} without it; any other as it is (validation refuses another zone). */
  static String withoutZone(String cron, String zone) {
    String stripped = cron.strip();
    int space = stripped.lastIndexOf(' ');
    if (space > 0 && zone != null && stripped.substring(space + 1).equals(zone)) {
      return stripped.substring(0, space).strip();
    }
    return stripped;
  }

  /** A bound as the builder keeps it: stripped, null for none. */
  static String bound(String isoDateOrInstant) {
    return isoDateOrInstant == null ? null : isoDateOrInstant.strip();
  }
}

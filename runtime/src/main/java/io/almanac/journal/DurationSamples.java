package io.almanac.journal;

import io.almanac.InvalidSpecException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The most recent job durations of a task, in milliseconds, for its P99 (R8, R23). Immutable:
 * {@link #add} returns a new instance. Kept as a plain record so that it can be persisted in
 * snapshots and restored with {@link #of}.
 *
 * @param capacity how many of the most recent samples are kept, at least 1
 * @param millis the samples, oldest first, each zero or more; when there are more than {@code
 *     capacity}, only the most recent {@code capacity} are kept
 */
public record DurationSamples(int capacity, List<Long> millis) {

  /** The default capacity: the last 100 durations. */
  public static final int DEFAULT_CAPACITY = 100;

  /**
   * Validates and copies the samples, keeping the most recent {@code capacity}.
   *
   * @param capacity how many of the most recent samples are kept, at least 1
   * @param millis the samples, oldest first; null reads as none
   * @throws InvalidSpecException naming {@code durationSamples.capacity} or {@code
   *     durationSamples.millis}
   */
  public DurationSamples {
    if (capacity < 1) {
      throw new InvalidSpecException("durationSamples.capacity", capacity, "must be >= 1");
    }
    if (millis == null) {
      millis = List.of();
    }
    for (Long m : millis) {
      if (m == null || m < 0) {
        throw new InvalidSpecException(
            "durationSamples.millis", millis, "every sample must be zero or more, found " + m);
      }
    }
    int size = millis.size();
    millis = List.copyOf(size > capacity ? millis.subList(size - capacity, size) : millis);
  }

  /**
   * No samples yet.
   *
   * @param capacity how many of the most recent samples to keep, at least 1
   * @return the empty sample set
   * @throws InvalidSpecException ({@code durationSamples.capacity}) if below 1
   */
  public static DurationSamples empty(int capacity) {
    return new DurationSamples(capacity, List.of());
  }

  /**
   * No samples yet, keeping the last {@value #DEFAULT_CAPACITY}.
   *
   * @return the empty sample set
   */
  public static DurationSamples empty() {
    return empty(DEFAULT_CAPACITY);
  }

  /**
   * Restores a sample set, e.g. from a snapshot.
   *
   * @param capacity how many of the most recent samples to keep, at least 1
   * @param millis the samples in milliseconds, oldest first; only the last {@code capacity} stay
   * @return the sample set
   * @throws InvalidSpecException if the capacity is below 1 or a sample is null or negative
   */
  public static DurationSamples of(int capacity, List<Long> millis) {
    return new DurationSamples(capacity, millis);
  }

  /**
   * This set plus one more duration; the oldest is dropped when the set is full. A negative
   * duration (a clock stepped back during the run) is recorded as zero rather than refused, since
   * this may run while an event is replayed.
   *
   * @param duration how long a job ran
   * @return a new sample set; this one is unchanged
   */
  public DurationSamples add(Duration duration) {
    long ms = Math.max(0L, duration.toMillis());
    int keep = Math.min(millis.size(), capacity - 1);
    List<Long> next = new ArrayList<>(keep + 1);
    next.addAll(millis.subList(millis.size() - keep, millis.size()));
    next.add(ms);
    return new DurationSamples(capacity, next);
  }

  /**
   * How many samples there are.
   *
   * @return the sample count, at most {@code capacity}
   */
  public int count() {
    return millis.size();
  }

  /**
   * The 99th percentile by nearest rank: the {@code ceil(0.99 * n)}-th smallest of the {@code n}
   * samples.
   *
   * @return the P99, or empty when there are no samples
   */
  public Optional<Duration> p99() {
    int n = millis.size();
    if (n == 0) {
      return Optional.empty();
    }
    long[] sorted = millis.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    int rank = (99 * n + 99) / 100; // ceil(0.99 * n) in integers, free of rounding
    return Optional.of(Duration.ofMillis(sorted[rank - 1]));
  }
}

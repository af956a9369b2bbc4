package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.time.Duration;

/**
 * A condition trigger (R9): once a window of this task has come due (by its time or event trigger),
 * the named {@link Condition} is polled every {@link #every()} (each task at its own phase, so
 * thousands of tasks do not poll at once) until it holds; the window then runs once, as its overlap
 * policy decides. Against flapping it must hold for {@link #debounce()} consecutive polls, and for
 * at least {@link #holdFor()} when set. A window whose condition never holds is SKIPPED with {@link
 * SkipReason#CONDITION_NOT_MET} at its deadline. A poll that throws or outlives {@link #timeout()} is
 * recorded in the journal and the condition is polled again at the next poll; it never stops
 * another task.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"name", "every", "timeout", "debounce", "holdFor", "waitAtMost"})
public final class ConditionTrigger extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(),
      "name", "every", "timeout", "debounce", "holdFor", "waitAtMost");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final String name;
  private final Duration every;
  private final Duration timeout;
  private final int debounce;
  private final Duration holdFor;
  private final Duration waitAtMost;

  /** The shortest poll interval accepted. */
  public static final Duration MIN_EVERY = Duration.ofSeconds(1);

  /** The default poll interval. */
  public static final Duration DEFAULT_EVERY = Duration.ofMinutes(1);

  /** The default time one poll may take. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** Fills unset durations with their defaults; it does not validate. */
  @JsonCreator
  private ConditionTrigger(
      @JsonProperty("name") String name,
      @JsonProperty("every") Duration every,
      @JsonProperty("timeout") Duration timeout,
      @JsonProperty("debounce") int debounce,
      @JsonProperty("holdFor") Duration holdFor,
      @JsonProperty("waitAtMost") Duration waitAtMost) {
    every = every == null ? DEFAULT_EVERY : every;
    timeout = timeout == null ? (every.compareTo(DEFAULT_TIMEOUT) < 0 ? every : DEFAULT_TIMEOUT) : timeout;
    holdFor = holdFor == null ? Duration.ZERO : holdFor;
    this.name = name;
    this.every = every;
    this.timeout = timeout;
    this.debounce = debounce;
    this.holdFor = holdFor;
    this.waitAtMost = waitAtMost;
  }

  /**
   * @param name the registered condition's name
   * @return a condition polled every minute, 10 s per poll, holding once, until the window's end
   */
  public static ConditionTrigger named(String name) {
    return new ConditionTrigger(name, null, null, 1, null, null);
  }

  /**
   * @param d the poll interval
   * @return this trigger polled every {@code d}
   */
  public ConditionTrigger every(Duration d) {
    return new ConditionTrigger(name, d, timeout != null && d != null && timeout.compareTo(d) > 0 ? d : timeout, debounce,
        holdFor, waitAtMost);
  }

  /**
   * @param d how long one poll may take
   * @return this trigger with that timeout
   */
  public ConditionTrigger timeout(Duration d) {
    return new ConditionTrigger(name, every, d, debounce, holdFor, waitAtMost);
  }

  /**
   * @param polls consecutive polls it must hold for
   * @return this trigger with that debounce
   */
  public ConditionTrigger debounce(int polls) {
    return new ConditionTrigger(name, every, timeout, polls, holdFor, waitAtMost);
  }

  /**
   * @param d how long it must have held
   * @return this trigger with that minimum
   */
  public ConditionTrigger holdFor(Duration d) {
    return new ConditionTrigger(name, every, timeout, debounce, d, waitAtMost);
  }

  /**
   * @param d how long after it came due a window waits (its deadline)
   * @return this trigger with that deadline
   */
  public ConditionTrigger waitAtMost(Duration d) {
    return new ConditionTrigger(name, every, timeout, debounce, holdFor, d);
  }

  /**
   * Checks every part.
   *
   * @return this trigger
   * @throws InvalidSpecException naming the field ({@code condition.name}, {@code condition.every},
   *     {@code condition.timeout}, {@code condition.debounce}, {@code condition.hold-for}, {@code
   *     condition.wait-at-most}) and the value
   */
  public ConditionTrigger validate() {
    if (name == null || name.isBlank() || name.length() > 100 || !name.matches("[A-Za-z0-9._-]+")) {
      throw new InvalidSpecException("condition.name", name, "1-100 characters of letters, digits, '.', '_' and '-'");
    }
    if (every.compareTo(MIN_EVERY) < 0) {
      throw new InvalidSpecException("condition.every", every, "is below the floor of " + MIN_EVERY);
    }
    if (every.compareTo(Duration.ofDays(1)) > 0) {
      throw new InvalidSpecException("condition.every", every, "at most 1 day");
    }
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(every) > 0) {
      throw new InvalidSpecException("condition.timeout", timeout, "must be positive and at most the poll interval " + every);
    }
    if (debounce < 1 || debounce > 1_000) {
      throw new InvalidSpecException("condition.debounce", debounce, "must be 1 to 1000 consecutive polls");
    }
    if (holdFor.isNegative() || holdFor.compareTo(DependencyTrigger.MAX_WAIT) > 0) {
      throw new InvalidSpecException("condition.hold-for", holdFor, "must be zero or positive, at most "
          + DependencyTrigger.MAX_WAIT);
    }
    if (waitAtMost != null && (waitAtMost.isNegative() || waitAtMost.isZero()
        || waitAtMost.compareTo(DependencyTrigger.MAX_WAIT) > 0)) {
      throw new InvalidSpecException("condition.wait-at-most", waitAtMost, "must be positive and at most "
          + DependencyTrigger.MAX_WAIT);
    }
    return this;
  }

  /** @return the name the condition is registered under ({@link Almanac.Builder#condition}) */
  public String name() {
    return name;
  }

  /** @return how often it is polled, at least {@link #MIN_EVERY} */
  public Duration every() {
    return every;
  }

  /** @return how long one poll may take, positive and at most {@code every} */
  public Duration timeout() {
    return timeout;
  }

  /** @return consecutive polls it must hold for, at least 1 */
  public int debounce() {
    return debounce;
  }

  /** @return how long it must have held (from the first of those polls); zero for no minimum */
  public Duration holdFor() {
    return holdFor;
  }

  /**
   * @return how long after the window came due it waits; null: until the window's end (or 24 h after
   *     it came due, for a window that ends when it starts)
   */
  public Duration waitAtMost() {
    return waitAtMost;
  }
}

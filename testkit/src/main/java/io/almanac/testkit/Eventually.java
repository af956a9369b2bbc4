package io.almanac.testkit;

import java.time.Duration;

/**
 * Test support: retries an assertion until it holds or a deadline passes, instead of sleeping a
 * fixed time. For conditions that only a query can see (a database's sessions and locks, the windows
 * a node reports), also where no actor test kit runs; where one does, Pekko's {@code
 * TestProbe.awaitAssert} does the same.
 *
 * <pre>{@code
 * Eventually.eventually(Duration.ofSeconds(10),
 *     () -> assertEquals(InstanceStatus.SUCCEEDED, statusOf("digest", "2026-11-29")));
 * }</pre>
 */
public final class Eventually {

  /** An assertion that may throw a checked exception (a JDBC query). */
  @FunctionalInterface
  public interface Assertion {
    /**
     * @throws Exception when the condition does not hold (an {@link AssertionError} or a runtime
     *     exception is retried)
     */
    void check() throws Exception;
  }

  /** Time between two checks. */
  public static final Duration INTERVAL = Duration.ofMillis(20);

  private Eventually() {}

  /**
   * Checks the assertion until it passes.
   *
   * @param timeout how long to keep trying
   * @param assertion retried while it throws an {@link AssertionError} or a runtime exception (e.g.
   *     a refusal of something not there yet); a checked exception ends the wait at once
   * @throws AssertionError the assertion's last failure, naming the timeout, when it still fails at the deadline
   * @throws Exception a checked exception the assertion threw
   */
  public static void eventually(Duration timeout, Assertion assertion) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        assertion.check();
        return;
      } catch (AssertionError | RuntimeException e) {
        if (System.nanoTime() - deadline >= 0) {
          throw new AssertionError("still failing after " + timeout + ": " + e.getMessage(), e);
        }
      }
      Thread.sleep(INTERVAL.toMillis());
    }
  }
}

package io.almanac.persistence;

import java.time.Duration;

/**
 * Test support: retries an assertion until it holds or a deadline passes. For conditions that only
 * a query can see (a database's sessions and locks), including after every ActorSystem has stopped;
 * where a test kit runs, Pekko's {@code TestProbe.awaitAssert} does the same.
 */
final class Eventually {

  /** An assertion that may throw a checked exception (a JDBC query). */
  @FunctionalInterface
  interface Assertion {
    void check() throws Exception;
  }

  /** Time between two checks. */
  static final Duration INTERVAL = Duration.ofMillis(20);

  private Eventually() {}

  /**
   * Checks the assertion until it passes.
   *
   * @param timeout how long to keep trying
   * @param assertion retried while it throws an {@link AssertionError}; any other exception ends the wait at once
   * @throws AssertionError the assertion's last failure, naming the timeout, when it still fails at the deadline
   * @throws Exception what the assertion threw other than an {@link AssertionError}
   */
  static void eventually(Duration timeout, Assertion assertion) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        assertion.check();
        return;
      } catch (AssertionError e) {
        if (System.nanoTime() - deadline >= 0) {
          throw new AssertionError("still failing after " + timeout + ": " + e.getMessage(), e);
        }
      }
      Thread.sleep(INTERVAL.toMillis());
    }
  }
}

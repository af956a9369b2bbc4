package io.almanac;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a test node's readiness as the node reports it. {@link Almanac#ready()} ends by itself:
 * ready, or failed with the reason once {@code almanac.node.registration-timeout} (2 minutes by
 * default) has passed; so a test waits that long plus a margin for a node that hangs, never a short
 * fixed time of its own that a loaded machine outlasts while the node is still recovering (a trigger
 * of 100,000 tasks takes seconds alone, many times that on a busy machine).
 */
final class NodeReady {
  /** Beyond the node's own deadline: room for its failure to arrive on a loaded machine. */
  private static final Duration MARGIN = Duration.ofSeconds(30);

  private NodeReady() {}

  /**
   * @param almanac a started node
   * @throws AssertionError if the node reported not ready, or reported nothing within its deadline and the margin
   */
  static void await(Almanac almanac) {
    Duration deadline = almanac.registrationTimeout().plus(MARGIN);
    try {
      almanac.ready().toCompletableFuture().orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof TimeoutException) {
        throw new AssertionError("the node reported neither ready nor not ready within " + deadline
            + " (almanac.node.registration-timeout plus " + MARGIN + ")", e);
      }
      throw new AssertionError("the node is not ready: " + e.getCause().getMessage(), e.getCause());
    }
  }
}

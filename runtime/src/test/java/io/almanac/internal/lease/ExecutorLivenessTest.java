package io.almanac.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.InterruptCause;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What {@link ExecutorLiveness} says of an executor identity that is no member, and so with which
 * cause its attempts are interrupted: a past life of this node is lost (NODE_LOST); another node,
 * once its lease is seen ended, was fenced out (FENCED); without a fence a node that left is lost.
 */
class ExecutorLivenessTest {

  private static final String SELF = "UniqueAddress(pekko://s@10.0.0.1:2552,1)";
  private static final String PAST_LIFE = "UniqueAddress(pekko://s@10.0.0.1:2552,2)"; // same host and port, restarted
  private static final String OTHER = "UniqueAddress(pekko://s@10.0.0.2:2552,3)";

  private static ExecutorLiveness liveness(boolean fence, boolean alone) {
    Map<String, ExecutorFenceTest.TestLease> leases = new ConcurrentHashMap<>();
    ExecutorFence self = fence
        ? new ExecutorFence("s", SELF, name -> leases.computeIfAbsent(name, ExecutorFenceTest.TestLease::new), Duration.ofSeconds(1))
        : ExecutorFence.none(SELF);
    // every foreign lease is free (its holder is gone): taken at the first check
    return new ExecutorLiveness(self, node -> false, fence ? name -> new ExecutorFenceTest.TestLease(name) : null,
        System::nanoTime, 0, alone);
  }

  @Test
  @DisplayName("without a fence, an identity that is no member is ENDED (NODE_LOST); this node's own RUNS")
  void withoutAFence() {
    ExecutorLiveness l = liveness(false, false);
    assertEquals(ExecutorLiveness.State.RUNS, l.of(SELF));
    assertEquals(ExecutorLiveness.State.ENDED, l.of(OTHER));
    assertEquals(InterruptCause.NODE_LOST, l.of(OTHER).interruptCause());
  }

  @Test
  @DisplayName("with a fence in a cluster: another node whose lease ended is FENCED; this node's past life (same host and "
      + "port) is ENDED (NODE_LOST)")
  void withAFenceInACluster() {
    ExecutorLiveness l = liveness(true, false);
    assertEquals(ExecutorLiveness.State.FENCED, l.of(OTHER));
    assertEquals(InterruptCause.FENCED, l.of(OTHER).interruptCause());
    assertEquals(ExecutorLiveness.State.ENDED, l.of(PAST_LIFE));
  }

  @Test
  @DisplayName("with a fence on a node that runs alone (embedded): every other identity is a past life, ENDED (NODE_LOST)")
  void withAFenceAlone() {
    ExecutorLiveness l = liveness(true, true);
    assertEquals(ExecutorLiveness.State.ENDED, l.of(OTHER));
    assertEquals(InterruptCause.NODE_LOST, l.of(OTHER).interruptCause());
  }
}

package io.almanac.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.internal.task.TaskShardingSettings;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A database outage as the leases see it (every lease lost, none to be had for a while, then
 * available again), on a one-node cluster whose sharding and singletons take a lease, as with
 * almanac-cluster.conf: the task entities must be reachable through the node's shard region once the
 * leases are back. With Pekko's own settings they are not: the coordinator singleton, losing its
 * lease, is terminated and tells the node's region to shut down gracefully, and that region stops
 * for good once its shards are handed off (the trigger's fires then went to dead letters after a
 * PostgreSQL outage, ClusterScenariosTest.databaseOutage). {@link TaskShardingSettings} runs the
 * coordinator without a lease.
 */
@ExtendWith(LogCapturingExtension.class)
class CoordinatorLeaseTest {

  private ActorTestKit testKit;

  @BeforeEach
  void start() {
    testKit = TestLease.oneNodeCluster("coordinator-lease-test",
        // as almanac-cluster.conf: the singletons, the coordinator and the shards take a lease
        "pekko.cluster.singleton.use-lease = test-lease",
        "pekko.cluster.singleton.lease-retry-interval = 100ms",
        "pekko.cluster.sharding.use-lease = test-lease",
        "pekko.cluster.sharding.lease-retry-interval = 100ms",
        "pekko.cluster.sharding.coordinator-singleton.use-lease = test-lease",
        "pekko.cluster.sharding.coordinator-singleton.lease-retry-interval = 100ms",
        "pekko.cluster.sharding.retry-interval = 200ms");
  }

  @AfterEach
  void stop() {
    TestLease.startDatabase();
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("the task sharding settings keep the shards' lease and drop the coordinator's")
  void settings() {
    ClusterShardingSettings pekko = ClusterShardingSettings.create(testKit.system());
    assertTrue(pekko.coordinatorSingletonSettings().leaseSettings().isDefined(), "the configuration gives the coordinator a lease");
    ClusterShardingSettings tasks = TaskShardingSettings.of(testKit.system());
    assertTrue(tasks.coordinatorSingletonSettings().leaseSettings().isEmpty(), "no coordinator lease");
    assertTrue(tasks.leaseSettings().isDefined(), "the shards keep their lease");
    assertEquals("test-lease", tasks.leaseSettings().get().leaseImplementation());
    assertEquals(pekko.leaseSettings().get().leaseRetryInterval(), tasks.leaseSettings().get().leaseRetryInterval());
  }

  @Test
  @DisplayName("after every lease was lost and could be had again, the entities are reachable through the node's region")
  void entitiesReachableAfterLeaseOutage() {
    TestProbe<String> probe = testKit.createTestProbe();
    EntityTypeKey<String> key = EntityTypeKey.create(String.class, "outage-type");
    ClusterSharding sharding = ClusterSharding.get(testKit.system());
    sharding.init(Entity.of(key, ctx -> TestLease.echo(probe.getRef())).withSettings(TaskShardingSettings.of(testKit.system())));
    sharding.entityRefFor(key, "e1").tell("before");
    probe.expectMessage(Duration.ofSeconds(20), "before");
    List<String> leases = TestLease.BY_NAME.keySet().stream().sorted().collect(Collectors.toList());
    assertTrue(leases.stream().anyMatch(n -> n.startsWith("coordinator-lease-test-shard-outage-type-")),
        "the shard took its lease: " + leases);

    // The database stops for a while: every lease is lost, none can be acquired.
    TestLease.stopDatabase();
    probe.expectNoMessage(Duration.ofSeconds(3));
    TestLease.startDatabase();

    // Back: the shard takes its lease again and the entity answers through this node's region.
    for (int i = 0; i < 30; i++) {
      sharding.entityRefFor(key, "e1").tell("after-" + i);
      String got = pollOnce(probe);
      if (got != null) {
        return;
      }
    }
    throw new AssertionError("the entity never answered after the outage (the node's shard region stopped?); leases: "
        + TestLease.BY_NAME.keySet());
  }

  private static String pollOnce(TestProbe<String> probe) {
    try {
      return probe.receiveMessage(Duration.ofMillis(500));
    } catch (AssertionError e) {
      return null;
    }
  }
}

package io.almanac.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The lease guard finds the very lease Pekko's singleton manager and shard acquired (by the name
 * Pekko gives it) and stops handling commands once that lease is no longer held, before Pekko's
 * own reaction to the loss.
 */
class LeaseGuardTest {

  private ActorTestKit testKit;

  @BeforeEach
  void start() {
    testKit = TestLease.oneNodeCluster("guard-test",
        "pekko.cluster.singleton.use-lease = test-lease",
        "pekko.cluster.singleton.lease-retry-interval = 100ms",
        "pekko.cluster.sharding.use-lease = test-lease",
        "pekko.cluster.sharding.lease-retry-interval = 100ms");
  }

  @AfterEach
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("a singleton stops handling commands once its singleton lease is not held")
  void singleton() {
    TestProbe<String> probe = testKit.createTestProbe();
    ActorRef<String> proxy = ClusterSingleton.get(testKit.system())
        .init(SingletonActor.of(LeaseGuard.singleton(TestLease.echo(probe.getRef()), String.class), "guarded"));
    proxy.tell("a");
    probe.expectMessage(Duration.ofSeconds(20), "a");
    String name = "guard-test-singleton-pekko://guard-test/system/singletonManagerguarded";
    TestLease lease = TestLease.BY_NAME.get(name);
    assertEquals(true, lease != null && lease.held, "the singleton's lease " + name + " among " + TestLease.BY_NAME.keySet());
    lease.revoke();
    proxy.tell("b");
    probe.expectNoMessage(Duration.ofMillis(500));
  }

  @Test
  @DisplayName("an entity stops handling commands once its shard's lease is not held")
  void shardEntity() {
    TestProbe<String> probe = testKit.createTestProbe();
    EntityTypeKey<String> key = EntityTypeKey.create(String.class, "guarded-type");
    ClusterSharding sharding = ClusterSharding.get(testKit.system());
    sharding.init(Entity.of(key, ctx -> LeaseGuard.shardEntity(TestLease.echo(probe.getRef()), String.class)));
    sharding.entityRefFor(key, "e1").tell("x");
    probe.expectMessage(Duration.ofSeconds(20), "x");
    TestLease lease = TestLease.BY_NAME.entrySet().stream().filter(e -> e.getKey().startsWith("guard-test-shard-guarded-type-"))
        .map(Map.Entry::getValue).findFirst().orElseThrow(() -> new AssertionError("no shard lease: " + TestLease.BY_NAME.keySet()));
    lease.revoke();
    sharding.entityRefFor(key, "e1").tell("y");
    probe.expectNoMessage(Duration.ofMillis(500));
  }

  @Test
  @DisplayName("the guarded actor's own log lines keep its name (the guard logs under its own logger)")
  void guardedActorKeepsItsLoggerName() {
    TestProbe<String> probe = testKit.createTestProbe();
    EntityTypeKey<String> key = EntityTypeKey.create(String.class, "named-type");
    ClusterSharding sharding = ClusterSharding.get(testKit.system());
    sharding.init(Entity.of(key, ctx -> LeaseGuard.shardEntity(Behaviors.<String>setup(inner -> {
      probe.tell(inner.getLog().getName());
      return Behaviors.receiveMessage(m -> Behaviors.same());
    }), String.class)));
    sharding.entityRefFor(key, "e1").tell("x");
    assertEquals(LeaseGuardTest.class.getName(), probe.receiveMessage(Duration.ofSeconds(20)));
  }
}

package io.almanac.internal.task;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;

/**
 * The cluster sharding settings of the task entities: Pekko's, from {@code pekko.cluster.sharding},
 * except that the shard coordinator never takes a lease, whatever
 * {@code pekko.cluster.sharding.coordinator-singleton.use-lease} (which inherits
 * {@code pekko.cluster.singleton.use-lease}) says. The shards keep theirs
 * ({@code pekko.cluster.sharding.use-lease}), and so does the trigger singleton.
 *
 * <p>Why: when the coordinator singleton loses its lease (the lease's database is away for longer
 * than the lease's validity), its manager terminates it, and Pekko's coordinator, on termination,
 * tells the shard region of its own node to shut down gracefully ({@code ShardCoordinator.terminate}
 * sends {@code ShardRegion.GracefulShutdown} to the local region "for good measure", as it would on
 * the node's coordinated shutdown). That region then hands all its shards off, refuses to host any
 * (it ignores {@code HostShard}), and once its shards are gone it stops for good, while its node runs
 * on: every message sent to a task through that node's region (the trigger's fires and wake-ups,
 * the executor's reports, the API's commands) goes to dead letters from then on. The coordinator
 * runs on the oldest node, which also hosts the trigger, so after a PostgreSQL outage of 30 s the
 * trigger came back and fired into a dead region: no fire acknowledged, 2,000 in flight, no task
 * fired again (ClusterScenariosTest.databaseOutage).
 *
 * <p>The coordinator's lease adds no safety here: it writes nothing to the journal (its state is in
 * distributed data), and two coordinators at once (a partition) can at worst allocate one shard to
 * two regions, of which only the one holding the shard's own lease starts its entities.
 *
 * <p>INTERNAL API.
 */
public final class TaskShardingSettings {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TaskShardingSettings.class);

  private TaskShardingSettings() {}

  /**
   * @param system the node's actor system
   * @return Pekko's sharding settings from its configuration, the coordinator without a lease
   */
  public static ClusterShardingSettings of(ActorSystem<?> system) {
    ClusterShardingSettings settings = ClusterShardingSettings.create(system);
    if (settings.coordinatorSingletonSettings().leaseSettings().isDefined()) {
      LOG.info("the shard coordinator runs without a lease (pekko.cluster.sharding.coordinator-singleton.use-lease "
          + "[{}] not used: a coordinator that loses its lease makes its node's shard region stop for good); the "
          + "shards keep their lease", settings.coordinatorSingletonSettings().leaseSettings().get().leaseImplementation());
    }
    return withoutCoordinatorLease(settings);
  }

  /**
   * @param settings sharding settings
   * @return the same, the coordinator singleton without a lease
   */
  public static ClusterShardingSettings withoutCoordinatorLease(ClusterShardingSettings settings) {
    if (settings.coordinatorSingletonSettings().leaseSettings().isEmpty()) {
      return settings;
    }
    // withLeaseSettings(null) is Option(null): no lease
    return settings.withCoordinatorSingletonSettings(settings.coordinatorSingletonSettings().withLeaseSettings(null));
  }
}

package io.almanac.internal.lease;

import com.typesafe.config.Config;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.coordination.lease.scaladsl.Lease;
import org.apache.pekko.coordination.lease.scaladsl.LeaseProvider;

/**
 * Makes a lease-guarded actor stop handling commands once its lease is lost, without waiting for
 * Pekko to stop it.
 *
 * <p>With {@code pekko.cluster.singleton.use-lease} (or {@code pekko.cluster.sharding.use-lease})
 * the ClusterSingletonManager (or each Shard) acquires a lease before it starts the trigger (or its
 * task entities), and stops them when the lease's lost-callback reaches it: the singleton gets its
 * termination message, a shard stops itself and its entities. Until that message is processed the
 * actor keeps handling the commands in its mailbox, and may persist: e.g. after a long pause
 * (GC, a stopped VM) the timer ticks and fires queued during the pause would all be handled, by
 * an actor whose lease another node may take a safety margin later.
 *
 * <p>This guard closes that gap from inside Almanac: before each command it asks the very lease
 * instance its parent acquired (Pekko's {@link LeaseProvider} keeps one instance per lease name,
 * configuration path and owner, and the names are derived here the way Pekko derives them) whether
 * it is still held ({@code checkLease}, a memory read for the JDBC lease); if not, the command is
 * not handled and the actor stops (the manager or the shard starts it again once it holds the
 * lease again). A persist already sent to the journal is not recalled: its commit may land after
 * the loss, which the journal's sequence numbers fence (a second writer's persist of the same
 * sequence number fails on the primary key).
 *
 * <p>When no lease is configured, or the lease found is not held when the actor starts (its parent
 * acquires it before starting the actor, so that means the derived name does not match Pekko's),
 * the actor runs unguarded, with a warning in the latter case.
 */
public final class LeaseGuard {

  // Not the guarded actor's context logger: the first call of getLog() names that logger after its
  // caller, and the actor's own lines (TaskEntity, TriggerActor) must keep their actor's name.
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LeaseGuard.class);

  private LeaseGuard() {}

  /**
   * Guards a cluster singleton's behavior (the trigger) with the singleton lease.
   *
   * @param inner the singleton's behavior
   * @param commandType its command class (only these are checked; internal messages pass)
   * @param <T> the command type
   * @return the guarded behavior
   */
  public static <T> Behavior<T> singleton(Behavior<T> inner, Class<T> commandType) {
    return Behaviors.setup(ctx -> guard(ctx, inner, commandType, "pekko.cluster.singleton.use-lease",
        // ClusterSingletonManager: s"${system.name}-singleton-${self.path}", the singleton's parent
        path -> ctx.getSystem().name() + "-singleton-" + path.parent()));
  }

  /**
   * Guards a sharded entity's behavior (a task) with its shard's lease.
   *
   * @param inner the entity's behavior
   * @param commandType its command class (only these are checked; internal messages pass)
   * @param <T> the command type
   * @return the guarded behavior
   */
  public static <T> Behavior<T> shardEntity(Behavior<T> inner, Class<T> commandType) {
    return Behaviors.setup(ctx -> guard(ctx, inner, commandType, "pekko.cluster.sharding.use-lease",
        // Shard: s"${system.name}-shard-$typeName-$shardId"; an entity's parent is its shard
        // (named by the URL-encoded shard id), whose parent is the region (named by the type)
        path -> ctx.getSystem().name() + "-shard-" + decode(path.parent().parent().name()) + "-"
            + decode(path.parent().name())));
  }

  private static String decode(String name) {
    return URLDecoder.decode(name, StandardCharsets.UTF_8);
  }

  private static <T> Behavior<T> guard(ActorContext<T> ctx, Behavior<T> inner, Class<T> commandType, String useLeaseKey,
      java.util.function.Function<ActorPath, String> leaseName) {
    Optional<Lease> lease = find(ctx, useLeaseKey, leaseName);
    if (lease.isEmpty()) {
      return inner;
    }
    return Behaviors.intercept(() -> new Interceptor<>(commandType, lease.get()), inner);
  }

  private static <T> Optional<Lease> find(ActorContext<T> ctx, String useLeaseKey,
      java.util.function.Function<ActorPath, String> leaseName) {
    Config config = ctx.getSystem().settings().config();
    if (!config.hasPath(useLeaseKey) || config.getString(useLeaseKey).isEmpty()) {
      return Optional.empty();
    }
    String name;
    try {
      name = leaseName.apply(ctx.getSelf().path());
    } catch (RuntimeException e) {
      LOG.warn("lease guard off: cannot derive the lease name from {}: {}", ctx.getSelf().path(), e.toString());
      return Optional.empty();
    }
    String owner = Cluster.get(ctx.getSystem()).selfMember().address().hostPort();
    Lease lease = LeaseProvider.get(Adapter.toClassic(ctx.getSystem())).getLease(name, config.getString(useLeaseKey), owner);
    if (!lease.checkLease()) {
      LOG.warn("lease guard off: lease [{}] of [{}] is not held as the actor starts (its parent acquires it "
          + "first, so the name is not the one Pekko uses); the actor relies on Pekko stopping it on lease loss", name, owner);
      return Optional.empty();
    }
    if (useLeaseKey.contains("singleton")) {
      LOG.info("lease guard on: lease [{}] of [{}]", name, owner); // once per singleton start
    } else {
      LOG.debug("lease guard on: lease [{}] of [{}]", name, owner); // once per entity start
    }
    return Optional.of(lease);
  }

  private static final class Interceptor<T> extends BehaviorInterceptor<T, T> {
    private final Lease lease;

    Interceptor(Class<T> commandType, Lease lease) {
      super(commandType);
      this.lease = lease;
    }

    @Override
    public Behavior<T> aroundReceive(TypedActorContext<T> ctx, T msg, ReceiveTarget<T> target) {
      if (lease.checkLease()) {
        return target.apply(ctx, msg);
      }
      LOG.warn("lease [{}] lost: stopping without handling {} (the lease's holder starts it again "
          + "once it holds the lease again)", lease.settings().leaseName(), msg.getClass().getSimpleName());
      return Behaviors.stopped();
    }

    @Override
    public boolean isSame(BehaviorInterceptor<Object, Object> other) {
      return other instanceof Interceptor<?> i && i.lease == lease;
    }
  }
}

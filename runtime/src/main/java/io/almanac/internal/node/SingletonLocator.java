package io.almanac.internal.node;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * Reaches a cluster singleton like Pekko's singleton proxy, but finds it again when it was stopped
 * and started anew on the same node.
 *
 * <p>Pekko's {@code ClusterSingletonProxy} (1.7.0), once the singleton it found terminates, waits
 * for the oldest member to change before it looks for the singleton again ("buffering mode,
 * identification of new will start when old node is removed"). With a lease
 * ({@code pekko.cluster.singleton.use-lease}) the manager stops the singleton when its lease is lost
 * (the lease's database away) and starts it again on the same node once it holds the lease again:
 * the oldest member has not changed, so every proxy of the cluster buffered what was sent to the
 * trigger from then on (the watchdog's status asks, the tasks' wake-ups, registrations) until a
 * member left; after a 30 s PostgreSQL outage every node raised TRIGGER_STALLED although the
 * trigger ran. This locator looks for the singleton again as soon as the one it found terminates,
 * every {@code interval} until found (at the oldest member's singleton path, as the proxy does),
 * and meanwhile buffers up to {@code bufferSize} messages, dropping the oldest.
 *
 * <p>INTERNAL API.
 */
public final class SingletonLocator {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SingletonLocator.class);

  private enum Tick {
    INSTANCE
  }

  private SingletonLocator() {}

  /**
   * The path of the singleton's instance on this node, whether it runs here or not (a message sent
   * there reaches it only while it runs here).
   *
   * @param name the singleton's name
   * @return its local path, e.g. {@code /system/singletonManageralmanac-trigger/almanac-trigger}
   */
  public static String localPath(String name) {
    return "/system/singletonManager" + name + "/" + name;
  }

  /**
   * Starts the singleton's manager on this node (as {@link ClusterSingleton#init} does) and a
   * locator for it; Pekko's proxy that {@code init} also starts is not used.
   *
   * @param system the node's actor system
   * @param singleton the singleton
   * @param interval how often to look for the singleton while it is not found
   * @param bufferSize messages kept while it is not found
   * @param <T> its message type
   * @return where to send the singleton's messages from this node
   */
  public static <T> ActorRef<T> init(ActorSystem<?> system, SingletonActor<T> singleton, Duration interval, int bufferSize) {
    ClusterSingleton.get(system).init(singleton);
    return system.systemActorOf(create(singleton.name(), interval, bufferSize), "singletonLocator" + singleton.name(),
        Props.empty());
  }

  /**
   * @param name the singleton's name (as given to {@link SingletonActor#of})
   * @param interval how often to look for the singleton while it is not found
   * @param bufferSize messages kept while it is not found
   * @param <T> its message type
   * @return the locator's behavior
   */
  @SuppressWarnings("unchecked")
  public static <T> Behavior<T> create(String name, Duration interval, int bufferSize) {
    return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers ->
        new Locator<T>(ctx, timers, name, interval, bufferSize).start())).narrow();
  }

  private static final class Locator<T> {
    private final ActorContext<Object> ctx;
    private final TimerScheduler<Object> timers;
    private final String name;
    private final Duration interval;
    private final int bufferSize;
    private final ArrayDeque<T> buffer = new ArrayDeque<>();
    private ActorRef<T> singleton;
    private long identifyCounter;
    private String identifyId;
    private boolean dropping;

    Locator(ActorContext<Object> ctx, TimerScheduler<Object> timers, String name, Duration interval, int bufferSize) {
      this.ctx = ctx;
      this.timers = timers;
      this.name = name;
      this.interval = interval;
      this.bufferSize = bufferSize;
    }

    Behavior<Object> start() {
      lookUp();
      return Behaviors.receive(Object.class)
          .onMessageEquals(Tick.INSTANCE, this::identify)
          .onMessage(ActorIdentity.class, this::onIdentity)
          .onSignal(Terminated.class, this::onTerminated)
          .onAnyMessage(this::onMessage)
          .build();
    }

    private void lookUp() {
      singleton = null;
      identifyId = name + "-" + (++identifyCounter);
      timers.startTimerWithFixedDelay(Tick.INSTANCE, Duration.ZERO, interval);
    }

    private Behavior<Object> identify() {
      oldest().ifPresent(m -> {
        String path = m.address() + localPath(name);
        Adapter.toClassic(ctx).actorSelection(path).tell(new Identify(identifyId), Adapter.toClassic(ctx.getSelf()));
      });
      return Behaviors.same();
    }

    /** The oldest member that is up or leaving (where the singleton runs), as Pekko's proxy sees it. */
    private Optional<Member> oldest() {
      Cluster cluster = Cluster.get(ctx.getSystem());
      String dc = cluster.selfMember().dataCenter();
      // the singleton runs on the oldest member with the singletons' role, if one is configured
      String role = ctx.getSystem().settings().config().getString("pekko.cluster.singleton.role");
      return StreamSupport.stream(cluster.state().getMembers().spliterator(), false)
          .filter(m -> m.status() == MemberStatus.up() || m.status() == MemberStatus.leaving())
          .filter(m -> m.dataCenter().equals(dc))
          .filter(m -> role.isEmpty() || m.hasRole(role))
          .min((a, b) -> a.isOlderThan(b) ? -1 : b.isOlderThan(a) ? 1 : 0);
    }

    @SuppressWarnings("unchecked")
    private Behavior<Object> onIdentity(ActorIdentity identity) {
      if (!identifyId.equals(identity.correlationId()) || identity.getActorRef().isEmpty() || singleton != null) {
        return Behaviors.same();
      }
      singleton = (ActorRef<T>) Adapter.toTyped(identity.getActorRef().get());
      timers.cancel(Tick.INSTANCE);
      ctx.watch(singleton);
      LOG.info("singleton '{}' found at {}", name, singleton.path());
      while (!buffer.isEmpty()) {
        singleton.tell(buffer.poll());
      }
      dropping = false;
      return Behaviors.same();
    }

    private Behavior<Object> onTerminated(Terminated t) {
      if (singleton != null && t.getRef().equals(singleton)) {
        LOG.info("singleton '{}' at {} terminated: looking for it again", name, singleton.path());
        lookUp();
      }
      return Behaviors.same();
    }

    @SuppressWarnings("unchecked")
    private Behavior<Object> onMessage(Object msg) {
      if (singleton != null) {
        singleton.tell((T) msg);
        return Behaviors.same();
      }
      if (buffer.size() >= bufferSize) {
        buffer.poll();
        if (!dropping) {
          LOG.warn("singleton '{}' not found yet: {} messages buffered, dropping the oldest", name, bufferSize);
          dropping = true;
        }
      }
      buffer.add((T) msg);
      return Behaviors.same();
    }
  }
}

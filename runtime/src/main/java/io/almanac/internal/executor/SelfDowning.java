package io.almanac.internal.executor;

import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/** Tells an actor when its own node was downed or removed from the cluster. INTERNAL API. */
final class SelfDowning {

  private SelfDowning() {}

  /**
   * Subscribes the actor to the cluster's membership events.
   *
   * @param ctx the actor
   * @param downed its message for this node downed or removed, given why
   * @param ignored its message for any other membership event
   * @throws RuntimeException when the cluster cannot be watched (no cluster provider)
   */
  static <T> void subscribe(ActorContext<T> ctx, Function<String, T> downed, T ignored) {
    Cluster cluster = Cluster.get(ctx.getSystem());
    UniqueAddress self = cluster.selfMember().uniqueAddress();
    ActorRef<ClusterEvent.MemberEvent> events = ctx.messageAdapter(ClusterEvent.MemberEvent.class, e -> {
      if (e.member().uniqueAddress().equals(self)) {
        if (e instanceof ClusterEvent.MemberDowned) {
          return downed.apply("this node was downed");
        }
        if (e instanceof ClusterEvent.MemberRemoved) {
          return downed.apply("this node was removed from the cluster");
        }
      }
      return ignored;
    });
    cluster.subscriptions().tell(Subscribe.create(events, ClusterEvent.MemberEvent.class));
  }
}

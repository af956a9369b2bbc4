package io.almanac.internal.meter;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Sees every message the node's actors (the trigger, the task entities, the executor) receive, so
 * a test can count what a fire costs in messages. Absent in production: no interceptor is
 * installed without a tap. INTERNAL API.
 */
@FunctionalInterface
public interface MessageTap {

  /**
   * A message was delivered.
   *
   * @param actor which actor: {@code trigger}, {@code task} or {@code executor}
   * @param message the message (a command, a timer's, or a journal's reply)
   */
  void received(String actor, Object message);

  /**
   * @param tap the tap, or null for none
   * @param actor the actor's kind, for the tap
   * @param behavior the actor's behavior
   * @param <T> its message type
   * @return the behavior, tapped when there is a tap
   */
  static <T> Behavior<T> wrap(MessageTap tap, String actor, Behavior<T> behavior) {
    if (tap == null) {
      return behavior;
    }
    return Behaviors.intercept(() -> new Interceptor<T>(tap, actor), behavior);
  }

  /** Sees each message, then hands it on. */
  final class Interceptor<T> extends BehaviorInterceptor<T, T> {
    private final MessageTap tap;
    private final String actor;

    @SuppressWarnings("unchecked")
    Interceptor(MessageTap tap, String actor) {
      super((Class<T>) Object.class);
      this.tap = tap;
      this.actor = actor;
    }

    @Override
    public Behavior<T> aroundReceive(TypedActorContext<T> ctx, T msg, ReceiveTarget<T> target) {
      tap.received(actor, msg);
      return target.apply(ctx, msg);
    }
  }
}

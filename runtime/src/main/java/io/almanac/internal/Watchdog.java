package io.almanac.internal;

import io.almanac.Alert;
import io.almanac.AlertSink;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Checks on every node that the trigger is alive (R25) and raises TRIGGER_STALLED when it has not
 * looked at its queue for a while or does not answer, and TRIGGER_RECOVERED when it is back (R32).
 * INTERNAL API.
 */
public final class Watchdog {
  private Watchdog() {}

  /** What the watchdog handles. */
  public interface Command {}

  private enum Check implements Command {
    INSTANCE
  }

  private record Status(TriggerActor.TriggerStatus status, Throwable error) implements Command {}

  /**
   * @param trigger the trigger (proxy)
   * @param alerts where alerts go
   * @param clock where time comes from
   * @param interval how often to check
   * @param stallAfter how old the trigger's last tick may be
   * @return the watchdog's behavior
   */
  public static Behavior<Command> create(
      ActorRef<TriggerActor.Command> trigger, AlertSink alerts, Clock clock, Duration interval, Duration stallAfter) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Check.INSTANCE, interval);
      boolean[] stalled = {false};
      return Behaviors.receive(Command.class)
          .onMessageEquals(Check.INSTANCE, () -> {
            ctx.pipeToSelf(Asks.<TriggerActor.Command, TriggerActor.TriggerStatus>ask(trigger,
                TriggerActor.GetStatus::new, stallAfter, ctx.getSystem().scheduler()), Status::new);
            return Behaviors.same();
          })
          .onMessage(Status.class, m -> {
            if (m.error() != null && CoordinatedShutdown.get(ctx.getSystem()).getShutdownReason().isPresent()) {
              return Behaviors.same(); // the node is stopping: its trigger proxy stops with it, nothing stalled
            }
            Instant now = clock.instant();
            String problem = null;
            if (m.error() != null) {
              problem = "the trigger did not answer within " + stallAfter + " (" + m.error().getMessage() + ")";
            } else if (m.status().lastTick() != null && Duration.between(m.status().lastTick(), now).compareTo(stallAfter) > 0) {
              problem = "the trigger has not looked at its queue since " + m.status().lastTick();
            }
            if (problem != null && !stalled[0]) {
              stalled[0] = true;
              send(alerts, ctx, new Alert(Alert.Kind.TRIGGER_STALLED, null, null,
                  problem + ": no window is fired, retried or timed out", now));
            } else if (problem == null && stalled[0]) {
              stalled[0] = false;
              send(alerts, ctx, new Alert(Alert.Kind.TRIGGER_RECOVERED, null, null, "the trigger is alive again", now));
            }
            return Behaviors.same();
          })
          .build();
    }));
  }

  private static void send(AlertSink alerts, org.apache.pekko.actor.typed.javadsl.ActorContext<Command> ctx, Alert alert) {
    try {
      alerts.alert(alert);
    } catch (RuntimeException e) {
      ctx.getLog().error("alert sink failed on {}: {}", alert.kind(), e.toString());
    }
  }
}

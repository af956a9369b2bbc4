package io.almanac.internal.node;

import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.TriggerProtocol;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Checks on every node that the trigger is alive (R25) and raises TRIGGER_STALLED when it has made no
 * progress (its tick count has not changed, or it does not answer) for a while, measured on a
 * monotonic clock so that a wall-clock step is no stall, and TRIGGER_RECOVERED when it is back
 * (R32). See {@link StallDetector}.
 * INTERNAL API.
 */
public final class Watchdog {
  private Watchdog() {}

  /** What the watchdog handles. */
  public interface Command {}

  private enum Check implements Command {
    INSTANCE
  }

  private record Status(TriggerProtocol.TriggerStatus status, Throwable error) implements Command {}

  /**
   * @param trigger the trigger (proxy)
   * @param alerts where alerts go
   * @param clock where alert times come from (the wall clock; never used to judge a stall)
   * @param interval how often to check
   * @param stallAfter how long the trigger may make no progress
   * @return the watchdog's behavior
   */
  public static Behavior<Command> create(
      ActorRef<TriggerProtocol.Command> trigger, AlertSink alerts, Clock clock, Duration interval, Duration stallAfter) {
    return create(trigger, alerts, clock, interval, stallAfter, System::nanoTime);
  }

  /**
   * @param trigger the trigger (proxy)
   * @param alerts where alerts go
   * @param clock where alert times come from (the wall clock; never used to judge a stall)
   * @param interval how often to check
   * @param stallAfter how long the trigger may make no progress
   * @param nanoTime the monotonic clock a stall is measured on
   * @return the watchdog's behavior
   */
  static Behavior<Command> create(ActorRef<TriggerProtocol.Command> trigger, AlertSink alerts, Clock clock, Duration interval,
      Duration stallAfter, LongSupplier nanoTime) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Check.INSTANCE, io.almanac.spi.Saturating.timerDelay(interval));
      StallDetector detector = new StallDetector(stallAfter, nanoTime.getAsLong());
      String[] lastError = {null};
      return Behaviors.receive(Command.class)
          .onMessageEquals(Check.INSTANCE, () -> {
            if (!stopping(ctx)) { // when the node stops, its trigger proxy stops with it: nothing stalled
              report(detector.check(nanoTime.getAsLong()), detector, lastError[0], nanoTime, alerts, clock, ctx);
            }
            // one check's ask at a time: it times out before the next check asks again
            ctx.pipeToSelf(Asks.<TriggerProtocol.Command, TriggerProtocol.TriggerStatus>ask(trigger,
                TriggerProtocol.GetStatus::new, interval, ctx.getSystem().scheduler()), Status::new);
            return Behaviors.same();
          })
          .onMessage(Status.class, m -> {
            if (stopping(ctx)) {
              return Behaviors.same();
            }
            if (m.error() != null) {
              lastError[0] = "the trigger did not answer within " + interval + " (" + m.error().getMessage() + ")";
              return Behaviors.same(); // judged at the next check, on the monotonic clock
            }
            lastError[0] = null;
            report(detector.answered(m.status().ticks(), nanoTime.getAsLong()), detector, null, nanoTime, alerts, clock, ctx);
            return Behaviors.same();
          })
          .build();
    }));
  }

  private static boolean stopping(org.apache.pekko.actor.typed.javadsl.ActorContext<Command> ctx) {
    return CoordinatedShutdown.get(ctx.getSystem()).getShutdownReason().isPresent();
  }

  private static void report(StallDetector.Change change, StallDetector detector, String error, LongSupplier nanoTime,
      AlertSink alerts, Clock clock, org.apache.pekko.actor.typed.javadsl.ActorContext<Command> ctx) {
    Instant now = clock.instant();
    if (change == StallDetector.Change.STALLED) {
      String why = error != null ? error : "it answers but has not looked at its queue";
      send(alerts, ctx, new Alert(Alert.Kind.TRIGGER_STALLED, null, null, "the trigger has made no progress for "
          + detector.silentFor(nanoTime.getAsLong()).withNanos(0) + " (" + why + "): no window is fired, retried or timed out",
          now));
    } else if (change == StallDetector.Change.RECOVERED) {
      send(alerts, ctx, new Alert(Alert.Kind.TRIGGER_RECOVERED, null, null, "the trigger is alive again", now));
    }
  }

  private static void send(AlertSink alerts, org.apache.pekko.actor.typed.javadsl.ActorContext<Command> ctx, Alert alert) {
    try {
      alerts.alert(alert);
    } catch (RuntimeException e) {
      ctx.getLog().error("alert sink failed on {}: {}", alert.kind(), e.toString());
    }
  }
}

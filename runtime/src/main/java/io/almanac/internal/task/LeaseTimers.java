package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A task entity's lease timers: one per running attempt, due at its lease's end by the entity's
 * clock ({@link LeaseExpiry#endsAt}). The entity is the one owner of lease expiry (R23): when a timer
 * goes off it asks {@link AttemptLifecycle#settle}, which times out what {@link LeaseExpiry} says is
 * over. In memory only; re-armed from
 * the state after every write, after a wake-up and after recovery. INTERNAL API.
 */
final class LeaseTimers {

  private final TimerScheduler<TaskProtocol.Command> timers;
  private final Map<String, Instant> armed = new HashMap<>();

  LeaseTimers(TimerScheduler<TaskProtocol.Command> timers) {
    this.timers = timers;
  }

  /**
   * Arms a timer for every running attempt whose lease end has no timer yet (or a different one),
   * and cancels the timers of windows no longer running. An attempt whose executor is ending (its
   * node left, its lease not yet seen ended) is looked at again within {@code recheck}, so that it
   * is timed out soon after its executor's lease ended rather than at its own lease's end.
   *
   * @param state the task's state
   * @param now the entity's clock
   * @param executors what is known of an executor identity
   * @param recheck how soon an ending executor is asked about again
   */
  void arm(State state, Instant now, Function<String, ExecutorLiveness.State> executors, Duration recheck) {
    Map<String, Instant> running = new HashMap<>();
    for (WindowState w : state.table().live()) {
      if (w.status() != InstanceStatus.RUNNING) {
        continue;
      }
      Instant due = LeaseExpiry.endsAt(w);
      Instant armedAt = armed.get(w.key());
      if (w.executor() != null && executors.apply(w.executor()) == ExecutorLiveness.State.ENDING) {
        Instant soon = now.plus(recheck);
        if (soon.isBefore(due) || !due.isAfter(now)) {
          // keep an earlier check that is still to come; else check again soon (also past the lease's end:
          // an attempt of an ending executor stays RUNNING until that executor is seen gone)
          due = armedAt != null && armedAt.isAfter(now) && !armedAt.isAfter(soon) ? armedAt : soon;
        }
      }
      running.put(w.key(), due);
      if (!due.equals(armedAt)) {
        armed.put(w.key(), due);
        timers.startSingleTimer(key(w.key()), new TaskProtocol.LeaseTimer(w.key(), w.attempt()),
            io.almanac.spi.Saturating.timerDelay(now, due));
      }
    }
    for (String window : new ArrayList<>(armed.keySet())) {
      if (!running.containsKey(window)) {
        armed.remove(window);
        timers.cancel(key(window));
      }
    }
  }

  /** This window's timer went off: it is armed again at the next {@link #arm} if still running. */
  void fired(String window) {
    armed.remove(window);
  }

  /** Forgets every timer, so the next {@link #arm} re-arms all by the clock now (it may have stepped). */
  void forgetAll() {
    armed.clear();
  }

  private static String key(String window) {
    return "lease|" + window;
  }
}

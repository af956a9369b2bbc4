package io.almanac.internal.task;

import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.TaskJournal.State;
import io.almanac.spi.Saturating;
import java.time.Instant;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A task entity's deadline timer: one timer, due at the earliest deadline of a watched window
 * ({@link Deadlines#next}) by the entity's clock; when it goes off the entity records what {@link
 * Deadlines#missed} says. In memory only: re-armed from the state after every write, after a wake-up
 * and after recovery (a deadline that passed while the task was down or passivated is due at once).
 * A task without a deadline never starts it. INTERNAL API.
 */
final class DeadlineTimers {

  private static final String KEY = "deadline";

  private final TimerScheduler<TaskProtocol.Command> timers;
  private Instant armed;

  DeadlineTimers(TimerScheduler<TaskProtocol.Command> timers) {
    this.timers = timers;
  }

  /**
   * Arms the timer for the state's next deadline (when it changed), or cancels it when none is watched.
   *
   * @param state the task's state
   * @param now the entity's clock
   */
  void arm(State state, Instant now) {
    Instant next = Deadlines.next(state);
    if (next == null) {
      if (armed != null) {
        armed = null;
        timers.cancel(KEY);
      }
      return;
    }
    if (!next.equals(armed)) {
      armed = next;
      // at most a day ahead: a far deadline goes off early, finds nothing missed and is armed again
      timers.startSingleTimer(KEY, new TaskProtocol.DeadlineTimer(), Saturating.timerDelay(now, next));
    }
  }

  /**
   * Forgets the timer and arms it again by the clock now (after recovery).
   *
   * @param state the task's state
   * @param now the entity's clock
   */
  void rearm(State state, Instant now) {
    forget();
    arm(state, now);
  }

  /** The timer went off (or the clock may have stepped): the next {@link #arm} arms it again by the clock now. */
  void forget() {
    armed = null;
  }
}

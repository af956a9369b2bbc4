package io.almanac.internal.task;

import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.WindowState;
import java.util.List;

/**
 * What a pause covers (R31), decided in one place: while a task is paused, no attempt of it starts.
 * Its windows due meanwhile are skipped PAUSED ({@link FireDecider}); its PENDING windows of every
 * run kind (first, retry, manual run, backfill and catch-up) are not offered to the executor, and an
 * admission of one offered before the pause is declined (the executor frees the slot); its
 * RETRY_WAIT windows stay RETRY_WAIT past their due time. Each keeps its status and starts after the
 * resume, whose write also moves the retries that fell due meanwhile to PENDING. Running attempts
 * are not covered: they run to their result (an operator cancels one to stop it). Pure; its
 * callers are {@link Reactions#offerable}, {@link Reactions#nextWake}, {@link AttemptLifecycle}'s
 * start and due retries, and {@link TaskDispatch}. It reads the state alone: a fire of a task that
 * is not paused costs nothing more. INTERNAL API.
 */
final class PauseScope {

  private PauseScope() {}

  /**
   * @param state the task's state
   * @return whether the task's attempts that have not started are held back (the task is paused)
   */
  static boolean holdsStarts(State state) {
    return state.defined() && state.paused();
  }

  /**
   * @param state the task's state, paused
   * @param w the window that may not start
   * @return why it does not start now, for the executor's decline
   */
  static String held(State state, WindowState w) {
    return "task '" + state.spec().id() + "' is paused: window '" + w.key() + "' stays " + w.status()
        + " and starts after the task is resumed";
  }

  /**
   * @param written the events just written
   * @return whether they resume the task (then every PENDING window is offered again, those the
   *     executor declined while paused included)
   */
  static boolean resumes(List<Event> written) {
    for (Event e : written) {
      if (e instanceof TaskResumed) {
        return true;
      }
    }
    return false;
  }
}

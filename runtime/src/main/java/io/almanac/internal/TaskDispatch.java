package io.almanac.internal;

import io.almanac.RunKind;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a task entity tells its node's executor and the trigger after a write: the PENDING windows
 * that may start (each offered once per attempt until an attempt ends or the task wakes), and when
 * the task next needs a wake-up (told only when it changed). In memory only (principle 1): nothing
 * here is truth, and {@link #reset} forgets it all after a recovery. INTERNAL API.
 */
final class TaskDispatch {

  private final String taskId;
  private final TaskEnv env;
  private final ActorRef<TaskProtocol.Command> self;
  private final Duration redispatchAfter;
  private final Set<String> offered = new HashSet<>();
  private TriggerActor.TaskWakes lastReported;

  TaskDispatch(String taskId, TaskEnv env, ActorRef<TaskProtocol.Command> self, Duration redispatchAfter) {
    this.taskId = taskId;
    this.env = env;
    this.self = self;
    this.redispatchAfter = redispatchAfter;
  }

  /** Whether there is an executor to offer windows to (none in unit tests of the entity). */
  boolean hasExecutor() {
    return env.executor() != null;
  }

  /** Offers a fresh window's first attempt; the executor answers even when it can only queue it. */
  void offerFresh(String window) {
    offered.add(window + "#0");
    env.executor().tell(new Executor.Offer(taskId, window, RunKind.FIRST, self, true));
  }

  /** Offers the executor the PENDING windows that may start (it ignores one it holds already). */
  void offerPending(State state) {
    if (env.executor() == null) {
      return;
    }
    for (WindowState w : Reactions.offerable(state)) {
      if (offered.add(w.key() + "#" + w.attempt())) {
        env.executor().tell(new Executor.Offer(taskId, w.key(), w.runKind(), self, false));
      }
    }
  }

  /** Whatever was offered is offered again at the next {@link #offerPending}. */
  void forgetOffers() {
    offered.clear();
  }

  /** Tells the trigger when this task next needs a wake-up (a lease's end, a retry's due time), when it changed. */
  void reportWakes(State state, Instant gateWake, long seq) {
    if (env.trigger() == null) {
      return;
    }
    TriggerActor.TaskWakes wakes = wakes(state, gateWake, seq);
    if (!sameAs(wakes, lastReported)) {
      lastReported = wakes;
      env.trigger().tell(wakes);
    }
  }

  /**
   * The wake-up report that rides along with a fire's answer (always: a lost answer's fire comes
   * again), noted as told.
   */
  TriggerActor.TaskWakes wakesForReply(State state, Instant gateWake, long seq) {
    lastReported = wakes(state, gateWake, seq);
    return lastReported;
  }

  private TriggerActor.TaskWakes wakes(State state, Instant gateWake, long seq) {
    Instant next = Gates.earliest(Reactions.nextWake(state, redispatchAfter), gateWake);
    return new TriggerActor.TaskWakes(taskId, next, state.hasActive() || gateWake != null, seq);
  }

  private static boolean sameAs(TriggerActor.TaskWakes a, TriggerActor.TaskWakes b) {
    return b != null && java.util.Objects.equals(a.nextWake(), b.nextWake()) && a.active() == b.active();
  }

  /** After a recovery: nothing offered or reported survives it. */
  void reset() {
    offered.clear();
    lastReported = null;
  }
}

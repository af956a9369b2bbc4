package io.almanac.internal.task;

import io.almanac.RunKind;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
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
 * the task next needs a wake-up (told only when it changed, or carried in a fire's answer). In memory only (principle 1): nothing
 * here is truth, and {@link #reset} forgets it all after a recovery. INTERNAL API.
 */
final class TaskDispatch {

  private final String taskId;
  private final TaskEnv env;
  private final ActorRef<TaskProtocol.Command> self;
  private final Duration redispatchAfter;
  private final Duration dependencyPoll;
  private final Set<String> offered = new HashSet<>();
  private TriggerProtocol.TaskWakes lastReported;
  private boolean wakesInReply;
  private TriggerProtocol.TaskWakes replyWakes;

  TaskDispatch(String taskId, TaskEnv env, ActorRef<TaskProtocol.Command> self, Duration redispatchAfter,
      Duration dependencyPoll) {
    this.taskId = taskId;
    this.env = env;
    this.self = self;
    this.redispatchAfter = redispatchAfter;
    this.dependencyPoll = dependencyPoll;
  }

  /** Whether there is an executor to offer windows to (none in unit tests of the entity). */
  boolean hasExecutor() {
    return env.executor() != null;
  }

  /** Offers a fresh window's first attempt; the executor answers even when it can only queue it. */
  void offerFresh(String window) {
    offered.add(window + "#0");
    env.executor().tell(new ExecutorProtocol.Offer(taskId, window, RunKind.FIRST, self, true));
  }

  /**
   * After a write: offers the executor the PENDING windows that may start (it ignores one it holds
   * already); after an attempt ended or a resume, also those offered before (one may have been held
   * back by it, or declined while the task was paused).
   */
  void offerPending(State state, java.util.List<io.almanac.journal.TaskJournal.Event> written,
      java.util.List<io.almanac.journal.WindowChange> changes) {
    if (Reactions.attemptEnded(changes) || PauseScope.resumes(written)) {
      forgetOffers();
    }
    if (env.executor() == null) {
      return;
    }
    for (WindowState w : Reactions.offerable(state)) {
      if (offered.add(w.key() + "#" + w.attempt())) {
        env.executor().tell(new ExecutorProtocol.Offer(taskId, w.key(), w.runKind(), self, false, state.spec().pools()));
      }
    }
  }

  /** Whatever was offered is offered again at the next {@link #offerPending}. */
  void forgetOffers() {
    offered.clear();
  }

  /** Tells the trigger when this task next needs a wake-up (a lease's end, a retry's due time), when it changed. */
  void reportWakes(State state, Instant now, long seq) {
    if (env.trigger() == null) {
      return;
    }
    TriggerProtocol.TaskWakes wakes = wakes(state, now, seq);
    if (!sameAs(wakes, lastReported)) {
      lastReported = wakes;
      env.trigger().tell(wakes);
    }
  }

  /**
   * The wake-up report that rides along with a fire's answer (always: a lost answer's fire comes
   * again), noted as told.
   */
  TriggerProtocol.TaskWakes wakesForReply(State state, Instant now, long seq) {
    lastReported = wakes(state, now, seq);
    return lastReported;
  }

  /** The write on its way answers a fire: its wake-up report goes in that answer, not in a message of its own. */
  void answersFire() {
    wakesInReply = true;
  }

  /** After a write: the wake-up report is told to the trigger (when it changed), or kept for the fire's answer. */
  void afterWrite(State state, Instant now, long seq) {
    if (wakesInReply) {
      wakesInReply = false;
      replyWakes = wakesForReply(state, now, seq);
    } else {
      reportWakes(state, now, seq);
    }
  }

  /** @return the wake-up report kept for the fire's answer by the last {@link #afterWrite}, once */
  TriggerProtocol.TaskWakes takeReplyWakes() {
    TriggerProtocol.TaskWakes w = replyWakes;
    replyWakes = null;
    return w;
  }

  private TriggerProtocol.TaskWakes wakes(State state, Instant now, long seq) {
    Instant gateWake = Gates.nextWake(taskId, state, dependencyPoll, now); // a waiting window's poll or deadline
    Instant next = Gates.earliest(Gates.earliest(Reactions.nextWake(state, redispatchAfter), gateWake),
        Deadlines.next(state)); // a deadline: a passivated entity's timer is gone, the wake-up brings it back
    return new TriggerProtocol.TaskWakes(taskId, next, state.hasActive() || gateWake != null, seq);
  }

  private static boolean sameAs(TriggerProtocol.TaskWakes a, TriggerProtocol.TaskWakes b) {
    return b != null && java.util.Objects.equals(a.nextWake(), b.nextWake()) && a.active() == b.active();
  }

  /** After a recovery: nothing offered or reported survives it. */
  void reset() {
    offered.clear();
    lastReported = null;
    wakesInReply = false;
    replyWakes = null;
  }
}

package io.almanac.internal.executor;

import io.almanac.JobResult;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One attempt running here. Mutable: the executor actor owns it, and the job's thread reads its
 * flags and its deadline (volatile) and sets {@link #took}. It holds no actor. INTERNAL API.
 */
final class RunningAttempt {
  final AttemptItem item;
  final int attempt;
  final Instant startedAt;
  final CompletableFuture<Void> cancelled = new CompletableFuture<>();
  /** Completed when its node begins to stop (the drain): the job is asked, not cancelled. */
  final CompletableFuture<Void> stopping = new CompletableFuture<>();
  volatile Instant deadline;
  /** Its node lost the lease it ran under: nothing is reported or recorded for it. */
  volatile boolean fenced;
  /** Set false by the actor when the attempt gives up its slot (cancelled, fenced): its end then goes through the actor. */
  volatile boolean inSlot = true;
  /** Set by the actor when the slot was freed (cancelled): from then on it is only watched. */
  Instant abandonedAt;
  /** Its thread had not returned stuck-after its cancel (alerted once). */
  boolean stuck;
  /** How long the job took, set by its thread when its stage completed (its result may still be on its way). */
  volatile Duration took;
  /** The job's context, set when its job starts (null before): what the job logged so far is read from it. */
  volatile JobContextImpl context;
  /** The resource pools the attempt holds (its cost is added to their days), or null for none; actor-owned. */
  java.util.List<String> pools;
  /** The attempt's span, or null when the node does not trace (set before its job runs). */
  volatile io.almanac.internal.trace.AttemptTrace trace;
  private Thread thread;
  private CompletableFuture<JobResult> stage;

  RunningAttempt(AttemptItem item, int attempt, Instant startedAt, Instant deadline) {
    this.item = item;
    this.attempt = attempt;
    this.startedAt = startedAt;
    this.deadline = deadline;
  }

  String id() {
    return item.key() + "#" + attempt;
  }

  synchronized void enter() {
    thread = Thread.currentThread();
    if (cancelled.isDone()) {
      thread.interrupt(); // cancelled before the job's thread got here: a blocking job still sees it
    }
  }

  synchronized void leave(CompletionStage<JobResult> s) {
    thread = null;
    stage = s == null ? null : s.toCompletableFuture();
  }

  /** Cancels the job: flag, stage and, while it is inside run(), its thread. */
  synchronized boolean cancel() {
    if (!cancelled.complete(null)) {
      return false;
    }
    if (thread != null) {
      thread.interrupt();
    }
    if (stage != null) {
      stage.cancel(true);
    }
    return true;
  }
}

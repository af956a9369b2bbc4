package io.almanac.internal.executor;


/**
 * The executor's hold on its node lease ({@code ExecutorFence}) as a state machine: whether jobs may
 * run, when to ask for the lease (one ask at a time), and what an answer, a loss, a pause or the
 * node's downing mean. Pure: the fence's own reads (whether the lease is valid, whether an answer is
 * for the identity now) and the monotonic time are passed in; owned by the executor actor.
 * INTERNAL API.
 */
final class FenceHold {

  /** No fence, being acquired (or renewed) for the identity now, held, or never again. */
  enum State { NONE, ACQUIRING, HELD, ENDED }

  /** What an answer to an ask means. */
  enum Answer {
    /** For an identity given up since (or after the end): ask again, for the identity now. */
    STALE,
    /** The lease is taken: jobs may run. */
    GRANTED,
    /** A held lease was renewed (after a pause). */
    RENEWED,
    /** A held lease's renewal failed: it may have been taken, the identity now is lost. */
    RENEWAL_FAILED,
    /** Not taken (yet): nothing runs until it is; asked again at the next check. */
    NOT_TAKEN
  }

  private State state;
  private boolean asking;
  private long lastCheckNanos;

  FenceHold(boolean configured, long nowNanos) {
    this.state = configured ? State.ACQUIRING : State.NONE;
    this.lastCheckNanos = nowNanos;
  }

  State state() {
    return state;
  }

  /** Whether attempts may be admitted and run now. */
  boolean mayRun(boolean valid) {
    return state == State.NONE || (state == State.HELD && valid);
  }

  /** Whether to ask for the lease now (one ask at a time, while one is wanted); true marks the ask as on its way. */
  boolean startAsk() {
    if (asking || state == State.ENDED || state == State.NONE) {
      return false;
    }
    asking = true;
    return true;
  }

  /**
   * The answer to the ask on its way.
   *
   * @param forIdentityNow whether it is for the executor's identity now
   * @param held whether the lease is taken (or renewed)
   */
  Answer answered(boolean forIdentityNow, boolean held) {
    asking = false;
    if (!forIdentityNow || state == State.ENDED) {
      return Answer.STALE;
    }
    if (held) {
      Answer a = state == State.HELD ? Answer.RENEWED : Answer.GRANTED;
      state = State.HELD;
      return a;
    }
    return state == State.HELD ? Answer.RENEWAL_FAILED : Answer.NOT_TAKEN;
  }

  /** Whether the lease's report that it was lost ends the identity now. */
  boolean lossCounts(boolean forIdentityNow) {
    return forIdentityNow && state == State.HELD;
  }

  /** Whether a held lease is not valid any more (not while a renewal is on its way): the same as lost. */
  boolean broken(boolean valid) {
    return state == State.HELD && !asking && !valid;
  }

  /** Whether the lease is suspect: held, but not valid now (a renewal after a pause is on its way). */
  boolean suspect(boolean valid) {
    return state == State.HELD && !valid;
  }

  /**
   * A check at {@code nowNanos}, {@code limitNanos} after the last one at most.
   *
   * @return the gap since the last check when it passed the limit while the lease was held (the lease
   *     is suspect until renewed), or -1
   */
  long paused(long nowNanos, long limitNanos) {
    long gap = nowNanos - lastCheckNanos;
    lastCheckNanos = nowNanos;
    return state == State.HELD && !asking && gap > limitNanos ? gap : -1;
  }

  /** Whether a check should ask again: the lease is still being acquired (after a failed try). */
  boolean acquiring() {
    return state == State.ACQUIRING;
  }

  /** Whether there is a lease to end (the node was downed): not without a fence, nor twice. */
  boolean mayEnd() {
    return state != State.NONE && state != State.ENDED;
  }

  /**
   * The identity now lost its lease.
   *
   * @param forGood whether the fence ended (no new identity takes a lease)
   */
  void lost(boolean forGood) {
    state = forGood ? State.ENDED : State.ACQUIRING;
  }

  /** Never a lease again (downed, or drained and released). */
  void end() {
    state = State.ENDED;
  }
}

package io.almanac.internal.executor;

import io.almanac.RunKind;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The executor's admission decisions (see {@link Executor} for the protocol): which offered window
 * is queued, admitted into a slot or ignored, the reservations until the entity answers, the
 * started attempts that wait for a slot (the prefetch, at the slots' pace), the per-task limit and the
 * backlog's token buckets. Pure: no actors, time passed in; not thread-safe, owned by the executor
 * actor. {@code T} is how an entity is answered (an actor ref in the executor, anything in tests).
 * INTERNAL API.
 */
final class Admission<T> {

  /** Told when an entity first holds something here and when it holds nothing any more (death watch). */
  interface Watch<T> {
    void watch(T task);

    void unwatch(T task);
  }

  /**
   * A window offered by its entity, queued or admitted (a slot reserved for it); {@code pools} the
   * resource pools its task names (empty: none, the path of every task without pools).
   */
  record Offered<T>(String taskId, String window, RunKind kind, T task, List<String> pools) {
    Offered(String taskId, String window, RunKind kind, T task) {
      this(taskId, window, kind, task, List.of());
    }

    boolean pooled() {
      return !pools.isEmpty();
    }

    String key() {
      return taskId + "|" + window;
    }

    boolean fresh() {
      return kind == RunKind.FIRST || kind == RunKind.MANUAL || kind == RunKind.RESUME; // a resume runs again at once
    }
  }

  /**
   * An attempt its entity has started, waiting for a job slot (prefetch); {@code since} when its
   * start arrived here (null: not known).
   */
  record Ready(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant since) {
    Ready(AttemptItem item, TaskProtocol.AttemptGrant grant) {
      this(item, grant, null);
    }
  }

  /** What became of an offer. */
  enum OfferDecision {
    /** It is admitted already (reserved or started and waiting for a slot): nothing to do. */
    ADMITTED_ALREADY,
    /** The same entity offered it before and it waits in the queue. */
    QUEUED_ALREADY,
    /** Nothing is admitted while the executor drains: the window stays PENDING in its entity. */
    NOT_WHILE_DRAINING,
    /** Queued now: {@link #admit} may admit it at once. */
    QUEUED
  }

  private final ExecutorSettings settings;
  private final Watch<T> watch;
  private final ArrayDeque<Offered<T>> fresh = new ArrayDeque<>();
  private final ArrayDeque<Offered<T>> backlog = new ArrayDeque<>();
  private final Map<String, Offered<T>> queued = new HashMap<>();
  /** Admitted windows whose entity has not answered yet: their slots are reserved. */
  private final Map<String, Offered<T>> reserved = new HashMap<>();
  /** When each reservation was made (the start's round trip, the prefetch's pace). */
  private final Map<String, Instant> reservedSince = new HashMap<>();
  private final ArrayDeque<Ready> ready = new ArrayDeque<>();
  /** The windows in {@link #ready}, counted (a lookup per offer). */
  private final Map<String, Integer> readyKeys = new HashMap<>();
  /** Per task: reserved, ready and running attempts (the per-task limit). */
  private final Map<String, Integer> admittedPerTask = new HashMap<>();
  /** Per entity: its queued and reserved windows here (an entity is watched while it has any). */
  private final Map<T, Integer> holdings = new HashMap<>();
  private final Map<String, TokenBucket> taskBuckets = new HashMap<>();
  private final TokenBucket globalBucket;
  private final JobPace pace = new JobPace();

  Admission(ExecutorSettings settings, Instant now, Watch<T> watch) {
    this.settings = settings;
    this.watch = watch;
    this.globalBucket = new TokenBucket(settings.backlogRate(), settings.backlogBurst(), now);
  }

  /**
   * Whether a started attempt whose lease ends at {@code leaseUntil} may no longer run: the executor
   * lets an attempt go that has not got a slot yet by the one lease rule ({@link LeaseExpiry#over}),
   * and its entity's lease timer times it out by the same rule.
   */
  static boolean leaseEnded(Instant leaseUntil, Instant now) {
    return LeaseExpiry.over(leaseUntil, now);
  }

  /** An offer of a window that does not run here now. */
  OfferDecision offer(String taskId, String window, RunKind kind, T task, boolean draining) {
    return offer(taskId, window, kind, task, draining, List.of());
  }

  /** An offer of a window of a task that names resource pools (none: as {@link #offer(String, String, RunKind, Object, boolean)}). */
  OfferDecision offer(String taskId, String window, RunKind kind, T task, boolean draining, List<String> pools) {
    Offered<T> offered = new Offered<>(taskId, window, kind, task, pools == null ? List.of() : pools);
    String key = offered.key();
    if (reserved.containsKey(key) || readyKeys.containsKey(key)) {
      return OfferDecision.ADMITTED_ALREADY; // offered again (a wake-up, a recovery)
    }
    Offered<T> before = queued.get(key);
    if (before != null) {
      if (before.task().equals(task)) {
        return OfferDecision.QUEUED_ALREADY;
      }
      unqueue(before); // offered by a new incarnation of its entity: answer that one
    }
    if (draining) {
      return OfferDecision.NOT_WHILE_DRAINING;
    }
    queued.put(key, offered);
    hold(task);
    (offered.fresh() ? fresh : backlog).addLast(offered);
    return OfferDecision.QUEUED;
  }

  boolean isQueued(String key) {
    return queued.containsKey(key);
  }

  /** The next started attempt waiting for a slot, taken off the queue; null if none waits. */
  Ready pollReady() {
    Ready r = ready.pollFirst();
    if (r != null) {
      unreadied(r);
    }
    return r;
  }

  /**
   * Admits queued windows while there is room (the slots, plus the prefetch at the slots' pace, see
   * {@link JobPace#ahead}): fresh ones first, then the backlog at its rate. Each admission reserves a
   * slot until the entity answers. Reserved, waiting and running attempts together never exceed
   * max-concurrent plus the prefetch, so never more than the prefetch are started without a slot.
   *
   * @param running how long each job holding a slot has run so far (or took, if it ended)
   * @param now the time now
   * @return the windows admitted, in order: each entity is to be told
   */
  List<Offered<T>> admit(List<Duration> running, Instant now) {
    return admit(running, 0, now);
  }

  /**
   * As {@link #admit(List, Instant)}, with {@code pendingResults} results of jobs that ended here
   * reported and not acknowledged yet: at max-pending-results nothing is admitted (see {@link
   * #resultsFull}); below it, the slots counted are those the results pending leave usable ({@link
   * #slotFree}), so the started attempts that wait for a slot stay within the prefetch.
   */
  List<Offered<T>> admit(List<Duration> running, int pendingResults, Instant now) {
    if (resultsFull(pendingResults)) {
      return List.of(); // back-pressure: the journal writes results slower than the jobs end
    }
    // the slots that may run a job now: max-concurrent, fewer when the results pending leave less
    // room (a job in a slot is a result to come); the prefetch waits beyond these only
    long usable = Math.max(0, Math.min(settings.maxConcurrent(), (long) settings.maxPendingResults() - pendingResults));
    int room = (int) Math.min(Integer.MAX_VALUE, usable + ahead(running, now));
    List<Offered<T>> admitted = new ArrayList<>();
    while (running.size() + ready.size() + reserved.size() < room) {
      Offered<T> next = take(fresh, false, now);
      if (next == null) {
        next = take(backlog, true, now);
      }
      if (next == null) {
        break;
      }
      reserved.put(next.key(), next);
      reservedSince.put(next.key(), now);
      admittedPerTask.merge(next.taskId(), 1, Integer::sum);
      admitted.add(next);
    }
    return admitted;
  }

  /** Whether results not acknowledged yet reach max-pending-results: no attempt is admitted then. */
  boolean resultsFull(int pendingResults) {
    return pendingResults >= settings.maxPendingResults();
  }

  /**
   * Whether a started attempt may take a free slot now: a slot is free and the jobs in slots, each a
   * result to come, stay below max-pending-results with the results not acknowledged yet (so those
   * never exceed it).
   */
  boolean slotFree(int inSlots, int pendingResults) {
    return inSlots < settings.maxConcurrent() && (long) inSlots + pendingResults < settings.maxPendingResults();
  }

  /** The prefetch now: started attempts that may wait for a slot ({@link JobPace#ahead}). */
  int ahead(List<Duration> running, Instant now) {
    return JobPace.ahead(settings.maxConcurrent(), settings.prefetchPerSlot(), settings.prefetchMaxJob(), pace.jobs(),
        running, pace.holds(), pace.trips(), pace.takes(), now);
  }

  /** The prefetch's bound: never more started attempts wait for a slot (max-concurrent x prefetch-per-slot). */
  int prefetchBound() {
    return (int) Math.min(Integer.MAX_VALUE, (long) settings.maxConcurrent() * settings.prefetchPerSlot());
  }

  /**
   * Takes the first queued window whose task has room (and, for backlog, a token); the entity's
   * holding moves from the queue to the reservation.
   */
  private Offered<T> take(ArrayDeque<Offered<T>> queue, boolean limited, Instant now) {
    Iterator<Offered<T>> it = queue.iterator();
    while (it.hasNext()) {
      Offered<T> o = it.next();
      if (admittedPerTask.getOrDefault(o.taskId(), 0) >= settings.maxConcurrentPerTask()) {
        continue;
      }
      if (o.pooled() && poolBlocked(o, now)) {
        continue; // its pool has no room now (as far as this node knows): the queue goes on past it
      }
      if (limited) {
        if (!globalBucket.available(now)) {
          return null; // nothing in the backlog can start before the next refill
        }
        TokenBucket task = taskBuckets.computeIfAbsent(o.taskId(),
            id -> new TokenBucket(settings.backlogRatePerTask(), settings.backlogBurstPerTask(), now));
        if (!task.available(now)) {
          continue;
        }
        task.take(now);
        globalBucket.take(now);
      }
      it.remove();
      queued.remove(o.key());
      return o; // still held: now as a reservation
    }
    return null;
  }

  /**
   * The entity answered an admission of this window (started or declined): its reservation ends.
   *
   * @return whether it was reserved (false: freed meanwhile, its entity restarted)
   */
  boolean endReservation(String key) {
    return endReservation(key, null);
  }

  /**
   * As {@link #endReservation(String)}; {@code startedAt}: when the entity's answer that it started
   * the attempt arrived (its round trip is the prefetch's pace), null for a decline.
   */
  boolean endReservation(String key, Instant startedAt) {
    Instant since = reservedSince.remove(key);
    if (since != null && startedAt != null) {
      pace.startTook(Duration.between(since, startedAt));
    }
    Offered<T> was = reserved.remove(key);
    if (was != null) {
      unhold(was.task());
    }
    return was != null;
  }

  /** A started attempt whose reservation was freed meanwhile: it counts for its task all the same. */
  void countUnreserved(String taskId) {
    admittedPerTask.merge(taskId, 1, Integer::sum);
  }

  /** A started attempt waits for a slot. */
  void ready(Ready r) {
    ready.addLast(r);
    readyKeys.merge(r.item().key(), 1, Integer::sum);
  }

  /** An attempt of this task left (ended, cancelled, not run): its task has room for one more. */
  void release(String taskId) {
    admittedPerTask.computeIfPresent(taskId, (k, v) -> v <= 1 ? null : v - 1);
  }

  /**
   * A job that took {@code took} gave its slot back after holding it {@code held} (the job, and the
   * message that tells the executor it ended; its result's write is not waited for): the prefetch's
   * pace.
   */
  void jobEnded(Duration took, Duration held) {
    pace.ended(took, held);
  }

  /** A slot took a started attempt at {@code now} (the prefetch's pace). */
  void slotTaken(Instant now) {
    pace.taken(now);
  }

  /**
   * Cancels this attempt if it waits for a slot (fenced by its attempt number).
   *
   * @return whether it waited (it is gone now, its task's count released)
   */
  boolean cancelReady(String taskId, String window, int attempt) {
    String key = taskId + "|" + window;
    if (ready.removeIf(w -> w.item().key().equals(key) && w.grant().attempt() == attempt && unreadiedAnd(w))) {
      release(taskId);
      return true;
    }
    return false;
  }

  /** The waiting attempts whose lease ended ({@link #leaseEnded}), taken off the queue; their counts are not released. */
  List<Ready> takeExpired(Instant now) {
    List<Ready> expired = new ArrayList<>();
    for (Iterator<Ready> it = ready.iterator(); it.hasNext(); ) {
      Ready w = it.next();
      if (leaseEnded(w.grant().leaseUntil(), now)) {
        it.remove();
        unreadied(w);
        expired.add(w);
      }
    }
    return expired;
  }

  /**
   * Frees the reservations and drops the queued offers that match: their entity will not answer.
   */
  void forget(Predicate<Offered<T>> which) {
    for (Iterator<Offered<T>> it = reserved.values().iterator(); it.hasNext(); ) {
      Offered<T> o = it.next();
      if (which.test(o)) {
        it.remove();
        reservedSince.remove(o.key());
        unhold(o.task());
        release(o.taskId());
      }
    }
    for (Offered<T> o : new ArrayList<>(queued.values())) {
      if (which.test(o)) {
        unqueue(o);
      }
    }
  }

  /**
   * The node lost its lease: what waited for a slot or was reserved is dropped (queued offers stay,
   * for the next identity).
   *
   * @return how many attempts were dropped
   */
  int dropAdmitted() {
    for (Ready w : ready) {
      release(w.item().taskId());
    }
    int dropped = ready.size() + reserved.size();
    ready.clear();
    readyKeys.clear();
    for (Offered<T> o : reserved.values()) {
      unhold(o.task());
      release(o.taskId());
    }
    reserved.clear();
    reservedSince.clear();
    return dropped;
  }

  int queuedFresh() {
    return fresh.size();
  }

  int queuedBacklog() {
    return backlog.size();
  }

  /** Started attempts waiting for a slot. */
  int readyCount() {
    return ready.size();
  }

  /** Whether nothing is reserved or waiting for a slot. */
  boolean noneAdmitted() {
    return ready.isEmpty() && reserved.isEmpty();
  }

  private void unreadied(Ready r) {
    readyKeys.computeIfPresent(r.item().key(), (k, n) -> n == 1 ? null : n - 1);
  }

  /** For removeIf: forgets the window's key and answers true (it is being removed). */
  private boolean unreadiedAnd(Ready r) {
    unreadied(r);
    return true;
  }

  private void unqueue(Offered<T> o) {
    queued.remove(o.key());
    (o.fresh() ? fresh : backlog).remove(o);
    unhold(o.task());
  }

  private void hold(T task) {
    if (holdings.merge(task, 1, Integer::sum) == 1) {
      watch.watch(task);
    }
  }

  private void unhold(T task) {
    Integer left = holdings.computeIfPresent(task, (k, v) -> v <= 1 ? null : v - 1);
    if (left == null) {
      watch.unwatch(task);
    }
  }

  // ---- resource pools (only offers that name pools go here; see Executor)

  /** Why and until when this node asks the store nothing for a pool. */
  record Block(Instant until, io.almanac.PoolWaitReason reason) {}

  /** A queued window passed over because one of its pools is blocked here. */
  record Skipped<T>(Offered<T> offered, String pool, Block block) {}

  /** Per pool: until when this node asks the store nothing for it (refused: full, rate, paused). */
  private final Map<String, Block> poolBlocked = new HashMap<>();
  /** The windows passed over by the last {@link #admit}s, until taken by {@link #takeSkipped}. */
  private final Map<String, Skipped<T>> skipped = new java.util.LinkedHashMap<>();

  private boolean poolBlocked(Offered<T> o, Instant now) {
    for (String pool : o.pools()) {
      Block b = poolBlocked.get(pool);
      if (b != null) {
        if (b.until().isAfter(now)) {
          skipped.putIfAbsent(o.key(), new Skipped<>(o, pool, b));
          return true;
        }
        poolBlocked.remove(pool);
      }
    }
    return false;
  }

  /** @return the windows passed over for a blocked pool since the last call (each once), taken */
  List<Skipped<T>> takeSkipped() {
    List<Skipped<T>> out = new ArrayList<>(skipped.values());
    skipped.clear();
    return out;
  }

  /**
   * The store refused an admitted window of a pooled task: its reservation ends, it goes back to the
   * front of its queue (its place kept), and the pool is asked nothing until {@code until}.
   *
   * @return whether it was reserved (false: freed meanwhile, its entity restarted or stopped)
   */
  boolean requeue(String key, String pool, Instant until, io.almanac.PoolWaitReason reason) {
    Offered<T> o = reserved.remove(key);
    reservedSince.remove(key);
    block(pool, until, reason);
    if (o == null) {
      return false;
    }
    release(o.taskId());
    queued.put(key, o);
    (o.fresh() ? fresh : backlog).addFirst(o); // still held: as a queued offer again
    return true;
  }

  /**
   * The pool is asked nothing until {@code until} (a later block stays).
   *
   * @param reason why: a FULL block is lifted by a release of one of this node's holds; null when the
   *     store could not be asked (not a wait for the pool: nothing is recorded)
   */
  void block(String pool, Instant until, io.almanac.PoolWaitReason reason) {
    Block before = poolBlocked.get(pool);
    if (before == null || until.isAfter(before.until())) {
      poolBlocked.put(pool, new Block(until, reason));
    }
  }

  /** One of this node's holds of these pools ended: a pool blocked as full may have room now. */
  void unblockFull(List<String> pools) {
    for (String pool : pools) {
      Block b = poolBlocked.get(pool);
      if (b != null && b.reason() == io.almanac.PoolWaitReason.FULL) {
        poolBlocked.remove(pool);
      }
    }
  }

  /** Lifts the blocks of pools whose store could not be asked (reason null): it can be now. */
  void unblockUnknown() {
    poolBlocked.values().removeIf(b -> b.reason() == null);
  }

  /**
   * When the executor is to wake for its pools, planned at {@code now} (the instant its last
   * {@link #admit} used, so that a block that had not ended for that admission is woken for): the
   * earliest end of a block still ahead. A block that has ended by {@code now} blocks nothing any more
   * and is dropped here (the next admission asks the store for its windows): it can neither hide a
   * later block of another pool (whose end would then never be woken for) nor wake the executor again
   * and again while nothing of its pool is queued or there is no room.
   *
   * @return the earliest end of a pool's block after {@code now}, or null (nothing to wake for)
   */
  Instant nextUnblock(Instant now) {
    poolBlocked.values().removeIf(b -> !b.until().isAfter(now));
    return poolBlocked.values().stream().map(Block::until).min(Instant::compareTo).orElse(null);
  }

  /** @return whether this window is reserved or started and waiting for a slot here */
  boolean admitted(String key) {
    return reserved.containsKey(key) || readyKeys.containsKey(key);
  }

  /** @return the queued windows naming each pool */
  Map<String, Integer> waitingPerPool() {
    Map<String, Integer> out = new HashMap<>();
    for (Offered<T> o : queued.values()) {
      for (String pool : o.pools()) {
        out.merge(pool, 1, Integer::sum);
      }
    }
    return out;
  }
}

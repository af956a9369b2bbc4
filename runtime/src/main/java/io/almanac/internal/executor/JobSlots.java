package io.almanac.internal.executor;

import io.almanac.AgentJob;
import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.JobResult;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.ExecutorProtocol.CancelAttempt;
import io.almanac.internal.protocol.ExecutorProtocol.Offer;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.event.Level;

/**
 * The executor's job slots: a started attempt ({@link ExecutorProtocol.Started}) takes a free slot
 * or waits for one (never run without the lease or while the node drains) and runs on the
 * executor's own threads ({@link JobRun}); the ends of jobs (the slot, its task's count and its pool
 * holds given back at once, the result routed to its task, a late result of a cancelled job),
 * cancels, leases that passed, stuck jobs, and the offers of a window that came while an attempt of
 * it ran here. It keeps the counts of jobs started, finished and cancelled.
 *
 * <p>Not an actor: the executor's helper over its {@link RunningJobs}, called only from the actor's
 * thread; what involves admission again it asks of its {@link ExecutorHost}.
 *
 * INTERNAL API.
 */
final class JobSlots {

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final Clock clock;
  private final ExecutorSettings settings;
  private final int maxReasonLength;
  private final JobRegistry jobs;
  private final NodeMeters meters;
  private final AlertSink alerts;
  private final ThreadPoolExecutor jobThreads;
  private final JobPort port;
  /** The bounds of what an attempt leaves to be read (almanac.executor.job-log). */
  private final JobLogSettings jobLog;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running;
  private final PoolWaits pools;
  private final ResultRouting results;
  private final Draining drain;
  private final ExecutorHost host;
  /** The spans of attempts admitted here (empty when the node does not trace). */
  private final AttemptTraces traces;
  /** Offers of a window that came while an attempt of it ran here, by window: looked at once it left. */
  private final Map<String, Offer> afterRunning = new HashMap<>();
  private long started;
  private long finished;
  private long cancelled;

  JobSlots(ActorContext<ExecutorProtocol.Command> ctx, Clock clock, ExecutorSettings settings, int maxReasonLength,
      JobRegistry jobs, NodeMeters meters, AlertSink alerts, ThreadPoolExecutor jobThreads, JobPort port,
      JobLogSettings jobLog, Admission<ActorRef<TaskProtocol.Command>> admission, RunningJobs running, PoolWaits pools,
      ResultRouting results, Draining drain, ExecutorHost host, AttemptTraces traces) {
    this.traces = traces;
    this.ctx = ctx;
    this.clock = clock;
    this.settings = settings;
    this.maxReasonLength = maxReasonLength;
    this.jobs = jobs;
    this.meters = meters;
    this.alerts = alerts;
    this.jobThreads = jobThreads;
    this.port = port;
    this.jobLog = jobLog;
    this.admission = admission;
    this.running = running;
    this.pools = pools;
    this.results = results;
    this.drain = drain;
    this.host = host;
  }

  private void log(Level level, String taskId, String window, int attempt, String format, Object... args) {
    Executor.log(ctx, level, taskId, window, attempt, format, args);
  }

  /** @return the stats' counts: jobs started, finished, cancelled */
  long[] counts() {
    return new long[] {started, finished, cancelled};
  }

  /**
   * Offered again while an attempt of the window runs here: a wake-up or a recovery (ignored then),
   * or the window's next attempt, offered once its task recorded the end of this one, before the
   * answer to the report that ends it here came back: looked at again when the attempt leaves.
   *
   * @return whether the offer waits for the attempt to leave
   */
  boolean holdWhileRunning(String key, Offer m) {
    if (running.holds(key)) {
      afterRunning.put(key, m);
      return true;
    }
    return false;
  }

  /**
   * An entity started an attempt here: it runs in a free slot, or waits for one; one started under
   * an identity that does not hold the lease now, or as the node drains, is not run here.
   */
  void onStarted(ExecutorProtocol.Started m) {
    TaskProtocol.AttemptGrant grant = m.grant();
    AttemptItem item = new AttemptItem(grant.taskId(), grant.window(), m.job(), grant.kind(), m.zone());
    boolean reservedHere = admission.endReservation(item.key(), clock.instant());
    host.fenceBroken();
    if (!host.mayRun() || (grant.executor() != null && !grant.executor().equals(host.executorId()))) {
      // Started under an identity that lost its lease since (or while it has none): never run. Its
      // entity times the attempt out once that identity's lease has ended.
      if (reservedHere) {
        admission.release(item.taskId());
      }
      pools.releasePools(item.key(), item.taskId(), item.window());
      traces.notRun(item.key(), grant, io.almanac.EndCause.FENCED);
      log(Level.WARN, item.taskId(), item.window(), grant.attempt(), "task '{}' window '{}' attempt {} was started under "
          + "executor {}, which does not hold its lease now: not run", item.taskId(), item.window(), grant.attempt(),
          grant.executor());
      drain.check();
      return;
    }
    if (drain.draining()) {
      // Started in its entity as the node began to stop: handed back (PENDING again, RESUME) instead of run here
      if (reservedHere) {
        admission.release(item.taskId());
      }
      pools.releasePools(item.key(), item.taskId(), item.window());
      traces.notRun(item.key(), grant, io.almanac.EndCause.NODE_STOPPED);
      drain.handBack(item.taskId(), item.window(), grant.attempt());
      drain.check();
      return;
    }
    if (!reservedHere) {
      // Its reservation was freed (its entity restarted in between): the attempt is started in the
      // journal all the same, so it runs (or waits) like any other.
      admission.countUnreserved(item.taskId());
      if (pools.waitForHolds(item, grant)) {
        // its pool holds were given back meanwhile: it runs only once it holds them again
        host.gauges();
        return;
      }
    }
    Instant now = clock.instant();
    if (slotFree()) {
      run(item, grant, now, now);
    } else {
      admission.ready(new Admission.Ready(item, grant, now)); // also while draining: the attempt is started in its entity
      meters.startedWaiting(admission.readyCount());
    }
    host.gauges();
  }

  /** Whether a started attempt may take a slot now (a slot is free, results pending stay in their bound). */
  boolean slotFree() {
    return admission.slotFree(running.size(), pendingResults());
  }

  /**
   * Results of jobs that ended in their slot not acknowledged by their task yet: reported by the
   * job's thread, or by the executor (its retries, those held back while the lease was suspect).
   */
  int pendingResults() {
    return running.pendingResults() + results.pending();
  }

  /** Runs a started attempt in a free slot; {@code since}: when its start arrived here (null: not known). */
  void run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now, Instant since) {
    if (Admission.leaseEnded(grant.leaseUntil(), now)) {
      traces.notRun(item.key(), grant, io.almanac.EndCause.TIMED_OUT);
      dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    meters.slotTaken(since == null ? 0 : Math.max(0, Duration.between(since, now).toNanos()));
    admission.slotTaken(now);
    RunningAttempt r = new RunningAttempt(item, grant.attempt(), now, grant.leaseUntil());
    r.pools = pools.poolsOf(item.key()); // null for a task without pools
    r.trace = traces.run(item, grant, now); // null when the node does not trace
    running.add(r);
    started++;
    AgentJob job = jobs.find(item.job(), item.taskId());
    // per attempt: DEBUG (20 per-second tasks would log 40 lines a second at INFO); failures stay at INFO
    log(Level.DEBUG, item.taskId(), item.window(), grant.attempt(), "task '{}' window '{}' attempt {} ({}) started, "
        + "lease until {}", item.taskId(), item.window(), grant.attempt(), grant.kind(), grant.leaseUntil());
    JobContextImpl jobContext = new JobContextImpl(port, r, grant, item.zone(), clock, jobLog);
    r.context = jobContext;
    jobThreads.execute(new JobRun(r, job, jobContext, port, clock, maxReasonLength));
  }

  /**
   * A started attempt whose lease ended before it got a slot: not run. Its entity's lease timer
   * times it out; the executor only lets it go.
   */
  void dropExpired(AttemptItem item, int attempt, Instant leaseUntil) {
    admission.release(item.taskId());
    pools.releasePools(item.key(), item.taskId(), item.window());
    log(Level.WARN, item.taskId(), item.window(), attempt, "task '{}' window '{}' attempt {} waited for a job slot past "
        + "its lease ({}): not run", item.taskId(), item.window(), attempt, leaseUntil);
    drain.check();
  }

  /**
   * A job ended in its slot and its thread reports its result: the slot (and its task's count, and
   * its pool holds) are given back now, not when the task has recorded the result. The attempt stays
   * tracked until the report's answer (see {@link #reportAnswered}).
   */
  void onJobReturned(Executor.JobReturned m) {
    RunningAttempt r = running.jobReturned(m.key(), m.attempt());
    if (r != null) {
      ended(r, m.result(), m.took());
      host.admit();
    } // else cancelled as it ended (its slot freed then): the report's answer finds it abandoned
  }

  void onJobDone(Executor.JobDone m) {
    host.fenceBroken(); // a job that ended after its node lost the lease is not reported
    RunningAttempt r = running.leave(m.key(), m.attempt());
    if (r != null) {
      ended(r, m.result(), m.took());
      results.deliver(m);
      reoffer(m.key());
      host.admit();
      return;
    }
    RunningAttempt gone = running.returned(m.key(), m.attempt());
    if (gone == null) {
      results.deliver(m); // not known here (cannot happen): its entity decides
      return;
    }
    pools.threadReturned(gone);
    if (gone.stuck) {
      host.gauges();
    }
    long after = Duration.between(gone.abandonedAt, clock.instant()).toMillis();
    if (gone.fenced) {
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} ended {} ms after its node "
          + "lost its lease ({}): not reported", m.taskId(), m.window(), m.attempt(), after,
          m.result().succeeded() ? "succeeded" : m.result().reason());
    } else {
      log(Level.INFO, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} returned {} ms after it was "
          + "cancelled{}: reported as a late result", m.taskId(), m.window(), m.attempt(), after,
          gone.stuck ? " (it was stuck)" : "");
      pools.costs().addPoolUsage(gone, m.result()); // a late result's cost counts too
      results.deliver(m);
    }
    drain.check();
  }

  /**
   * The answer to a report of a job's own thread: the attempt leaves its slot if its {@link
   * Executor.JobReturned} was not seen, and is no longer tracked.
   */
  void reportAnswered(Executor.ReportDone m) {
    RunningAttempt acked = running.acknowledged(m.key(), m.attempt());
    RunningAttempt r = acked != null ? null : running.leave(m.key(), m.attempt()); // its JobReturned not seen
    if (acked != null || r != null) {
      if (r != null) {
        ended(r, m.result(), m.took());
      }
      reoffer(m.key());
      host.admit();
    } else {
      RunningAttempt gone = running.returned(m.key(), m.attempt()); // given up while its report was on its way
      if (gone != null) {
        pools.threadReturned(gone);
      }
      if (gone != null && gone.stuck) {
        host.gauges();
      }
    }
  }

  /** An attempt of this window left its slot: an offer of the window that came meanwhile is looked at now. */
  private void reoffer(String key) {
    Offer o = afterRunning.remove(key);
    if (o != null) {
      host.offer(o);
    }
  }

  /**
   * A job that held its slot ended: its slot and its task's count released, its pool holds given back
   * (a pool's max-concurrent counts jobs that run), counted, its slot hold remembered (the prefetch's
   * pace), logged. Its result may still be on its way to its task.
   */
  private void ended(RunningAttempt r, JobResult result, Duration took) {
    admission.release(r.item.taskId());
    pools.jobEnded(r, result);
    finished++;
    Duration held = Duration.between(r.startedAt, clock.instant());
    meters.slotReleased(held.toNanos(), took == null ? 0 : took.toNanos());
    admission.jobEnded(took == null ? held : took, held); // the job and the message of its end, not its result's write
    if (result.succeeded()) {
      log(Level.DEBUG, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} succeeded in {} ms",
          r.item.taskId(), r.item.window(), r.attempt, took.toMillis());
    } else {
      log(Level.INFO, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} failed in {} ms: {}",
          r.item.taskId(), r.item.window(), r.attempt, took.toMillis(), result.reason());
    }
  }

  /**
   * A cancelled job gives up its slot at once, whatever its thread does (see RunningJobs); its pool
   * holds stay until its thread returns (the job may still use the pool: see {@link PoolWaits#threadReturned}).
   * Counted as cancelled.
   */
  void abandon(RunningAttempt r, Instant now) {
    cancelled++;
    running.abandon(r, now);
    admission.release(r.item.taskId());
  }

  /**
   * The node lost its lease: every job in a slot is cancelled (nothing is reported for them), the
   * offers that waited for an attempt to leave are looked at, for the next identity, and an
   * abandoned job's result that comes now is not reported.
   *
   * @return how many jobs were cancelled
   */
  int cancelAllFenced() {
    int jobsCancelled = running.size();
    Instant now = clock.instant();
    for (RunningAttempt r : running.inSlotNow()) {
      r.fenced = true;
      r.cancel();
      abandoned(r, io.almanac.EndCause.FENCED, null);
      abandon(r, now);
    }
    new ArrayList<>(afterRunning.keySet()).forEach(this::reoffer); // queued for the next identity
    return jobsCancelled;
  }

  /** After the admissions were dropped for a lost lease: a result that comes now would be reported without it. */
  void fenceAbandoned() {
    for (RunningAttempt r : running.abandoned()) {
      r.fenced = true;
    }
  }

  void onCancel(CancelAttempt m) {
    String key = m.taskId() + "|" + m.window();
    if (pools.cancelWaitingStart(key, m.taskId(), m.window(), m.attempt())) {
      // waited for its pools: never ran (holds taken meanwhile go back when answered)
      cancelled++;
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled before it ran: {}",
          m.taskId(), m.window(), m.attempt(), m.reason());
      drain.check();
      host.admit();
      return;
    }
    if (admission.cancelReady(m.taskId(), m.window(), m.attempt())) {
      cancelled++;
      pools.releasePools(key, m.taskId(), m.window());
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled before it ran: {}",
          m.taskId(), m.window(), m.attempt(), m.reason());
      drain.check();
      host.admit();
      return;
    }
    RunningAttempt r = running.get(key);
    if (r != null && r.attempt == m.attempt() && r.cancel()) {
      abandoned(r, null, m.reason());
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled: {}", m.taskId(),
          m.window(), m.attempt(), m.reason());
      abandon(r, clock.instant()); // its entity recorded the cancel: the slot is free whatever the thread does
      reoffer(key);
      drain.check();
      host.admit();
    }
  }

  /** The span of a job given up (its end cause, when known here), ended now whatever its thread does. */
  static void abandoned(RunningAttempt r, io.almanac.EndCause cause, String reason) {
    io.almanac.internal.trace.AttemptTrace t = r.trace;
    if (t != null) {
      t.abandoned(cause, reason);
    }
  }

  void onExtended(Executor.Extended m) {
    RunningAttempt r = running.get(m.key());
    if (r != null && r.attempt == m.attempt() && m.deadline().isAfter(r.deadline)) {
      r.deadline = m.deadline();
    }
  }

  /**
   * At each check: started attempts whose lease ended while they waited are let go, jobs past their
   * lease are cancelled (their slot freed), and stuck jobs are alerted.
   */
  void check(Instant now) {
    for (Admission.Ready w : admission.takeExpired(now)) {
      dropExpired(w.item(), w.grant().attempt(), w.grant().leaseUntil());
    }
    for (RunningAttempt r : running.inSlotNow()) {
      if (LeaseExpiry.over(r.deadline, now) && r.cancel()) {
        abandoned(r, io.almanac.EndCause.TIMED_OUT, null);
        log(Level.WARN, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} passed its lease "
            + "({}): cancelled, its slot freed", r.item.taskId(), r.item.window(), r.attempt, r.deadline);
        abandon(r, now);
        reoffer(r.item.key());
      }
    }
    watchAbandoned(now);
  }

  /** A cancelled job whose thread has not returned within stuck-after is stuck: alerted once, counted. */
  private void watchAbandoned(Instant now) {
    List<RunningAttempt> stuck = running.newlyStuck(now, settings.stuckAfter());
    int count = running.stuck() - stuck.size();
    for (RunningAttempt r : stuck) {
      count++;
      String message = RunningJobs.stuckMessage(r, count, settings.maxStuckJobs());
      log(Level.ERROR, r.item.taskId(), r.item.window(), r.attempt, message);
      try {
        alerts.alert(new Alert(Alert.Kind.JOB_STUCK, r.item.taskId(), r.item.window(), message, now));
      } catch (RuntimeException e) {
        ctx.getLog().error("alert sink failed on {}: {}", Alert.Kind.JOB_STUCK, e.toString());
      }
    }
    host.gauges();
  }
}

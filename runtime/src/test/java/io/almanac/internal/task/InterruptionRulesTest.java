package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.InterruptCause;
import io.almanac.InvalidSpecException;
import io.almanac.LeasePolicy;
import io.almanac.OnInterruption;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptInterrupted;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Interruption is not failure: the pure rules of {@link AttemptLifecycle#ending}, {@link
 * AttemptLifecycle#afterInterruption} and the executor's report, folded through {@link Evolve}.
 */
class InterruptionRulesTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1))
      .factor(1.5).minSamples(20).build();

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static TaskSpec.Builder spec() {
    return TaskSpec.builder("t").cron("* * * * * ? UTC").window("per-firing").lease(HOUR);
  }

  private static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "decisions emit only allowed transitions: " + violations);
    return s;
  }

  private static final WindowKey W = WindowKey.of(T0.toString());

  /** A task with one window RUNNING attempt 1 on executor {@code node-1#old}. */
  private State running(TaskSpec spec) {
    State s = fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)));
    Fire f = new Fire(W, T0, T0.plusSeconds(1), T0, FireKind.ON_TIME, null);
    s = fold(s, fires.fire(s, f, T0).events());
    Decided<TaskProtocol.AttemptGrant> d = attempts.start(s, W, "node-1#old", T0);
    return fold(s, d.events());
  }

  private WindowState window(State s) {
    return s.windows().get(W.value());
  }

  @Test
  @DisplayName("an attempt whose executor is gone is INTERRUPTED whether or not its lease is also over; one whose lease "
      + "is over while its executor runs is TIMED_OUT (the job hung); an ending executor's stays RUNNING")
  void endingRules() {
    WindowState w = window(running(spec().build()));
    Instant within = T0.plusSeconds(10);
    Instant past = T0.plus(Duration.ofHours(2));
    assertEquals(InstanceStatus.INTERRUPTED, AttemptLifecycle.ending(w, ExecutorLiveness.State.ENDED, within));
    assertEquals(InstanceStatus.INTERRUPTED, AttemptLifecycle.ending(w, ExecutorLiveness.State.ENDED, past));
    assertEquals(InstanceStatus.INTERRUPTED, AttemptLifecycle.ending(w, ExecutorLiveness.State.FENCED, past));
    assertEquals(InstanceStatus.TIMED_OUT, AttemptLifecycle.ending(w, ExecutorLiveness.State.RUNS, past));
    assertEquals(InstanceStatus.TIMED_OUT, AttemptLifecycle.ending(w, null, past), "no executor recorded (older journals)");
    assertEquals(InstanceStatus.RUNNING, AttemptLifecycle.ending(w, ExecutorLiveness.State.RUNS, within));
    assertEquals(InstanceStatus.RUNNING, AttemptLifecycle.ending(w, ExecutorLiveness.State.ENDING, past));
    assertEquals(InterruptCause.NODE_LOST, ExecutorLiveness.State.ENDED.interruptCause());
    assertEquals(InterruptCause.FENCED, ExecutorLiveness.State.FENCED.interruptCause());
  }

  @Test
  @DisplayName("an interrupted attempt of a task without retries spends no retry: the window is PENDING again at once, "
      + "run kind RESUME, in the same write, never FINAL_FAILED")
  void interruptedResumesWithoutSpendingARetry() {
    State s = running(spec().build()); // max retries 0: a failure would be FINAL_FAILED
    Instant past = T0.plus(Duration.ofHours(2)); // its lease is over too: still an interruption
    List<Event> settled = attempts.settle(s, id -> ExecutorLiveness.State.ENDED, past);
    assertEquals(2, settled.size(), settled::toString);
    AttemptInterrupted i = assertInstanceOf(AttemptInterrupted.class, settled.get(0));
    assertEquals(1, i.attempt());
    assertEquals(InterruptCause.NODE_LOST, i.cause());
    assertEquals(RunKind.RESUME, assertInstanceOf(InstanceScheduled.class, settled.get(1)).kind());
    WindowState after = window(fold(s, settled));
    assertEquals(InstanceStatus.PENDING, after.status());
    assertEquals(RunKind.RESUME, after.runKind());
    assertEquals(0, after.retries(), "no retry spent");
    assertEquals(1, after.interruptions());
    assertTrue(after.reason().startsWith("interrupted (NODE_LOST): executor node-1#old is gone"), after.reason());
  }

  @Test
  @DisplayName("a resume keeps the retries already spent: RESUME is not a fresh run")
  void resumeKeepsRetriesSpent() {
    State s = running(spec().retry(RetryPolicy.immediate().withMaxRetries(3)).build());
    s = fold(s, attempts.finish(s, new TaskProtocol.FinishAttempt(W, 1, io.almanac.JobResult.failure("boom"),
        Duration.ofSeconds(1), null), T0.plusSeconds(1)).events()); // the pure decision never replies itself
    assertEquals(1, window(s).retries());
    s = fold(s, attempts.start(s, W, "node-1#old", T0.plusSeconds(2)).events());
    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(3)));
    assertEquals(InstanceStatus.PENDING, window(s).status());
    assertEquals(1, window(s).retries(), "the retry count stays what it was");
  }

  @Test
  @DisplayName("on-interruption FAIL: the window goes FINAL_FAILED with the cause in its reason; its body never runs again by itself")
  void failPolicyGoesFinalFailed() {
    State s = running(spec().onInterruption(OnInterruption.FAIL).retry(RetryPolicy.immediate()).build());
    List<Event> settled = attempts.settle(s, id -> ExecutorLiveness.State.FENCED, T0.plusSeconds(5));
    assertInstanceOf(AttemptInterrupted.class, settled.get(0));
    InstanceFinalFailed ff = assertInstanceOf(InstanceFinalFailed.class, settled.get(1));
    assertTrue(ff.decision().contains("on-interruption is FAIL"), ff.decision());
    assertTrue(ff.lastCause().startsWith("interrupted (FENCED)"), ff.lastCause());
    assertEquals(2, settled.size(), "no retry, no resume");
    assertEquals(InstanceStatus.FINAL_FAILED, window(fold(s, settled)).status());
  }

  @Test
  @DisplayName("safety bound: the (max-resumes + 1)th interruption in a row goes to the retry policy, with a reason saying so")
  void tooManyInterruptionsInARowGoToTheRetryPolicy() {
    int max = SETTINGS.maxResumes();
    State s = running(spec().build()); // no retries: the retry policy says FINAL_FAILED
    for (int i = 1; i <= max; i++) {
      s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(i)));
      assertEquals(InstanceStatus.PENDING, window(s).status(), "resume " + i);
      assertEquals(i, window(s).interruptions());
      s = fold(s, attempts.start(s, W, "node-1#old", T0.plusSeconds(i)).events());
    }
    List<Event> last = attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(max + 1));
    InstanceFinalFailed ff = assertInstanceOf(InstanceFinalFailed.class, last.get(1));
    assertTrue(ff.reason().contains("interrupted " + (max + 1) + " times in a row, more than almanac.task.max-resumes ("
        + max + ")"), ff.reason());

    State retried = running(spec().retry(RetryPolicy.immediate()).build());
    List<Event> once = AttemptLifecycle.afterInterruption(OnInterruption.RESUME, 0, 1,
        new AttemptInterrupted(W.value(), 1, InterruptCause.NODE_STOPPED, "grace ended", T0), why -> attempts
            .afterFailure(retried, window(retried), why, T0), window(retried), T0);
    assertInstanceOf(RetryScheduled.class, once.get(0), "max-resumes 0: every interruption goes to the retry policy");
  }

  @Test
  @DisplayName("another outcome starts the count of interruptions in a row again")
  void otherOutcomesResetTheCount() {
    State s = running(spec().retry(RetryPolicy.immediate().withMaxRetries(3)).build());
    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(1)));
    assertEquals(1, window(s).interruptions());
    s = fold(s, attempts.start(s, W, "node-1#new", T0.plusSeconds(2)).events());
    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.RUNS, T0.plus(Duration.ofHours(2)))); // timed out: retried
    assertEquals(0, window(s).interruptions());
  }

  @Test
  @DisplayName("the executor's InterruptAttempt is fenced by the attempt number: a stale one changes nothing")
  void executorReportIsFenced() {
    State s = running(spec().build());
    Decided<org.apache.pekko.Done> stale = attempts.interrupted(s, new TaskProtocol.InterruptAttempt(W, 2,
        InterruptCause.NODE_STOPPED, "x", null), T0.plusSeconds(1));
    assertTrue(stale.events().isEmpty() && !stale.refused(), "acknowledged, nothing recorded");
    Decided<org.apache.pekko.Done> d = attempts.interrupted(s, new TaskProtocol.InterruptAttempt(W, 1,
        InterruptCause.NODE_STOPPED, "shutdown grace PT8S ended", null), T0.plusSeconds(1));
    assertEquals(InterruptCause.NODE_STOPPED, assertInstanceOf(AttemptInterrupted.class, d.events().get(0)).cause());
    WindowState after = window(fold(s, d.events()));
    assertEquals(InstanceStatus.PENDING, after.status());
    assertEquals(RunKind.RESUME, after.runKind());
  }

  @Test
  @DisplayName("what the job logged until its node stopped it is written with the interruption, before the resume; "
      + "an interruption without lines writes no log")
  void interruptionKeepsTheJobsLog() {
    State s = running(spec().build());
    io.almanac.journal.AttemptLog log = new io.almanac.journal.AttemptLog(List.of(new io.almanac.journal.LogLine(
        T0, io.almanac.JobLog.Level.INFO, "page 12 of 40 read")), 0, null);
    Decided<org.apache.pekko.Done> d = attempts.interrupted(s, new TaskProtocol.InterruptAttempt(W, 1,
        InterruptCause.NODE_STOPPED, "shutdown grace PT8S ended", log, null), T0.plusSeconds(1));
    assertInstanceOf(AttemptInterrupted.class, d.events().get(0));
    TaskJournal.AttemptLogged logged = assertInstanceOf(TaskJournal.AttemptLogged.class, d.events().get(1));
    assertEquals(1, logged.attempt());
    assertEquals("page 12 of 40 read", logged.lines().get(0).text());
    assertEquals(RunKind.RESUME, window(fold(s, d.events())).runKind(), "resumed after it, in the same write");
    Decided<org.apache.pekko.Done> none = attempts.interrupted(s, new TaskProtocol.InterruptAttempt(W, 1,
        InterruptCause.NODE_STOPPED, "shutdown grace PT8S ended", null), T0.plusSeconds(1));
    assertTrue(none.events().stream().noneMatch(e -> e instanceof TaskJournal.AttemptLogged));
  }

  @Test
  @DisplayName("on-interruption: null is refused naming the field; a spec without it reads RESUME and is stored in the old shape")
  void onInterruptionSpec() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> spec().onInterruption(null));
    assertTrue(e.getMessage().contains("onInterruption"), e.getMessage());
    assertEquals(OnInterruption.RESUME, spec().build().onInterruption());
    assertEquals(null, SpecRecord.of(spec().onInterruption(OnInterruption.RESUME).build()).onInterruption());
    SpecRecord fail = SpecRecord.of(spec().onInterruption(OnInterruption.FAIL).build());
    assertEquals(OnInterruption.FAIL, fail.interruption());
    assertEquals(OnInterruption.FAIL, fail.toSpec().onInterruption());
    assertEquals(spec().onInterruption(OnInterruption.FAIL).build(), fail.toSpec());
  }
}

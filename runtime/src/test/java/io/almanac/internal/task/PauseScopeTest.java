package io.almanac.internal.task;

import static io.almanac.internal.task.RetryAndCatchUpTest.defined;
import static io.almanac.internal.task.RetryAndCatchUpTest.fold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CronSchedule;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.OverlapPolicy;
import io.almanac.RefusedException;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.WindowState;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.Done;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a pause covers ({@link PauseScope}) and the bulk cancel ({@link OperatorActions#cancelAll}),
 * as pure decisions: no actor, the time an argument.
 */
class PauseScopeTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private final OperatorActions operator = new OperatorActions("t", SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  /** Task "t" daily at 08:00 Asia/Shanghai (due 00:00Z), ALLOW overlap, with the backfill of 2026-11-21..23 PENDING. */
  private State backfilled(RetryPolicy retry) {
    State s = defined(RetryAndCatchUpTest.spec().overlap(OverlapPolicy.ALLOW).retry(retry).build());
    TaskSchedule schedule = new TaskSchedule(CronSchedule.parse("0 0 8 * * ?", "Asia/Shanghai"), s.spec().dst().toPolicy(),
        WindowSpec.DAILY);
    return fold(s, operator.backfill(s, schedule, Instant.parse("2026-11-20T00:00:00Z"),
        Instant.parse("2026-11-23T00:00:00Z"), NOW).events());
  }

  private State paused(State s) {
    return fold(s, operator.pause(s, NOW).events());
  }

  private static List<String> keys(List<WindowState> ws) {
    return ws.stream().map(WindowState::key).toList();
  }

  @Test
  @DisplayName("R31 a paused task offers none of its PENDING windows, declines an admission offered before, and "
      + "asks for no wake-up for them; resumed, it offers them all again")
  void pauseHoldsPendingWindows() {
    State s = backfilled(RetryPolicy.none());
    assertEquals(List.of("2026-11-21", "2026-11-22", "2026-11-23"), keys(Reactions.offerable(s)));
    assertTrue(Reactions.nextWake(s, Duration.ofMinutes(1)) != null);
    State p = paused(s);
    assertTrue(PauseScope.holdsStarts(p));
    assertEquals(List.of(), Reactions.offerable(p), "nothing is offered while paused");
    assertNull(Reactions.nextWake(p, Duration.ofMinutes(1)), "no re-offer wake-up while paused");
    Decided<TaskProtocol.AttemptGrant> start = attempts.start(p, WindowKey.of("2026-11-21"), "node-1", NOW);
    assertTrue(start.refused(), "an admission offered before the pause is declined");
    assertEquals(RefusedException.Reason.CONFLICT, ((RefusedException) start.refusal()).reason());
    assertTrue(start.refusal().getMessage().contains("is paused"), start.refusal().getMessage());
    assertEquals(InstanceStatus.PENDING, p.windows().get("2026-11-21").status(), "it keeps its status");

    Decided<Done> resume = operator.resume(p, attempts.retriesDue(p, NOW), NOW);
    assertEquals(1, resume.events().size());
    assertTrue(PauseScope.resumes(resume.events()), "a resume offers every PENDING window again");
    State r = fold(p, resume.events());
    assertEquals(3, Reactions.offerable(r).size());
    assertTrue(!attempts.start(r, WindowKey.of("2026-11-21"), "node-1", NOW).refused());
  }

  @Test
  @DisplayName("R31 a retry that falls due while the task is paused waits RETRY_WAIT; the resume's write makes it PENDING")
  void pauseHoldsDueRetries() {
    State s = backfilled(RetryPolicy.delayed(Duration.ofMinutes(5)));
    Decided<TaskProtocol.AttemptGrant> started = attempts.start(s, WindowKey.of("2026-11-21"), "node-1", NOW);
    s = fold(s, started.events());
    s = paused(s); // a running attempt is not covered: its result is recorded
    Decided<Done> failed = attempts.finish(s, new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-21"), 1,
        JobResult.failure("503"), Duration.ofSeconds(1), null), NOW);
    assertTrue(!failed.refused());
    s = fold(s, failed.events());
    assertEquals(InstanceStatus.RETRY_WAIT, s.windows().get("2026-11-21").status());
    Instant later = NOW.plus(Duration.ofHours(1));
    assertEquals(List.of(), attempts.dueRetries(s, later), "not due while paused");
    assertNull(Reactions.nextWake(s, Duration.ofMinutes(1)));
    List<Event> resume = operator.resume(s, attempts.retriesDue(s, later), later).events();
    assertEquals(2, resume.size());
    assertTrue(resume.get(0) instanceof TaskResumed);
    State r = fold(s, resume);
    assertEquals(InstanceStatus.PENDING, r.windows().get("2026-11-21").status());
    assertEquals(RunKind.RETRY, r.windows().get("2026-11-21").runKind());
  }

  @Test
  @DisplayName("R31 an unpaused task is not held: pause and resume change nothing else, a resume of a running task writes nothing")
  void unpausedIsNotHeld() {
    State s = backfilled(RetryPolicy.none());
    assertTrue(!PauseScope.holdsStarts(s));
    assertTrue(operator.resume(s, List.of(), NOW).events().isEmpty());
    assertTrue(paused(s).windows().values().stream().allMatch(w -> w.status() == InstanceStatus.PENDING));
    assertTrue(operator.pause(s, NOW).events().get(0) instanceof TaskPaused);
  }

  @Test
  @DisplayName("R31 a bulk cancel cancels the not-started windows in (from, to] of a kind in one decision; a running one stays")
  void cancelAllByRangeAndKind() {
    State s = backfilled(RetryPolicy.none());
    s = fold(s, attempts.start(s, WindowKey.of("2026-11-21"), "node-1", NOW).events());
    Decided<TaskProtocol.CancelReport> all = operator.cancelAll(s, null, null, RunKind.BACKFILL, "stop it", NOW);
    assertEquals(List.of("2026-11-22", "2026-11-23"), all.reply().apply(s).windows().stream().map(WindowKey::value).toList());
    assertEquals(2, all.events().size());
    assertTrue(all.events().stream().allMatch(e -> e instanceof InstanceCancelled c && c.reason().equals("stop it")));
    State after = fold(s, all.events());
    assertEquals(InstanceStatus.RUNNING, after.windows().get("2026-11-21").status(), "running attempts are not cancelled");
    assertEquals(InstanceStatus.CANCELLED, after.windows().get("2026-11-23").status());

    // the range is (from, to] by due time: 2026-11-22 is due 2026-11-22T00:00Z
    Decided<TaskProtocol.CancelReport> ranged = operator.cancelAll(s, Instant.parse("2026-11-21T00:00:00Z"),
        Instant.parse("2026-11-22T00:00:00Z"), null, null, NOW);
    assertEquals(List.of(WindowKey.of("2026-11-22")), ranged.reply().apply(s).windows());
    assertEquals("cancelled by an operator", ((InstanceCancelled) ranged.events().get(0)).reason());
    assertEquals(List.of(), operator.cancelAll(s, null, null, RunKind.MANUAL, null, NOW).reply().apply(s).windows());
    Decided<TaskProtocol.CancelReport> dry = operator.cancelAll(s, null, null, null, null, NOW).dryRun(true);
    assertTrue(dry.events().isEmpty(), "a dry run writes nothing");
    assertEquals(2, dry.reply().apply(s).windows().size());
  }

  @Test
  @DisplayName("R31 a bulk cancel with from not before to, or a reason too long, is refused naming the field")
  void cancelAllRefusals() {
    State s = backfilled(RetryPolicy.none());
    Decided<TaskProtocol.CancelReport> backwards = operator.cancelAll(s, Instant.parse("2026-11-23T00:00:00Z"),
        Instant.parse("2026-11-21T00:00:00Z"), null, null, NOW);
    assertTrue(backwards.refused());
    assertEquals("from", ((RefusedException) backwards.refusal()).field());
    Decided<TaskProtocol.CancelReport> longReason = operator.cancelAll(s, null, null, null,
        "x".repeat(SETTINGS.maxReasonLength() + 1), NOW);
    assertEquals("reason", ((RefusedException) longReason.refusal()).field());
  }
}

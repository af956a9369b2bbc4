package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.AttemptGrant;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The task entity's window state machine, driven through the EventSourcedBehaviorTestKit (which
 * also checks that every command, event and state serializes). Time comes from a SettableClock.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskEntityTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config()
      .withFallback(ConfigFactory.parseString("almanac.task { hot-windows = 20, max-backfill-windows = 10 }"))
      .withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z"); // 08:00 Asia/Shanghai

  private final SettableClock clock = new SettableClock(T0);

  private String newId() {
    return "task-" + IDS.incrementAndGet();
  }

  /** A lease that outlasts two days, so a daily window still holds it when the next two fire. */
  private static final LeasePolicy RUNS_A_DAY = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofDays(3)).factor(1.5).minSamples(20).build();

  private TaskSpec.Builder daily(String id) {
    return TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai");
  }

  private EventSourcedBehaviorTestKit<Command, Event, State> kit(TaskSpec spec) {
    clock.set(T0);
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(spec.id(), clock, TaskSettings.from(CONFIG)));
    CommandResultWithReply<Command, Event, State, StatusReply<Done>> r = kit.runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    assertTrue(r.reply().isSuccess(), () -> "define failed: " + r.reply());
    return kit;
  }

  /** The daily window of a date in Asia/Shanghai, due at 08:00 local = 00:00 UTC. */
  private static TaskProtocol.Fire fireDaily(String date, FireKind kind, org.apache.pekko.actor.typed.ActorRef<StatusReply<FireOutcome>> ref) {
    Instant start = Instant.parse(date + "T00:00:00Z").minus(Duration.ofHours(8));
    return new TaskProtocol.Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(8)), kind, ref);
  }

  private static FireOutcome fire(EventSourcedBehaviorTestKit<Command, Event, State> kit, String date) {
    return fire(kit, date, FireKind.ON_TIME);
  }

  private static FireOutcome fire(EventSourcedBehaviorTestKit<Command, Event, State> kit, String date, FireKind kind) {
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> r = kit.runCommand(ref -> fireDaily(date, kind, ref));
    assertTrue(r.reply().isSuccess(), () -> "fire failed: " + r.reply());
    return r.reply().getValue();
  }

  private static AttemptGrant start(EventSourcedBehaviorTestKit<Command, Event, State> kit, String window) {
    ExecutorProtocol.AdmissionAnswer reply = admit(kit, window, null).reply();
    assertInstanceOf(ExecutorProtocol.Started.class, reply, () -> "start failed: " + reply);
    return ((ExecutorProtocol.Started) reply).grant();
  }

  /** The executor admits the window: the entity answers Started or Declined. */
  private static CommandResultWithReply<Command, Event, State, ExecutorProtocol.AdmissionAnswer> admit(
      EventSourcedBehaviorTestKit<Command, Event, State> kit, String window, String executorId) {
    return kit.runCommand(ref -> new TaskProtocol.Admitted(WindowKey.of(window), executorId, ref));
  }

  private static ExecutorProtocol.Declined declined(CommandResultWithReply<Command, Event, State, ExecutorProtocol.AdmissionAnswer> r) {
    assertTrue(r.hasNoEvents(), "a declined admission writes nothing");
    return assertInstanceOf(ExecutorProtocol.Declined.class, r.reply());
  }

  private static CommandResultWithReply<Command, Event, State, StatusReply<Done>> finish(
      EventSourcedBehaviorTestKit<Command, Event, State> kit, String window, int attempt, JobResult result, Duration took) {
    return kit.runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(window), attempt, result, took, ref));
  }

  private static WindowState window(EventSourcedBehaviorTestKit<Command, Event, State> kit, String key) {
    WindowState w = kit.getState().windows().get(key);
    assertNotNull(w, "window " + key + " not in state");
    return w;
  }

  /** The one event of the given type among a command's events. */
  private static <E extends Event> E ev(EventSourcedBehaviorTestKit.CommandResult<Command, Event, State> r, Class<E> type) {
    List<E> found = r.events().stream().filter(type::isInstance).map(type::cast).toList();
    assertEquals(1, found.size(), () -> "expected one " + type.getSimpleName() + " in " + r.events());
    return found.get(0);
  }

  @Test
  @DisplayName("R1/R5: a fired window becomes one PENDING instance; a repeated fire is acknowledged and changes nothing")
  void firesOnceAndIgnoresDuplicates() {
    var kit = kit(daily(newId()).build());
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> first = kit.runCommand(ref -> fireDaily("2026-11-29", FireKind.ON_TIME, ref));
    assertEquals(Decision.SCHEDULED, first.reply().getValue().decision());
    TaskJournal.InstanceScheduled e = ev(first, TaskJournal.InstanceScheduled.class);
    assertEquals("2026-11-29", e.window());
    assertEquals(RunKind.FIRST, e.kind());
    assertEquals(Instant.parse("2026-11-29T00:00:00Z"), e.dueAt());

    var again = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-29", FireKind.ON_TIME, ref));
    assertEquals(Decision.DUPLICATE, again.reply().getValue().decision());
    assertTrue(again.hasNoEvents());
    assertEquals(InstanceStatus.PENDING, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R5: 1,000 fires for one window, shuffled among fires of other windows, make exactly one instance")
  void thousandDuplicateFiresMakeOneInstance() {
    var kit = kit(daily(newId()).overlap(OverlapPolicy.ALLOW).catchUp(CatchUpPolicy.none().withHorizon(Duration.ofDays(30))).build());
    List<String> fires = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      fires.add("2026-11-29");
    }
    for (int d = 1; d <= 9; d++) {
      for (int i = 0; i < 20; i++) {
        fires.add("2026-11-2" + (d - 1 < 9 ? String.valueOf(d - 1) : "9")); // 2026-11-20 .. 2026-11-28
      }
    }
    Collections.shuffle(fires, new Random(42));
    clock.set(Instant.parse("2026-11-29T00:00:30Z")); // every window is due, all within the horizon
    int scheduled = 0;
    int duplicates = 0;
    for (String date : fires) {
      FireOutcome o = fire(kit, date);
      if (o.decision() == Decision.SCHEDULED) {
        scheduled++;
      } else {
        assertEquals(Decision.DUPLICATE, o.decision());
        duplicates++;
      }
    }
    assertEquals(10, scheduled, "one instance per distinct window");
    assertEquals(fires.size() - 10, duplicates);
    assertEquals(10, kit.getState().windows().size());
    long eventsForTarget = kit.persistenceTestKit()
        .persistedInStorage(TaskEntity.persistenceId(kit.getState().spec().id()).id()).stream()
        .filter(e -> e instanceof TaskJournal.WindowEvent we && we.window().equals("2026-11-29"))
        .count();
    assertEquals(1, eventsForTarget, "exactly one journal event for the window fired 1,000 times");
  }

  @Test
  @DisplayName("R21: PENDING -> RUNNING is a compare-and-set: a second start of the same attempt is refused")
  void secondStartIsRefused() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    AttemptGrant grant = start(kit, "2026-11-29");
    assertEquals(1, grant.attempt());
    assertEquals(RunKind.FIRST, grant.kind());
    assertEquals(LeasePolicy.DEFAULT.ceiling(), Duration.between(T0, grant.leaseUntil()), "ceiling until enough samples (R23)");
    ExecutorProtocol.Declined second = declined(admit(kit, "2026-11-29", null));
    assertTrue(second.detail().contains("RUNNING, not PENDING"), second.detail());
    assertEquals(io.almanac.RefusedException.Reason.CONFLICT, second.reason());
  }

  @Test
  @DisplayName("R20/R22: a success records summary, artifact, duration; the window never succeeds twice")
  void successIsRecordedOnce() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.advance(Duration.ofMinutes(3));
    var done = finish(kit, "2026-11-29", 1, JobResult.success("12 items digested", "s3://bucket/digest/2026-11-29.md"), Duration.ofMinutes(3));
    assertTrue(done.reply().isSuccess());
    TaskJournal.AttemptSucceeded ok = ev(done, TaskJournal.AttemptSucceeded.class);
    assertEquals(Duration.ofMinutes(3), ok.duration());
    WindowState w = window(kit, "2026-11-29");
    assertEquals(InstanceStatus.SUCCEEDED, w.status());
    assertEquals("12 items digested", w.summary());
    assertEquals("s3://bucket/digest/2026-11-29.md", w.artifactUri());
    assertEquals(1, kit.getState().samples().count());

    // the executor repeats its report until acknowledged: no second event
    assertTrue(finish(kit, "2026-11-29", 1, JobResult.success("12 items digested"), Duration.ofMinutes(3)).hasNoEvents());
    // a later fire, a run-now or a backfill of the window cannot run it again
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-11-29").decision());
    var backfill = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2026-11-28T12:00:00Z"), Instant.parse("2026-11-29T00:03:00Z"), ref));
    FireOutcome o = backfill.reply().getValue().outcomes().get(0);
    assertEquals(Decision.SKIPPED, o.decision());
    assertEquals(SkipReason.WINDOW_EXISTS, ev(backfill, TaskJournal.FireSkipped.class).reason(), "R7: recorded with its reason");
    declined(admit(kit, "2026-11-29", null));
    assertEquals(InstanceStatus.SUCCEEDED, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R6/R7: overlap SKIP records the new window as skipped while the previous one runs")
  void skipsWindowWhilePreviousRuns() {
    var kit = kit(daily(newId()).lease(RUNS_A_DAY).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref));
    assertEquals(Decision.SKIPPED, r.reply().getValue().decision());
    TaskJournal.SkipRangeOpened e = ev(r, TaskJournal.SkipRangeOpened.class);
    assertEquals(SkipReason.PREVIOUS_RUNNING, e.skipReason());
    assertTrue(e.detail().contains("2026-11-29"), e.detail());
    assertEquals(InstanceStatus.SKIPPED, window(kit, "2026-11-30").status());
  }

  @Test
  @DisplayName("R24/R6: a fire after a restart settles the attempt whose executor died with the old JVM before it decides "
      + "(INTERRUPTED NODE_LOST, resumed, no retry spent): the fresh window is scheduled, not skipped as PREVIOUS_RUNNING")
  void fireSettlesDeadExecutorsAttemptFirst() {
    TaskSpec spec = daily(newId()).lease(RUNS_A_DAY).build();
    clock.set(T0);
    TaskEnv env = new TaskEnv(null, null, a -> { }, executor -> !executor.equals("node-a#1"), 0);
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(spec.id(), clock, TaskSettings.from(CONFIG), env));
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    fire(kit, "2026-11-29");
    assertInstanceOf(ExecutorProtocol.Started.class, admit(kit, "2026-11-29", "node-a#1").reply());
    kit.restart(); // the node died with its executor; the attempt is RUNNING in the journal
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref));
    assertEquals(Decision.SCHEDULED, r.reply().getValue().decision(), r.reply().getValue().reason());
    TaskJournal.AttemptInterrupted t = ev(r, TaskJournal.AttemptInterrupted.class);
    assertEquals("2026-11-29", t.window());
    assertEquals(io.almanac.InterruptCause.NODE_LOST, t.cause());
    assertEquals(InstanceStatus.PENDING, window(kit, "2026-11-29").status(), "interrupted, not failed: resumed at once");
    assertEquals(RunKind.RESUME, window(kit, "2026-11-29").runKind());
    assertEquals(0, window(kit, "2026-11-29").retries());
    assertTrue(window(kit, "2026-11-29").reason().contains("executor node-a#1 is gone"), window(kit, "2026-11-29").reason());
    assertEquals(InstanceStatus.PENDING, window(kit, "2026-11-30").status());
  }

  @Test
  @DisplayName("R6: overlap SKIP schedules a fresh window while the previous one is only queued (PENDING, not started)")
  void skipDoesNotCountQueuedWindowAsRunning() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29"); // queued; its start is slow
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    assertEquals(Decision.SCHEDULED, fire(kit, "2026-11-30").decision());
    assertEquals(InstanceStatus.PENDING, window(kit, "2026-11-29").status());
    assertEquals(1, start(kit, "2026-11-29").attempt(), "the older window starts first");
  }

  @Test
  @DisplayName("Principle 8: a task whose window spec throws answers its view (next due unknown), refuses a run now with "
      + "a typed reason, and stays alive for other commands")
  void brokenScheduleRefusesOnlyWhatNeedsIt() {
    io.almanac.WindowSpec.register(new io.almanac.WindowSpec() {
      @Override
      public String name() {
        return "always-breaks";
      }

      @Override
      public io.almanac.Window windowOf(java.time.LocalDateTime nominal, Instant firedAt, java.time.ZoneId zone) {
        throw new IllegalStateException("broken window spec");
      }
    });
    var kit = kit(daily(newId()).window("always-breaks").build());
    var view = kit.<StatusReply<TaskProtocol.TaskInfo>>runCommand(TaskProtocol.GetTask::new);
    assertTrue(view.reply().isSuccess(), () -> view.reply().toString());
    assertNull(view.reply().getValue().view().nextDue());
    var run = kit.<StatusReply<FireOutcome>>runCommand(TaskProtocol.RunNow::new);
    io.almanac.RefusedException refused = assertInstanceOf(io.almanac.RefusedException.class, run.reply().getError());
    assertEquals(io.almanac.RefusedException.Reason.SCHEDULE_FAILED, refused.reason());
    assertTrue(refused.getMessage().contains("broken window spec"), refused.getMessage());
    assertTrue(run.hasNoEvents());
    assertTrue(kit.<StatusReply<Done>>runCommand(TaskProtocol.Pause::new).reply().isSuccess(), "the entity goes on");
  }

  @Test
  @DisplayName("R6: overlap BUFFER_ONE keeps one waiting window, which starts after the running one ends")
  void buffersOneWindow() {
    var kit = kit(daily(newId()).lease(RUNS_A_DAY).overlap(OverlapPolicy.BUFFER_ONE).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    assertEquals(Decision.SCHEDULED, fire(kit, "2026-11-30").decision());
    clock.set(Instant.parse("2026-12-01T00:00:00Z"));
    FireOutcome third = fire(kit, "2026-12-01");
    assertEquals(Decision.SKIPPED, third.decision());
    assertTrue(third.reason().startsWith("BUFFER_FULL"), third.reason());
    declined(admit(kit, "2026-11-30", null)); // the buffered window waits for the running one
    finish(kit, "2026-11-29", 1, JobResult.success("ok"), Duration.ofHours(49));
    assertEquals(1, start(kit, "2026-11-30").attempt());
  }

  @Test
  @DisplayName("R6: overlap ALLOW runs windows concurrently")
  void allowsConcurrentWindows() {
    var kit = kit(daily(newId()).lease(RUNS_A_DAY).overlap(OverlapPolicy.ALLOW).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    assertEquals(Decision.SCHEDULED, fire(kit, "2026-11-30").decision());
    start(kit, "2026-11-30");
    assertEquals(InstanceStatus.RUNNING, window(kit, "2026-11-29").status());
    assertEquals(InstanceStatus.RUNNING, window(kit, "2026-11-30").status());
  }

  @Test
  @DisplayName("R6: overlap CANCEL_PREVIOUS cancels the running window and schedules the new one")
  void cancelsPrevious() {
    var kit = kit(daily(newId()).lease(RUNS_A_DAY).overlap(OverlapPolicy.CANCEL_PREVIOUS).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref));
    assertEquals(2, r.events().size());
    var cancel = assertInstanceOf(TaskJournal.InstanceCancelled.class, r.events().get(0));
    assertEquals(TaskJournal.CancelCause.SUPERSEDED, cancel.cause()); // typed at the source: no reader reads the reason
    assertEquals(InstanceStatus.CANCELLED, window(kit, "2026-11-29").status());
    assertEquals(InstanceStatus.PENDING, window(kit, "2026-11-30").status());
    // the cancelled attempt's late result is recorded for audit but cannot succeed the window
    var late = finish(kit, "2026-11-29", 1, JobResult.success("late"), Duration.ofHours(25));
    assertInstanceOf(TaskJournal.LateResultRecorded.class, late.event());
    assertEquals(InstanceStatus.CANCELLED, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R7/R31: a paused task records fires as skipped; resumed, it runs them again")
  void pauseAndResume() {
    var kit = kit(daily(newId()).build());
    assertInstanceOf(TaskJournal.TaskPaused.class, kit.runCommand(TaskProtocol.Pause::new).event());
    assertTrue(kit.runCommand(TaskProtocol.Pause::new).hasNoEvents(), "pausing twice changes nothing");
    FireOutcome o = fire(kit, "2026-11-29");
    assertEquals(Decision.SKIPPED, o.decision());
    assertEquals(InstanceStatus.SKIPPED, window(kit, "2026-11-29").status());
    assertTrue(window(kit, "2026-11-29").reason().startsWith("PAUSED"));
    kit.runCommand(TaskProtocol.Resume::new);
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    assertEquals(Decision.SCHEDULED, fire(kit, "2026-11-30").decision());
  }

  @Test
  @DisplayName("R12/R14: catch-up is missed for a task with catch-up mode NONE (the default) or outside the horizon, run otherwise")
  void catchUpFollowsPolicyAndHorizon() {
    var plain = kit(daily(newId()).build());
    clock.set(Instant.parse("2026-11-29T03:00:00Z")); // 3 h after the window was due
    FireOutcome o = fire(plain, "2026-11-29", FireKind.CATCH_UP);
    assertEquals(Decision.MISSED, o.decision());
    assertEquals(InstanceStatus.MISSED, window(plain, "2026-11-29").status());
    assertTrue(window(plain, "2026-11-29").reason().startsWith(MissReason.BACKFILL_NOT_ALLOWED.name()));

    var backfillable = kit(daily(newId()).catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(24))).build());
    clock.set(Instant.parse("2026-11-29T03:00:00Z"));
    FireOutcome caught = fire(backfillable, "2026-11-29", FireKind.CATCH_UP);
    assertEquals(Decision.SCHEDULED, caught.decision());
    assertEquals(RunKind.BACKFILL, window(backfillable, "2026-11-29").runKind());
    clock.set(Instant.parse("2026-12-02T00:00:00Z"));
    FireOutcome old = fire(backfillable, "2026-11-30", FireKind.CATCH_UP);
    assertEquals(Decision.MISSED, old.decision());
    assertTrue(old.reason().startsWith(MissReason.OUTSIDE_HORIZON.name()), old.reason());
    // an on-time fire that arrives after the horizon is missed as well (R14)
    clock.set(Instant.parse("2026-12-05T00:00:00Z"));
    assertEquals(Decision.MISSED, fire(plain, "2026-12-02").decision());
  }

  @Test
  @DisplayName("R12/R15/R31: a failure of a task not marked for retry (the default) is FINAL_FAILED in the queue; an operator retries or resolves it")
  void failureWithoutRetryGoesToInterventionQueue() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var r = finish(kit, "2026-11-29", 1, JobResult.failure("model returned malformed JSON"), Duration.ofSeconds(40));
    assertEquals(2, r.events().size());
    assertInstanceOf(TaskJournal.AttemptFailed.class, r.events().get(0));
    TaskJournal.InstanceFinalFailed ff = (TaskJournal.InstanceFinalFailed) r.events().get(1);
    assertTrue(ff.reason().startsWith("not retried: the task is not marked for retry (max retries 0, R12); last: model returned"),
        ff.reason());
    List<WindowView> queue = kit.<StatusReply<TaskProtocol.WindowList>>runCommand(TaskProtocol.GetInterventionQueue::new).reply().getValue().windows();
    assertEquals(1, queue.size());
    assertEquals(InstanceStatus.FINAL_FAILED, queue.get(0).status());

    assertTrue(kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Retry(WindowKey.of("2026-11-29"), ref)).reply().isSuccess());
    assertEquals(RunKind.MANUAL, window(kit, "2026-11-29").runKind());
    AttemptGrant second = start(kit, "2026-11-29");
    assertEquals(2, second.attempt(), "the attempt number keeps counting: it is the fencing token");
    finish(kit, "2026-11-29", 2, JobResult.failure("still broken"), Duration.ofSeconds(40));
    var resolved = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Resolve(WindowKey.of("2026-11-29"), "digest sent by hand", ref));
    assertTrue(resolved.reply().isSuccess());
    assertEquals(InstanceStatus.RESOLVED, window(kit, "2026-11-29").status());
    var again = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Resolve(WindowKey.of("2026-11-29"), "again", ref));
    assertTrue(again.reply().getError().getMessage().contains("RESOLVED -> RESOLVED"), again.reply().getError().getMessage());
  }

  @Test
  @DisplayName("R13/R15: delayed back-off 5, 15, 30 min; after the cap of 3 retries the window is FINAL_FAILED")
  void retriesWithBackoffUntilCap() {
    var kit = kit(daily(newId())
        .retry(RetryPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)))
        .build());
    fire(kit, "2026-11-29");
    Duration[] delays = {Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)};
    for (int attempt = 1; attempt <= 3; attempt++) {
      AttemptGrant g = start(kit, "2026-11-29");
      assertEquals(attempt, g.attempt());
      assertEquals(attempt == 1 ? RunKind.FIRST : RunKind.RETRY, g.kind(), "R18: the job knows it is a retry");
      var failed = finish(kit, "2026-11-29", attempt, JobResult.failure("tool timeout"), Duration.ofSeconds(10));
      TaskJournal.RetryScheduled rs = ev(failed, TaskJournal.RetryScheduled.class);
      assertEquals(attempt, rs.retryNumber());
      assertEquals(clock.instant().plus(delays[attempt - 1]), rs.dueAt());
      assertEquals(InstanceStatus.RETRY_WAIT, window(kit, "2026-11-29").status());
      var early = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Wake(ref));
      assertTrue(early.hasNoEvents(), "not due yet");
      clock.set(rs.dueAt());
      var released = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Wake(ref));
      assertEquals(RunKind.RETRY, ev(released, TaskJournal.InstanceScheduled.class).kind());
    }
    start(kit, "2026-11-29");
    var last = finish(kit, "2026-11-29", 4, JobResult.failure("tool timeout"), Duration.ofSeconds(10));
    TaskJournal.InstanceFinalFailed ff = ev(last, TaskJournal.InstanceFinalFailed.class);
    assertTrue(ff.reason().contains("retry cap " + RetryPolicy.DEFAULT_MAX_RETRIES), ff.reason());
    assertEquals(3, window(kit, "2026-11-29").retries());
  }

  @Test
  @DisplayName("R23: a result reported after the lease expired, before the expiry was processed, is a timeout")
  void resultPastLeaseIsNotASuccess() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    AttemptGrant g = start(kit, "2026-11-29");
    clock.set(g.leaseUntil().plusSeconds(5));
    var r = finish(kit, "2026-11-29", 1, JobResult.success("too late"), Duration.ofHours(2));
    assertInstanceOf(TaskJournal.AttemptTimedOut.class, r.events().get(0));
    assertInstanceOf(TaskJournal.LateResultRecorded.class, r.events().get(r.events().size() - 1));
    assertEquals(InstanceStatus.FINAL_FAILED, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R23: heartbeats extend the lease of the running attempt only")
  void heartbeatExtendsLease() {
    var kit = kit(daily(newId()).lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofMinutes(10)).factor(1.5).minSamples(20).build()).build());
    fire(kit, "2026-11-29");
    AttemptGrant g = start(kit, "2026-11-29");
    assertEquals(T0.plus(Duration.ofMinutes(10)), g.leaseUntil());
    clock.advance(Duration.ofMinutes(8));
    var hb = kit.<StatusReply<TaskProtocol.LeaseGranted>>runCommand(ref -> new TaskProtocol.Heartbeat(WindowKey.of("2026-11-29"), 1, ref));
    assertEquals(T0.plus(Duration.ofMinutes(18)), hb.reply().getValue().leaseUntil());
    assertInstanceOf(TaskJournal.LeaseExtended.class, hb.event());
    var stale = kit.<StatusReply<TaskProtocol.LeaseGranted>>runCommand(ref -> new TaskProtocol.Heartbeat(WindowKey.of("2026-11-29"), 7, ref));
    assertTrue(stale.reply().isError());
    assertTrue(stale.hasNoEvents());
  }

  @Test
  @DisplayName("R8/R23: the lease follows 1.5 x P99 of observed durations; a cron faster than the P99 is flagged")
  void leaseFollowsP99AndIntervalWarning() {
    var kit = kit(TaskSpec.builder(newId()).cron("*/10 * * * * ? UTC").window(WindowSpec.PER_FIRING).overlap(OverlapPolicy.ALLOW)
        .lease(LeasePolicy.builder().floor(Duration.ofSeconds(5)).ceiling(Duration.ofMinutes(30)).factor(1.5).minSamples(5).build()).build());
    for (int i = 0; i < 5; i++) {
      Instant due = T0.plusSeconds(10L * i);
      clock.set(due);
      String key = due.toString();
      var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> new TaskProtocol.Fire(WindowKey.of(key), due, due, due, FireKind.ON_TIME, ref));
      assertEquals(Decision.SCHEDULED, r.reply().getValue().decision());
      AttemptGrant g = start(kit, key);
      finish(kit, key, g.attempt(), JobResult.success("ok"), Duration.ofSeconds(20 + i));
    }
    TaskView view = kit.<StatusReply<TaskProtocol.TaskInfo>>runCommand(TaskProtocol.GetTask::new).reply().getValue().view();
    assertEquals(Duration.ofSeconds(24), view.p99());
    assertEquals(Duration.ofSeconds(36), view.lease(), "1.5 x P99");
    assertEquals(Duration.ofSeconds(10), view.minInterval());
    assertTrue(view.intervalShorterThanP99(), "R8: a 10 s cron with a 24 s P99 is flagged");
    Instant due = T0.plusSeconds(60);
    clock.set(due);
    kit.<StatusReply<FireOutcome>>runCommand(ref -> new TaskProtocol.Fire(WindowKey.of(due.toString()), due, due, due, FireKind.ON_TIME, ref));
    assertEquals(due.plusSeconds(36), start(kit, due.toString()).leaseUntil());
  }

  @Test
  @DisplayName("R22/R33: an oversized summary or reason is refused naming the field; nothing is persisted")
  void oversizedResultIsRefused() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var big = finish(kit, "2026-11-29", 1, JobResult.success("x".repeat(4001)), Duration.ofSeconds(1));
    assertTrue(big.reply().isError());
    String msg = big.reply().getError().getMessage();
    assertTrue(msg.startsWith("summary '") && msg.contains("4001 characters, at most 4000"), msg);
    assertTrue(big.hasNoEvents());
    var reason = finish(kit, "2026-11-29", 1, JobResult.failure("y".repeat(2001)), Duration.ofSeconds(1));
    assertTrue(reason.reply().getError().getMessage().startsWith("reason '"));
    assertTrue(reason.hasNoEvents());
    assertEquals(InstanceStatus.RUNNING, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R19: the effect ledger records an effect once; a later attempt sees it; a stale attempt cannot write")
  void effectLedger() {
    var kit = kit(daily(newId()).retry(RetryPolicy.immediate()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var first = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "push:wechat", "msg-123", ref));
    assertTrue(first.reply().getValue().recordedNow());
    var second = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "push:wechat", "msg-456", ref));
    assertFalse(second.reply().getValue().recordedNow());
    assertEquals("msg-123", second.reply().getValue().value());
    assertTrue(second.hasNoEvents());
    finish(kit, "2026-11-29", 1, JobResult.failure("crashed after sending"), Duration.ofSeconds(5));
    AttemptGrant retry = start(kit, "2026-11-29");
    assertEquals("msg-123", retry.effects().get("push:wechat"), "the retry sees the message was sent");
    var stale = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "other", "v", ref));
    assertTrue(stale.reply().isError());
  }

  @Test
  @DisplayName("R24: the state after a restart (journal replay) equals the state before")
  void recoversStateByReplay() {
    var kit = kit(daily(newId()).retry(RetryPolicy.immediate()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "k", "v", ref));
    finish(kit, "2026-11-29", 1, JobResult.failure("boom"), Duration.ofSeconds(5));
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    fire(kit, "2026-11-30");
    kit.runCommand(TaskProtocol.Pause::new);
    State before = kit.getState();
    State after = kit.restart().state();
    assertEquals(before, after);
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-11-30").decision(), "no window runs twice after a restart");
  }

  @Test
  @DisplayName("R30: hot state stays bounded; archived windows are still recognised as existing")
  void hotStateIsBounded() {
    var kit = kit(daily(newId()).build());
    Instant day = Instant.parse("2026-01-01T00:00:00Z");
    for (int i = 0; i < 50; i++) {
      String date = day.plus(Duration.ofDays(i)).toString().substring(0, 10);
      clock.set(day.plus(Duration.ofDays(i)));
      fire(kit, date);
      start(kit, date);
      finish(kit, date, 1, JobResult.success("ok"), Duration.ofSeconds(1));
    }
    State s = kit.getState();
    assertTrue(s.windows().size() <= 20, "hot windows: " + s.windows().size());
    assertEquals(50 - s.windows().size(), s.archivedCount());
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-01-03").decision());
    assertEquals(s, kit.restart().state());
  }

  @Test
  @DisplayName("R31: backfill a range of windows and run now")
  void backfillAndRunNow() {
    var kit = kit(daily(newId()).build());
    clock.set(Instant.parse("2026-11-29T06:00:00Z"));
    var r = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2026-11-25T12:00:00Z"), Instant.parse("2026-11-28T12:00:00Z"), ref));
    List<FireOutcome> outcomes = r.reply().getValue().outcomes();
    assertEquals(List.of("2026-11-26", "2026-11-27", "2026-11-28"), outcomes.stream().map(FireOutcome::window).toList());
    assertTrue(outcomes.stream().allMatch(o -> o.decision() == Decision.SCHEDULED));
    assertEquals(RunKind.BACKFILL, window(kit, "2026-11-27").runKind());
    var tooMany = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2020-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:00Z"), ref));
    assertTrue(tooMany.reply().getError().getMessage().contains("max-backfill-windows"));
    assertTrue(tooMany.hasNoEvents());

    var now = kit.<StatusReply<FireOutcome>>runCommand(TaskProtocol.RunNow::new);
    assertEquals("2026-11-29", now.reply().getValue().window(), "the window containing now, in the task's zone");
    assertEquals(RunKind.MANUAL, window(kit, "2026-11-29").runKind());
  }

  @Test
  @DisplayName("R31: a backfill's dry run answers what the backfill decides for each window, refuses what it refuses, "
      + "and writes nothing")
  void backfillDryRunIsTheBackfillsOwnDecisionUnwritten() {
    var kit = kit(daily(newId()).build());
    clock.set(Instant.parse("2026-11-28T00:00:01Z"));
    fire(kit, "2026-11-28");
    start(kit, "2026-11-28");
    finish(kit, "2026-11-28", 1, JobResult.success("done"), Duration.ofMinutes(1));
    clock.set(Instant.parse("2026-11-29T06:00:00Z"));
    Instant from = Instant.parse("2026-11-25T12:00:00Z");
    Instant to = Instant.parse("2026-11-28T12:00:00Z");
    var dry = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(from, to, true, ref));
    assertTrue(dry.hasNoEvents(), "a dry run writes nothing");
    List<String> planned = dry.reply().getValue().outcomes().stream().map(o -> o.window() + " " + o.decision() + " "
        + o.reason()).toList();
    assertEquals(List.of("2026-11-26 SCHEDULED BACKFILL", "2026-11-27 SCHEDULED BACKFILL",
        "2026-11-28 SKIPPED WINDOW_EXISTS: window is SUCCEEDED"), planned);
    assertTrue(kit.getState().window("2026-11-26").isEmpty(), "not scheduled");
    var real = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(from, to, ref));
    assertEquals(planned, real.reply().getValue().outcomes().stream().map(o -> o.window() + " " + o.decision() + " "
        + o.reason()).toList(), "the backfill decides what its dry run said");
    var tooMany = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2020-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:00Z"), true, ref));
    assertTrue(tooMany.reply().getError().getMessage().contains("max-backfill-windows"));
  }

  @Test
  @DisplayName("R31: cancel a running window; its attempt can no longer record effects or succeed")
  void cancelRunning() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var c = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Cancel(WindowKey.of("2026-11-29"), "operator: bad input data", ref));
    assertTrue(c.reply().isSuccess());
    assertEquals(TaskJournal.CancelCause.OPERATOR, assertInstanceOf(TaskJournal.InstanceCancelled.class, c.event()).cause());
    assertEquals(InstanceStatus.CANCELLED, window(kit, "2026-11-29").status());
    assertEquals("operator: bad input data", window(kit, "2026-11-29").reason());
    var again = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Cancel(WindowKey.of("2026-11-29"), null, ref));
    assertTrue(again.reply().isError());
    assertTrue(again.reply().getError().getMessage().contains("CANCELLED -> CANCELLED"));
    var effect = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "k", "v", ref));
    assertTrue(effect.reply().isError(), "the cancelled attempt no longer holds the window");
    var result = finish(kit, "2026-11-29", 1, JobResult.success("done anyway"), Duration.ofSeconds(5));
    assertInstanceOf(TaskJournal.LateResultRecorded.class, result.event());
    assertEquals(InstanceStatus.CANCELLED, window(kit, "2026-11-29").status());
  }

  @Test
  @DisplayName("R33: commands for an undefined task or an unknown window are refused by name; nothing persisted")
  void unknownTaskAndWindow() {
    String id = newId();
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(id, clock, TaskSettings.from(CONFIG)));
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-29", FireKind.ON_TIME, ref));
    assertEquals("task '" + id + "' is unknown: define it first", r.reply().getError().getMessage());
    assertEquals(io.almanac.RefusedException.Reason.UNKNOWN_TASK,
        assertInstanceOf(io.almanac.RefusedException.class, r.reply().getError()).reason(), "a typed refusal, not a matched string");
    assertTrue(r.hasNoEvents());
    var defined = kit(daily(newId()).build());
    ExecutorProtocol.Declined w = declined(admit(defined, "2031-01-01", null));
    assertTrue(w.detail().contains("window '2031-01-01' is unknown"), w.detail());
    assertEquals(io.almanac.RefusedException.Reason.UNKNOWN_WINDOW, w.reason());
    assertNull(defined.getState().windows().get("2031-01-01"));
  }

  @Test
  @DisplayName("R1: a fire for a window not yet due is refused; nothing runs early")
  void futureFireIsRefused() {
    var kit = kit(daily(newId()).build());
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref));
    assertTrue(r.reply().getError().getMessage().contains("is not due yet"), r.reply().getError().getMessage());
    assertTrue(r.hasNoEvents());
  }

  @Test
  @DisplayName("R11: triggering and backfill meet only at the window key: a backfilled window is not fired again")
  void backfillAndTriggerShareOnlyTheWindowKey() {
    var kit = kit(daily(newId()).build());
    clock.set(Instant.parse("2026-11-29T00:00:10Z"));
    var bf = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2026-11-28T12:00:00Z"), Instant.parse("2026-11-29T00:00:05Z"), ref));
    assertEquals(Decision.SCHEDULED, bf.reply().getValue().outcomes().get(0).decision());
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-11-29").decision(), "the trigger's fire finds the window");
    assertEquals(RunKind.BACKFILL, window(kit, "2026-11-29").runKind());
  }

  @Test
  @DisplayName("R31: a backfill makes one instance per window even when several firings share it")
  void backfillDeduplicatesWindows() {
    var kit = kit(TaskSpec.builder(newId()).cron("0 0 * * * ? Asia/Shanghai").window(WindowSpec.DAILY).build());
    clock.set(Instant.parse("2026-11-29T06:00:00Z"));
    var r = kit.<StatusReply<TaskProtocol.BackfillReport>>runCommand(ref -> new TaskProtocol.Backfill(
        Instant.parse("2026-11-26T16:00:00Z"), Instant.parse("2026-11-28T15:59:59Z"), ref));
    assertEquals(List.of("2026-11-27", "2026-11-28"), r.reply().getValue().outcomes().stream().map(FireOutcome::window).toList());
    assertEquals(2, r.events().size());
  }

  @Test
  @DisplayName("R15: an operator cannot reset the retry cap by retrying a window that is waiting to retry")
  void retryOfRetryWaitIsRefused() {
    var kit = kit(daily(newId()).retry(RetryPolicy.delayed(Duration.ofMinutes(5))).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    finish(kit, "2026-11-29", 1, JobResult.failure("x"), Duration.ofSeconds(1));
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Retry(WindowKey.of("2026-11-29"), ref));
    assertTrue(r.reply().getError().getMessage().contains("RETRY_WAIT"), r.reply().getError().getMessage());
    assertTrue(r.hasNoEvents());
  }

  @Test
  @DisplayName("R21/R33: results, effects and queries for attempts or windows that do not exist are refused")
  void refusesImpossibleAttempts() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var future = finish(kit, "2026-11-29", 5, JobResult.success("x"), Duration.ofSeconds(1));
    assertTrue(future.reply().getError().getMessage().startsWith("attempt '5' is invalid"), future.reply().getError().getMessage());
    assertTrue(future.hasNoEvents());
    var nullKey = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, null, "v", ref));
    assertEquals("effect key is missing: an effect is recorded under a key", nullKey.reply().getError().getMessage());
    var one = kit.<StatusReply<TaskProtocol.WindowList>>runCommand(ref -> new TaskProtocol.GetWindow(WindowKey.of("2026-11-29"), ref));
    assertEquals(InstanceStatus.RUNNING, one.reply().getValue().windows().get(0).status());
    var none = kit.<StatusReply<TaskProtocol.WindowList>>runCommand(ref -> new TaskProtocol.GetWindow(WindowKey.of("2026-01-01"), ref));
    assertTrue(none.reply().getError().getMessage().contains("is unknown"));
    var all = kit.<StatusReply<TaskProtocol.WindowList>>runCommand(TaskProtocol.GetWindows::new);
    assertEquals(1, all.reply().getValue().windows().size());
    assertEquals(0, all.reply().getValue().windows().get(0).maxRetries(), "a task not marked for retry never retries");
  }

  @Test
  @DisplayName("R23: the entity owns lease expiry: its own timer times the attempt out once the clock passes the lease, "
      + "with nobody sending an expiry")
  void leaseTimerExpiresTheAttempt() {
    var kit = kit(daily(newId()).build());
    fire(kit, "2026-11-29");
    AttemptGrant g = start(kit, "2026-11-29");
    clock.set(g.leaseUntil().plusSeconds(1));
    // A wake-up (the trigger's, at the lease's end) re-arms the timers by the clock, which has passed the lease.
    kit.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new);
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(10), () -> {
      assertEquals(InstanceStatus.FINAL_FAILED, window(kit, "2026-11-29").status());
      return null;
    });
    assertTrue(window(kit, "2026-11-29").reason().contains("lease expired at " + g.leaseUntil()), window(kit, "2026-11-29").reason());
  }

  @Test
  @DisplayName("R19: an effect whose end was not recorded is pending: a later attempt sees its outcome is unknown")
  void effectIntentWithoutEndIsPending() {
    var kit = kit(daily(newId()).retry(RetryPolicy.immediate()).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    var intent = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 1, "push", null, true, ref));
    assertTrue(intent.reply().getValue().pending());
    finish(kit, "2026-11-29", 1, JobResult.failure("crashed mid-push"), Duration.ofSeconds(1));
    AttemptGrant retry = start(kit, "2026-11-29");
    assertEquals(List.of("push"), retry.pendingEffects());
    assertNull(retry.effects().get("push"));
    var done = kit.<StatusReply<TaskProtocol.EffectReply>>runCommand(ref -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-29"), 2, "push", "msg-9", ref));
    assertEquals("msg-9", done.reply().getValue().value());
    assertEquals(List.of(), window(kit, "2026-11-29").pendingEffects());
  }

  @Test
  @DisplayName("R30: windows done for longer than the retention (30 days) leave the hot state; recovery gives the same state")
  void retentionByAge() {
    TaskSettings settings = TaskSettings.from(ConfigFactory.parseString("almanac.task.hot-windows = 500").withFallback(CONFIG));
    TaskSpec spec = daily(newId()).build();
    clock.set(T0);
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(spec.id(), clock, settings));
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    Instant day = Instant.parse("2026-01-01T00:00:00Z");
    for (int i = 0; i < 60; i++) {
      String date = day.plus(Duration.ofDays(i)).toString().substring(0, 10);
      clock.set(day.plus(Duration.ofDays(i)));
      fire(kit, date);
      start(kit, date);
      finish(kit, date, 1, JobResult.success("ok"), Duration.ofSeconds(1));
    }
    State s = kit.getState();
    // The last event is at 2026-03-01T00:00Z: windows that ended (16:00Z, midnight in Shanghai) more
    // than 30 days before, i.e. before 2026-01-30T00:00Z, are gone: 01-01 .. 01-29.
    assertEquals(31, s.windows().size(), "hot windows: " + s.windows().keySet());
    assertEquals(29, s.archivedCount());
    assertTrue(s.windows().containsKey("2026-01-30") && !s.windows().containsKey("2026-01-29"), s.windows().keySet().toString());
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-01-10").decision(), "an archived window is not run again");
    assertEquals(s, kit.restart().state(), "the same state from snapshot + events");
  }

  private static io.almanac.RefusedException refusedAsRemoved(StatusReply<?> reply, String id) {
    assertTrue(reply.isError(), () -> "expected a refusal, got " + reply);
    io.almanac.RefusedException e = assertInstanceOf(io.almanac.RefusedException.class, reply.getError());
    assertEquals(io.almanac.RefusedException.Reason.REMOVED, e.reason(), e.getMessage());
    assertTrue(e.getMessage().startsWith("task '" + id + "' was removed at "), e.getMessage());
    return e;
  }

  @Test
  @DisplayName("R31: a removed task cancels its running window (the job's late result is still recorded), refuses "
      + "every command but queries and Define as REMOVED, answers queries from its history, and stays removed after a restart")
  void removedTaskRefusesAllButQueries() {
    String id = newId();
    var kit = kit(daily(id).lease(RUNS_A_DAY).build());
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    clock.set(T0.plusSeconds(60));
    var removed = kit.<StatusReply<Done>>runCommand(TaskProtocol.Remove::new);
    assertTrue(removed.reply().isSuccess());
    assertEquals(List.of(new TaskJournal.InstanceCancelled("2026-11-29", 1, "task removed", T0.plusSeconds(60),
        TaskJournal.CancelCause.TASK_REMOVED),
        new TaskJournal.TaskRemoved(T0.plusSeconds(60))), removed.events());
    assertTrue(kit.getState().removed());

    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    var fire = kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref));
    refusedAsRemoved(fire.reply(), id);
    assertTrue(fire.hasNoEvents());
    refusedAsRemoved(kit.<StatusReply<Done>>runCommand(TaskProtocol.Pause::new).reply(), id);
    refusedAsRemoved(kit.<StatusReply<FireOutcome>>runCommand(TaskProtocol.RunNow::new).reply(), id);
    refusedAsRemoved(kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Retry(WindowKey.of("2026-11-29"), ref)).reply(), id);
    refusedAsRemoved(kit.<StatusReply<TaskProtocol.CatchUpOutcome>>runCommand(ref -> new TaskProtocol.CatchUp(List.of(
        new TaskProtocol.DueFire(WindowKey.of("2026-11-30"), T0, T0.plus(Duration.ofDays(1)), T0)), ref)).reply(), id);
    ExecutorProtocol.Declined declined = declined(admit(kit, "2026-11-29", null));
    assertEquals(io.almanac.RefusedException.Reason.REMOVED, declined.reason());

    var heartbeat = kit.<StatusReply<TaskProtocol.LeaseGranted>>runCommand(ref ->
        new TaskProtocol.Heartbeat(WindowKey.of("2026-11-29"), 1, ref));
    assertEquals(io.almanac.RefusedException.Reason.STALE_ATTEMPT,
        assertInstanceOf(io.almanac.RefusedException.class, heartbeat.reply().getError()).reason(), "the cancelled job learns to stop");
    var late = finish(kit, "2026-11-29", 1, JobResult.success("done anyway"), Duration.ofSeconds(5));
    assertInstanceOf(TaskJournal.LateResultRecorded.class, late.event(), "recorded for audit; changes nothing");
    assertTrue(kit.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new).reply().isSuccess(), "nothing is due: acknowledged");

    var windows = kit.<StatusReply<TaskProtocol.WindowList>>runCommand(TaskProtocol.GetWindows::new).reply().getValue().windows();
    assertEquals(1, windows.size());
    assertEquals(InstanceStatus.CANCELLED, windows.get(0).status());
    assertEquals("task removed", windows.get(0).reason());
    TaskView view = kit.<StatusReply<TaskProtocol.TaskInfo>>runCommand(TaskProtocol.GetTask::new).reply().getValue().view();
    assertTrue(view.removed());
    assertEquals(T0.plusSeconds(60), view.removedAt());
    assertNull(view.nextDue(), "a removed task is never due");
    assertTrue(kit.<StatusReply<TaskProtocol.WindowList>>runCommand(TaskProtocol.GetInterventionQueue::new).reply().isSuccess());

    var again = kit.<StatusReply<Done>>runCommand(TaskProtocol.Remove::new);
    assertTrue(again.reply().isSuccess(), "a repeated removal is acknowledged");
    assertTrue(again.hasNoEvents());
    State before = kit.getState();
    assertEquals(before, kit.restart().state());
    refusedAsRemoved(kit.<StatusReply<FireOutcome>>runCommand(ref -> fireDaily("2026-11-30", FireKind.ON_TIME, ref)).reply(), id);
  }

  @Test
  @DisplayName("R5/R31: a removed task defined again (same spec) fires fresh windows; a window that ran before the removal "
      + "is not run again")
  void removedTaskDefinedAgain() {
    TaskSpec spec = daily(newId()).build();
    var kit = kit(spec);
    fire(kit, "2026-11-29");
    start(kit, "2026-11-29");
    finish(kit, "2026-11-29", 1, JobResult.success("ok"), Duration.ofSeconds(5));
    kit.runCommand(TaskProtocol.Pause::new);
    assertTrue(kit.<StatusReply<Done>>runCommand(TaskProtocol.Remove::new).reply().isSuccess());
    var defined = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    assertTrue(defined.reply().isSuccess());
    assertInstanceOf(TaskJournal.SpecDefined.class, defined.event(), "the same spec is written again: the task is back");
    assertFalse(kit.getState().removed());
    assertFalse(kit.getState().paused(), "defined anew, it starts as a new task would");
    assertEquals(Decision.DUPLICATE, fire(kit, "2026-11-29").decision());
    assertEquals(InstanceStatus.SUCCEEDED, window(kit, "2026-11-29").status(), "its history is kept");
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    assertEquals(Decision.SCHEDULED, fire(kit, "2026-11-30").decision());
  }

  @Test
  @DisplayName("R14: a one-shot task's window, caught up after downtime, follows the horizon and the backfill policy")
  void oneShotCatchUp() {
    Instant at = T0.minus(Duration.ofHours(2));
    String key = at.toString();
    var missed = kit(TaskSpec.builder(newId()).once(at).catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(1))).build());
    var outside = missed.<StatusReply<FireOutcome>>runCommand(ref ->
        new TaskProtocol.Fire(WindowKey.of(key), at, at, at, FireKind.CATCH_UP, ref)).reply().getValue();
    assertEquals(Decision.MISSED, outside.decision());
    assertTrue(outside.reason().startsWith(MissReason.OUTSIDE_HORIZON.name()), outside.reason());
    var backfilled = kit(TaskSpec.builder(newId()).once(at).catchUp(CatchUpPolicy.all()).build());
    var run = backfilled.<StatusReply<FireOutcome>>runCommand(ref ->
        new TaskProtocol.Fire(WindowKey.of(key), at, at, at, FireKind.CATCH_UP, ref)).reply().getValue();
    assertEquals(Decision.SCHEDULED, run.decision(), "within the 24 h horizon and backfillable: it runs once, late");
    assertEquals(RunKind.BACKFILL, window(backfilled, key).runKind());
  }
}

package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.typesafe.config.ConfigFactory;
import io.almanac.JobLog;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import io.almanac.journal.LogLine;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An attempt's log is written with its end, in the same write, right after the end's event, and
 * changes nothing of the task's state; an attempt without one writes nothing more. Live progress is
 * held only for the running attempt that reported it. Pure: no actor, {@code now} passed in.
 */
class AttemptLogDecisionsTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29T00:00:00Z";
  private static final AttemptLog LOG = new AttemptLog(List.of(new LogLine(T0, JobLog.Level.INFO, "gathered 3")), 4,
      "java.lang.IllegalStateException: boom\n\tat x.Y.z(Y.java:1)");

  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static State running() {
    TaskSpec spec = TaskSpec.builder("t").cron("0 0 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.delayed(Duration.ofMinutes(5))).maxRetries(1).build();
    Instant end = T0.plusSeconds(3600);
    return CoreTest.fold(State.empty(20), List.of(new TaskJournal.SpecDefined(SpecRecord.of(spec), T0),
        new TaskJournal.InstanceScheduled(W, T0, end, T0, RunKind.FIRST, T0),
        new TaskJournal.AttemptStarted(W, 1, RunKind.FIRST, T0.plusSeconds(600), "node-1", T0)));
  }

  private List<Event> finish(State s, JobResult r, AttemptLog log) {
    Decided<org.apache.pekko.Done> d = attempts.finish(s, new TaskProtocol.FinishAttempt(WindowKey.of(W), 1, r,
        Duration.ofSeconds(2), log, null), T0.plusSeconds(2));
    assertFalse(d.refused(), () -> String.valueOf(d.refusal()));
    return d.events();
  }

  @Test
  @DisplayName("a failure's log follows AttemptFailed in the same write, before the retry; the folded state is the same "
      + "as without it")
  void failureLogFollowsTheFailure() {
    State s = running();
    List<Event> with = finish(s, JobResult.failure("boom"), LOG);
    List<Event> without = finish(s, JobResult.failure("boom"), AttemptLog.EMPTY);
    assertEquals(without.size() + 1, with.size(), with.toString());
    assertInstanceOf(TaskJournal.AttemptFailed.class, with.get(0));
    assertEquals(TaskJournal.AttemptLogged.of(W, 1, LOG, T0.plusSeconds(2)), with.get(1));
    assertInstanceOf(TaskJournal.RetryScheduled.class, with.get(2));
    assertEquals(CoreTest.fold(s, without), CoreTest.fold(s, with), "the log is not in the hot state");
  }

  @Test
  @DisplayName("a success's lines follow AttemptSucceeded; an attempt with no line and no trace writes nothing more")
  void successLogAndNone() {
    State s = running();
    List<Event> with = finish(s, JobResult.success("ok"), new AttemptLog(LOG.lines(), 0, null));
    assertEquals(2, with.size(), with.toString());
    assertInstanceOf(TaskJournal.AttemptSucceeded.class, with.get(0));
    assertEquals(LOG.lines(), ((TaskJournal.AttemptLogged) with.get(1)).lines());
    List<Event> none = finish(s, JobResult.success("ok"), AttemptLog.EMPTY);
    assertEquals(1, none.size(), none.toString());
    assertEquals(1, finish(s, JobResult.success("ok"), null).size(), "a missing log reads as empty");
  }

  @Test
  @DisplayName("live progress: kept for the running attempt that reported it, ignored from another, gone once it ended")
  void liveProgressIsTheRunningAttemptsOnly() {
    State s = running();
    LiveProgress live = new LiveProgress();
    WindowView.Progress p = new WindowView.Progress(1, 0.5, "drafting", T0, List.of());
    live.report(s, W, 2, p);
    assertEquals(0, live.size(), "an attempt that does not run is not held");
    live.report(s, W, 1, p);
    assertEquals(p, live.of(s.windows().get(W)));
    State ended = CoreTest.fold(s, finish(s, JobResult.success("ok"), AttemptLog.EMPTY));
    assertNull(live.of(ended.windows().get(W)), "not shown once the attempt ended");
    assertEquals(0, live.size(), "and dropped");
    live.report(s, W, 1, p);
    live.ended(W, 1);
    assertEquals(0, live.size());
  }
}

package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
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
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The trace context of an attempt's span (docs/tracing.md) through the task's pure rules: recorded
 * with the start, kept by the window, handed to the window's next attempt (a resume after a lost
 * node, a retry) so that its span links to the one before.
 */
class TraceLinkRulesTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final WindowKey W = WindowKey.of(T0.toString());
  private static final String FIRST = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private static final String SECOND = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "allowed transitions only: " + violations);
    return s;
  }

  private State pending() {
    State s = fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(TaskSpec.builder("t").cron("* * * * * ? UTC")
        .window("per-firing").build()), T0)));
    return fold(s, fires.fire(s, new Fire(W, T0, T0.plusSeconds(1), T0, FireKind.ON_TIME, null), T0).events());
  }

  @Test
  @DisplayName("a resume after a lost node gets the interrupted attempt's trace context, and records its own")
  void resumeGetsThePreviousAttemptsTraceContext() {
    State s = pending();
    Decided<TaskProtocol.AttemptGrant> first = attempts.start(s, W, "node-1#old", FIRST, T0);
    assertEquals(FIRST, assertInstanceOf(AttemptStarted.class, first.events().get(0)).traceparent());
    s = fold(s, first.events());
    assertNull(first.reply().apply(s).previousTraceparent(), "a first attempt links to nothing");
    assertEquals(FIRST, s.windows().get(W.value()).traceparent());

    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(5))); // its node died
    assertEquals(InstanceStatus.PENDING, s.windows().get(W.value()).status());
    assertEquals(RunKind.RESUME, s.windows().get(W.value()).runKind());
    assertEquals(FIRST, s.windows().get(W.value()).traceparent(), "kept while the window waits for its next attempt");

    Decided<TaskProtocol.AttemptGrant> resume = attempts.start(s, W, "node-2#new", SECOND, T0.plusSeconds(6));
    State after = fold(s, resume.events());
    TaskProtocol.AttemptGrant grant = resume.reply().apply(after);
    assertEquals(2, grant.attempt());
    assertEquals(FIRST, grant.previousTraceparent(), "the resume's span links to the interrupted attempt's");
    assertEquals(SECOND, after.windows().get(W.value()).traceparent());
  }

  @Test
  @DisplayName("an attempt started without a trace context leaves none for the next: nothing to link to")
  void untracedStartLeavesNoLink() {
    State s = pending();
    s = fold(s, attempts.start(s, W, "node-1#old", FIRST, T0).events());
    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(5)));
    Decided<TaskProtocol.AttemptGrant> untraced = attempts.start(s, W, "node-2#new", null, T0.plusSeconds(6)); // an untraced node
    assertNull(untraced.reply().apply(fold(s, untraced.events())).previousTraceparent(),
        "an untraced node's grant carries no trace data");
    s = fold(s, untraced.events());
    assertNull(s.windows().get(W.value()).traceparent());
    s = fold(s, attempts.settle(s, id -> ExecutorLiveness.State.ENDED, T0.plusSeconds(10)));
    Decided<TaskProtocol.AttemptGrant> third = attempts.start(s, W, "node-3#new", SECOND, T0.plusSeconds(11));
    assertNull(third.reply().apply(fold(s, third.events())).previousTraceparent());
  }
}

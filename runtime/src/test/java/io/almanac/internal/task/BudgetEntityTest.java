package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.DailyUsage;
import io.almanac.Decision;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RefusedException;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowKey;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.testkit.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Budgets through the task entity (the EventSourcedBehaviorTestKit also checks that every command,
 * event and state serializes), with time from a SettableClock: usage summed over attempts, the
 * skip with BUDGET_EXHAUSTED and its one alert, an operator's raise, a fresh next day, and the day's
 * sums back after a restart.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BudgetEntityTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  /** 2026-11-29 10:00 in Berlin. */
  private static final Instant T0 = Instant.parse("2026-11-29T09:00:00Z");
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1))
      .factor(1.5).minSamples(20).build();

  private final SettableClock clock = new SettableClock(T0);
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private EventSourcedBehaviorTestKit<Command, Event, State> kit(TaskSpec spec) {
    TaskEnv env = new TaskEnv(null, null, alerts::add, id -> true, 0, new NodeMeters(registry));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(testKit.system(),
        TaskEntity.create(spec.id(), clock, TaskSettings.from(CONFIG), env));
    CommandResultWithReply<Command, Event, State, StatusReply<Done>> r =
        kit.runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    assertTrue(r.reply().isSuccess(), () -> "define failed: " + r.reply());
    return kit;
  }

  private static TaskSpec spec(String id) {
    return TaskSpec.builder(id).cron("0 0 * * * ? Europe/Berlin").window("per-firing").lease(HOUR)
        .budgetPerDay(new BigDecimal("1.00")).build();
  }

  private CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> fire(
      EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    Instant at = clock.instant();
    return kit.runCommand(ref -> new TaskProtocol.Fire(WindowKey.of(at.toString()), at, at.plusSeconds(1), at,
        FireKind.ON_TIME, ref));
  }

  /** Fires the window due now, starts it and reports its result with the usage; then an hour passes. */
  private void run(EventSourcedBehaviorTestKit<Command, Event, State> kit, String cost) {
    String window = clock.instant().toString();
    assertEquals(Decision.SCHEDULED, fire(kit).reply().getValue().decision(), "window " + window + " runs");
    ExecutorProtocol.AdmissionAnswer a = kit.<ExecutorProtocol.AdmissionAnswer>runCommand(
        ref -> new TaskProtocol.Admitted(WindowKey.of(window), null, ref)).reply();
    assertInstanceOf(ExecutorProtocol.Started.class, a);
    clock.advance(Duration.ofSeconds(30));
    JobResult result = JobResult.success("digest sent").withUsage(Usage.of("gpt-4o", 1_000, 250, new BigDecimal(cost)));
    CommandResultWithReply<Command, Event, State, StatusReply<Done>> r = kit.runCommand(ref -> new TaskProtocol.FinishAttempt(
        WindowKey.of(window), 1, result, Duration.ofSeconds(30), ref));
    assertTrue(r.reply().isSuccess(), () -> "finish failed: " + r.reply());
    TaskJournal.AttemptSucceeded done = r.eventOfType(TaskJournal.AttemptSucceeded.class);
    assertEquals(new io.almanac.journal.UsageRecord("gpt-4o", 1_000, 250, Usage.toMicros("cost", new BigDecimal(cost))),
        done.usage(), "the usage rides on the event that ends the attempt");
    assertEquals(1, r.events().size(), "no extra journal write for the usage");
    clock.advance(Duration.ofMinutes(59).plusSeconds(30));
  }

  private static DailyUsage usage(EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    return kit.<StatusReply<TaskProtocol.UsageInfo>>runCommand(TaskProtocol.GetUsage::new).reply().getValue().usage();
  }

  private List<Alert> budgetAlerts() {
    return alerts.stream().filter(a -> a.kind() == Alert.Kind.BUDGET_EXHAUSTED).toList();
  }

  @Test
  @DisplayName("usage is summed over attempts; once the day's cost reaches the budget the next windows are SKIPPED with "
      + "BUDGET_EXHAUSTED (one write each) and one alert fires; a raise lets them run; the next day starts afresh; a "
      + "restart keeps the day")
  void budgetThroughTheEntity() {
    EventSourcedBehaviorTestKit<Command, Event, State> kit = kit(spec("llm-digest"));
    run(kit, "0.60");
    run(kit, "0.45");
    DailyUsage u = usage(kit);
    assertEquals(DailyUsage.builder().taskId("llm-digest").day(LocalDate.of(2026, 11, 29)).zone("Europe/Berlin")
        .tokensIn(2_000).tokensOut(500).cost(new BigDecimal("1.05")).attempts(2).budgetPerDay(new BigDecimal("1.00"))
        .raised(new BigDecimal("0.00")).limit(new BigDecimal("1.00")).exhausted(true).windowsSkipped(0).build(), u);

    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> skipped = fire(kit);
    assertEquals(Decision.SKIPPED, skipped.reply().getValue().decision());
    assertEquals(1, skipped.events().size(), "the skip is the fire's one write");
    assertEquals(SkipReason.BUDGET_EXHAUSTED, skipped.eventOfType(TaskJournal.SkipRangeOpened.class).skipReason());
    assertEquals(1, budgetAlerts().size());
    assertTrue(budgetAlerts().get(0).message().contains("llm-digest"), budgetAlerts().get(0).message());
    clock.advance(Duration.ofHours(1));
    assertEquals(Decision.SKIPPED, fire(kit).reply().getValue().decision());
    assertEquals(1, budgetAlerts().size(), "one alert per task per day");

    // the operator raises today's budget: windows run again until the raised limit
    clock.advance(Duration.ofMinutes(10));
    CommandResultWithReply<Command, Event, State, StatusReply<TaskProtocol.UsageInfo>> raised = kit.runCommand(
        ref -> new TaskProtocol.RaiseBudget(new BigDecimal("0.50"), "quarter-end digest", ref));
    assertTrue(raised.reply().isSuccess(), () -> "raise failed: " + raised.reply());
    TaskJournal.BudgetRaised e = raised.eventOfType(TaskJournal.BudgetRaised.class);
    assertEquals(LocalDate.of(2026, 11, 29), e.day());
    assertEquals(new BigDecimal("1.50"), raised.reply().getValue().usage().limit());
    clock.advance(Duration.ofMinutes(50));
    run(kit, "0.45"); // 1.50 now: spent again
    assertEquals(Decision.SKIPPED, fire(kit).reply().getValue().decision());
    assertEquals(1, budgetAlerts().size(), "still one alert for the day");

    // a restart rebuilds the day from the journal (and the snapshot)
    kit.restart();
    DailyUsage after = usage(kit);
    assertEquals(new BigDecimal("1.50"), after.cost());
    assertEquals(new BigDecimal("0.50"), after.raised());
    assertTrue(after.exhausted());
    assertEquals(3, after.windowsSkipped());

    // the next day in Berlin starts afresh (23:00 UTC is midnight CET)
    clock.set(Instant.parse("2026-11-29T23:00:00Z"));
    DailyUsage tomorrow = usage(kit);
    assertEquals(LocalDate.of(2026, 11, 30), tomorrow.day());
    assertEquals(0, tomorrow.cost().signum());
    assertFalse(tomorrow.exhausted());
    assertEquals(new BigDecimal("1.00"), tomorrow.limit(), "the raise was for one day");
    run(kit, "1.00");
    assertEquals(Decision.SKIPPED, fire(kit).reply().getValue().decision());
    assertEquals(2, budgetAlerts().size(), "the new day's alert");

    // meters: tokens and cost by task and by model
    assertEquals(4_000, registry.get("almanac.usage.tokens").tag("task", "llm-digest").tag("direction", "in").counter().count());
    assertEquals(2.50, registry.get("almanac.usage.cost").tag("task", "llm-digest").counter().count(), 1e-9);
    assertEquals(1_000, registry.get("almanac.usage.model.tokens").tag("model", "gpt-4o").tag("direction", "out").counter()
        .count());
    assertEquals(1.0, registry.get("almanac.budget.raises").counter().count());
  }

  @Test
  @DisplayName("a bad raise is refused naming the field and the value, and nothing is stored")
  void badRaiseRefused() {
    EventSourcedBehaviorTestKit<Command, Event, State> kit = kit(spec("raise-refused"));
    CommandResultWithReply<Command, Event, State, StatusReply<TaskProtocol.UsageInfo>> r = kit.runCommand(
        ref -> new TaskProtocol.RaiseBudget(new BigDecimal("-2"), null, ref));
    assertTrue(r.reply().isError());
    assertTrue(r.hasNoEvents());
    RefusedException e = assertInstanceOf(RefusedException.class, r.reply().getError());
    assertTrue(e.getMessage().contains("amount") && e.getMessage().contains("-2"), e.getMessage());
  }
}

package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.RefusedException;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * Registration writes no task entity: the entity records its spec from the first message that brings
 * it (a fire, a catch-up, a wake-up, an event, an operator's command), in the same write as what that
 * message decides; a read with the spec writes nothing (docs/registration.md). Driven through the
 * EventSourcedBehaviorTestKit, which also checks that the commands carrying a spec serialize.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpecDeliveryTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private final SettableClock clock = new SettableClock(T0);

  private TaskSpec daily(String id) {
    return TaskSpec.builder(id).cron("0 0 0 * * ? UTC").window("daily").job("j").build();
  }

  /** A task entity never written: no Define, as after a registration. */
  private EventSourcedBehaviorTestKit<Command, Event, State> fresh(String id) {
    clock.set(T0);
    return EventSourcedBehaviorTestKit.create(testKit.system(), TaskEntity.create(id, clock, TaskSettings.from(CONFIG)));
  }

  private static TaskProtocol.Fire fire(String date, SpecRecord spec, org.apache.pekko.actor.typed.ActorRef<StatusReply<FireOutcome>> ref) {
    Instant start = Instant.parse(date + "T00:00:00Z");
    return new TaskProtocol.Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)), start, FireKind.ON_TIME, true, ref,
        spec);
  }

  @Test
  @DisplayName("a first fire that brings the registered spec records SpecDefined ahead of the window, in one write")
  void firstFireRecordsTheSpec() {
    String id = "spec-" + IDS.incrementAndGet();
    SpecRecord spec = SpecRecord.of(daily(id));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> r = kit.runCommand(ref -> fire("2026-11-29", spec, ref));
    assertTrue(r.reply().isSuccess(), () -> String.valueOf(r.reply()));
    assertEquals(Decision.SCHEDULED, r.reply().getValue().decision());
    List<Event> events = r.events();
    assertInstanceOf(TaskJournal.SpecDefined.class, events.get(0), "the spec first: " + events);
    assertEquals(2, events.size(), "the spec and the window, one write: " + events);
    assertEquals(spec, r.state().spec());
    // the next fire, with the same spec (a trigger that does not know it was acknowledged): nothing more
    clock.set(Instant.parse("2026-11-30T00:00:01Z"));
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> again = kit.runCommand(ref -> fire("2026-11-30", spec, ref));
    assertTrue(again.reply().isSuccess(), () -> String.valueOf(again.reply()));
    assertFalse(again.events().stream().anyMatch(e -> e instanceof TaskJournal.SpecDefined), "recorded once: " + again.events());
  }

  @Test
  @DisplayName("a fire without a spec to a task never written is refused as unknown, nothing written")
  void fireWithoutSpecIsUnknown() {
    String id = "spec-" + IDS.incrementAndGet();
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> r = kit.runCommand(ref -> fire("2026-11-29", null, ref));
    assertTrue(r.reply().isError());
    assertEquals(RefusedException.Reason.UNKNOWN_TASK, ((RefusedException) r.reply().getError()).reason());
    assertTrue(r.events().isEmpty());
  }

  @Test
  @DisplayName("a changed spec comes with the next fire and is recorded in its write")
  void changedSpecRecordedWithTheNextFire() {
    String id = "spec-" + IDS.incrementAndGet();
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    kit.<StatusReply<FireOutcome>>runCommand(ref -> fire("2026-11-29", SpecRecord.of(daily(id)), ref));
    clock.set(Instant.parse("2026-11-30T00:00:01Z"));
    SpecRecord changed = SpecRecord.of(TaskSpec.builder(id).cron("0 0 0 * * ? UTC").window("daily").job("j")
        .description("changed").build());
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> r = kit.runCommand(ref -> fire("2026-11-30", changed, ref));
    assertInstanceOf(TaskJournal.SpecDefined.class, r.events().get(0));
    assertEquals("changed", r.state().spec().description());
  }

  @Test
  @DisplayName("a wake-up that brings the spec to a task never written records it; a catch-up too, with its windows")
  void wakeAndCatchUpRecordTheSpec() {
    String id = "spec-" + IDS.incrementAndGet();
    SpecRecord spec = SpecRecord.of(daily(id));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    CommandResultWithReply<Command, Event, State, StatusReply<Done>> w = kit.runCommand(ref -> new TaskProtocol.Wake(ref, spec));
    assertTrue(w.reply().isSuccess());
    assertEquals(List.of(TaskJournal.SpecDefined.class), w.events().stream().map(Object::getClass).toList());

    String other = "spec-" + IDS.incrementAndGet();
    SpecRecord otherSpec = SpecRecord.of(daily(other));
    EventSourcedBehaviorTestKit<Command, Event, State> kit2 = fresh(other);
    Instant d1 = Instant.parse("2026-11-27T00:00:00Z");
    Instant d2 = Instant.parse("2026-11-28T00:00:00Z");
    List<TaskProtocol.DueFire> windows = List.of(
        new TaskProtocol.DueFire(WindowKey.of("2026-11-27"), d1, d1.plus(Duration.ofDays(1)), d1),
        new TaskProtocol.DueFire(WindowKey.of("2026-11-28"), d2, d2.plus(Duration.ofDays(1)), d2));
    CommandResultWithReply<Command, Event, State, StatusReply<TaskProtocol.CatchUpOutcome>> c =
        kit2.runCommand(ref -> new TaskProtocol.CatchUp(windows, ref, otherSpec));
    assertTrue(c.reply().isSuccess(), () -> String.valueOf(c.reply()));
    assertInstanceOf(TaskJournal.SpecDefined.class, c.events().get(0));
    assertEquals(2, c.reply().getValue().outcomes().size());
  }

  @Test
  @DisplayName("a read with the registered spec answers on the task it defines and writes nothing; an operator's command "
      + "with it records the spec with its own events, and nothing when refused")
  void readsWriteNothingCommandsWriteWithTheirEvents() {
    String id = "spec-" + IDS.incrementAndGet();
    SpecRecord spec = SpecRecord.of(daily(id));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    CommandResultWithReply<Command, Event, State, StatusReply<TaskProtocol.TaskInfo>> view = kit.runCommand(
        ref -> new TaskProtocol.ReadWithSpec(spec, new TaskProtocol.GetTask(ref)));
    assertTrue(view.reply().isSuccess(), () -> String.valueOf(view.reply()));
    assertEquals(id, view.reply().getValue().view().spec().id());
    assertTrue(view.events().isEmpty(), "a read writes nothing");
    assertFalse(view.state().defined());

    // refused (a note over the bound): nothing written, not even the spec
    CommandResultWithReply<Command, Event, State, StatusReply<Done>> refused = kit.runCommand(
        ref -> new TaskProtocol.WithSpec(spec, new TaskProtocol.PauseBy("alice", "n".repeat(100_000), ref)));
    assertTrue(refused.reply().isError());
    assertTrue(refused.events().isEmpty(), "a refused command writes nothing: " + refused.events());

    CommandResultWithReply<Command, Event, State, StatusReply<Done>> paused = kit.runCommand(
        ref -> new TaskProtocol.WithSpec(spec, new TaskProtocol.PauseBy("alice", "maintenance", ref)));
    assertTrue(paused.reply().isSuccess(), () -> String.valueOf(paused.reply()));
    assertEquals(List.of(TaskJournal.SpecDefined.class, TaskJournal.TaskPaused.class),
        paused.events().stream().map(Object::getClass).toList(), "the spec and the pause, one write");
    assertTrue(paused.state().paused());
  }

  @Test
  @DisplayName("a removed task registered anew is defined again by the first fire that brings its spec")
  void removedTaskDefinedAgainByAFire() {
    String id = "spec-" + IDS.incrementAndGet();
    SpecRecord spec = SpecRecord.of(daily(id));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = fresh(id);
    kit.<StatusReply<FireOutcome>>runCommand(ref -> fire("2026-11-29", spec, ref));
    kit.runCommand(TaskProtocol.Remove::new);
    // without the spec (a fire on its way when the task was removed): refused as removed
    clock.set(Instant.parse("2026-11-30T00:00:01Z"));
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> late = kit.runCommand(ref -> fire("2026-11-30", null, ref));
    assertEquals(RefusedException.Reason.REMOVED, ((RefusedException) late.reply().getError()).reason());
    // registered anew: the trigger's first fire brings the spec
    clock.set(Instant.parse("2026-12-01T00:00:01Z"));
    CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> back = kit.runCommand(ref -> fire("2026-12-01", spec, ref));
    assertTrue(back.reply().isSuccess(), () -> String.valueOf(back.reply()));
    assertFalse(back.state().removed());
    assertInstanceOf(TaskJournal.SpecDefined.class, back.events().get(0));
  }
}

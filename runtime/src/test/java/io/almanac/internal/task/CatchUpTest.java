package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.CatchUpOutcome;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
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
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The windows a task missed while the trigger was down arrive as one catch-up command and are
 * decided by the same rules as single catch-up fires, all in one journal write (R5, R7, R12, R14;
 * issue 5's restart workload: a recovery's records no longer hold up the window due now).
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CatchUpTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private EventSourcedBehaviorTestKit<Command, Event, State> kit(CatchUpPolicy catchUp) {
    String id = "catch-up-" + IDS.incrementAndGet();
    TaskSpec spec = TaskSpec.builder(id).cron("0 0 * * * ? UTC").window("daily").catchUp(catchUp).job("j").build();
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(testKit.system(),
        TaskEntity.create(id, new SettableClock(NOW), TaskSettings.from(CONFIG)));
    assertTrue(kit.<StatusReply<Done>>runCommand(r -> new TaskProtocol.Define(SpecRecord.of(spec), r)).reply().isSuccess());
    return kit;
  }

  /** The hourly window due at the given hour of 2026-11-29 (UTC). */
  private static DueFire hour(int h) {
    Instant start = Instant.parse("2026-11-29T00:00:00Z").plus(Duration.ofHours(h));
    return new DueFire(WindowKey.of(start.toString()), start, start.plus(Duration.ofHours(1)), start);
  }

  private static CommandResultWithReply<Command, Event, State, StatusReply<CatchUpOutcome>> catchUp(
      EventSourcedBehaviorTestKit<Command, Event, State> kit, DueFire... windows) {
    return kit.runCommand(r -> new TaskProtocol.CatchUp(List.of(windows), r));
  }

  private static List<Decision> decisions(CommandResultWithReply<Command, Event, State, StatusReply<CatchUpOutcome>> r) {
    assertTrue(r.reply().isSuccess(), () -> "catch-up refused: " + r.reply());
    return r.reply().getValue().outcomes().stream().map(FireOutcome::decision).toList();
  }

  @Test
  @DisplayName("R12: catch-up mode NONE (the default): every missed window is recorded MISSED with its reason, in one write")
  void missedInOneWrite() {
    var kit = kit(CatchUpPolicy.none());
    var r = catchUp(kit, hour(8), hour(9), hour(10));
    assertEquals(List.of(Decision.MISSED, Decision.MISSED, Decision.MISSED), decisions(r));
    assertEquals(1, r.events().size(), "three windows missed alike are one skip range (docs/skip-ranges.md)");
    TaskJournal.WindowsSkipped range = (TaskJournal.WindowsSkipped) r.events().get(0);
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, range.missReason());
    assertEquals(3, range.count());
    assertEquals(hour(10).window().value(), range.lastWindow());
    assertEquals(InstanceStatus.MISSED, r.state().windows().get(hour(8).window().value()).status());
    assertTrue(r.state().rangeOf(hour(9).dueAt()).isPresent(), "the middle window is the range's");
  }

  @Test
  @DisplayName("R12, R14: with catch-up mode ALL missed windows are scheduled as backfills; one beyond the horizon is MISSED")
  void backfillAndHorizon() {
    var kit = kit(CatchUpPolicy.all());
    DueFire old = new DueFire(WindowKey.of("2026-11-27T08:00:00Z"), Instant.parse("2026-11-27T08:00:00Z"),
        Instant.parse("2026-11-27T09:00:00Z"), Instant.parse("2026-11-27T08:00:00Z")); // 52 h ago, horizon 24 h
    var r = catchUp(kit, old, hour(10));
    assertEquals(List.of(Decision.MISSED, Decision.SCHEDULED), decisions(r));
    assertEquals(MissReason.OUTSIDE_HORIZON, ((TaskJournal.WindowMissed) r.events().get(0)).reason());
    TaskJournal.InstanceScheduled scheduled = (TaskJournal.InstanceScheduled) r.events().get(1);
    assertEquals(RunKind.BACKFILL, scheduled.kind());
  }

  @Test
  @DisplayName("R5: windows already known, or named twice, are duplicates: no event for them; a repeated catch-up changes nothing")
  void duplicates() {
    var kit = kit(CatchUpPolicy.none());
    catchUp(kit, hour(8));
    var r = catchUp(kit, hour(8), hour(9), hour(9));
    assertEquals(List.of(Decision.DUPLICATE, Decision.MISSED, Decision.DUPLICATE), decisions(r));
    assertEquals(1, r.events().size());
    var again = catchUp(kit, hour(8), hour(9));
    assertEquals(List.of(Decision.DUPLICATE, Decision.DUPLICATE), decisions(again));
    assertTrue(again.events().isEmpty());
  }

  @Test
  @DisplayName("R7: a paused task records each caught-up window as SKIPPED (PAUSED)")
  void paused() {
    var kit = kit(CatchUpPolicy.all());
    assertTrue(kit.<StatusReply<Done>>runCommand(TaskProtocol.Pause::new).reply().isSuccess());
    var r = catchUp(kit, hour(9), hour(10));
    assertEquals(List.of(Decision.SKIPPED, Decision.SKIPPED), decisions(r));
    assertEquals(SkipReason.PAUSED, ((TaskJournal.WindowsSkipped) r.events().get(0)).skipReason());
  }

  @Test
  @DisplayName("R33: a window not yet due, or an empty catch-up, is refused naming it; nothing of the batch is persisted")
  void refusedWhole() {
    var kit = kit(CatchUpPolicy.none());
    DueFire future = new DueFire(WindowKey.of("2026-11-29T18:00:00Z"), Instant.parse("2026-11-29T18:00:00Z"),
        Instant.parse("2026-11-29T19:00:00Z"), Instant.parse("2026-11-29T18:00:00Z"));
    var r = catchUp(kit, hour(9), future);
    assertTrue(r.reply().isError());
    assertTrue(r.reply().getError().getMessage().contains("2026-11-29T18:00:00Z"), r.reply().getError().getMessage());
    assertTrue(r.events().isEmpty());
    var empty = kit.<StatusReply<CatchUpOutcome>>runCommand(ref -> new TaskProtocol.CatchUp(List.of(), ref));
    assertTrue(empty.reply().isError());
    assertTrue(empty.reply().getError().getMessage().startsWith("windows '[]' is invalid"), empty.reply().getError().getMessage());
  }
}

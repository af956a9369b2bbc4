package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** R25/R32: the watchdog raises one alert when the trigger stops and one when it is back. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WatchdogTest {
  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("R32: TRIGGER_STALLED once when the trigger's last tick is too old, TRIGGER_RECOVERED once when it ticks again")
  void alertsOnStallAndRecovery() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
    List<Alert> alerts = new CopyOnWriteArrayList<>();
    TestProbe<TriggerActor.Command> trigger = testKit.createTestProbe();
    testKit.spawn(Watchdog.create(trigger.getRef(), alerts::add, clock, Duration.ofMillis(50), Duration.ofSeconds(60)));
    Instant lastTick = clock.instant();
    for (int round = 0; round < 6; round++) {
      if (round == 2) {
        clock.set(lastTick.plusSeconds(120)); // the trigger has not ticked for 2 minutes
      }
      if (round == 4) {
        lastTick = clock.instant(); // it ticks again
      }
      TriggerActor.GetStatus ask = (TriggerActor.GetStatus) trigger.expectMessageClass(TriggerActor.GetStatus.class);
      ask.replyTo().tell(new TriggerActor.TriggerStatus(1, 1, 0, lastTick, lastTick, "t", lastTick, 1, List.of("t")));
    }
    trigger.expectMessageClass(TriggerActor.GetStatus.class);
    assertEquals(List.of(Alert.Kind.TRIGGER_STALLED, Alert.Kind.TRIGGER_RECOVERED), alerts.stream().map(Alert::kind).toList());
  }

  /** Spawns a watchdog whose trigger never answers; shuts the node down first if asked; returns its alerts. */
  private static List<Alert.Kind> unansweredChecks(boolean shuttingDown) {
    ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString(String.join("\n",
        "pekko.coordinated-shutdown.terminate-actor-system = off",
        "pekko.coordinated-shutdown.run-by-actor-system-terminate = off")).withFallback(ConfigFactory.load()));
    try {
      if (shuttingDown) {
        CoordinatedShutdown.get(kit.system()).run(CoordinatedShutdown.unknownReason());
      }
      List<Alert> alerts = new CopyOnWriteArrayList<>();
      TestProbe<TriggerActor.Command> trigger = kit.createTestProbe();
      SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
      kit.spawn(Watchdog.create(trigger.getRef(), alerts::add, clock, Duration.ofMillis(50), Duration.ofMillis(100)));
      // eight checks, none answered: the first five asks have timed out by the eighth check
      for (int i = 0; i < 8; i++) {
        trigger.expectMessageClass(TriggerActor.GetStatus.class);
      }
      return alerts.stream().map(Alert::kind).toList();
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("R32: a trigger that does not answer raises TRIGGER_STALLED once")
  void alertsWhenTheTriggerDoesNotAnswer() {
    assertEquals(List.of(Alert.Kind.TRIGGER_STALLED), unansweredChecks(false));
  }

  @Test
  @DisplayName("R32: no TRIGGER_STALLED while the node shuts down: its trigger proxy stops with it")
  void quietWhileTheNodeShutsDown() {
    assertEquals(List.of(), unansweredChecks(true));
  }
}

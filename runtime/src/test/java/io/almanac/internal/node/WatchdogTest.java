package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
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

  /** Answers each check with the trigger's tick count; the monotonic clock advances 10 s per check. */
  private List<Alert.Kind> run(SettableClock clock, java.util.function.IntFunction<Long> ticksAt, java.util.function.IntConsumer before,
      int rounds) {
    List<Alert> alerts = new CopyOnWriteArrayList<>();
    AtomicLong nanos = new AtomicLong();
    TestProbe<TriggerProtocol.Command> trigger = testKit.createTestProbe();
    testKit.spawn(Watchdog.create(trigger.getRef(), alerts::add, clock, Duration.ofMillis(50), Duration.ofSeconds(60),
        nanos::get));
    for (int round = 0; round < rounds; round++) {
      before.accept(round);
      nanos.addAndGet(Duration.ofSeconds(10).toNanos());
      TriggerProtocol.GetStatus ask = (TriggerProtocol.GetStatus) trigger.expectMessageClass(TriggerProtocol.GetStatus.class);
      Instant t = clock.instant();
      ask.replyTo().tell(new TriggerProtocol.TriggerStatus(1, 1, 0, t, t, "t", t, 1, List.of("t"), ticksAt.apply(round)));
    }
    trigger.expectMessageClass(TriggerProtocol.GetStatus.class);
    trigger.expectMessageClass(TriggerProtocol.GetStatus.class);
    return alerts.stream().map(Alert::kind).toList();
  }

  @Test
  @DisplayName("R32: TRIGGER_STALLED once when the trigger makes no progress for longer than the limit, TRIGGER_RECOVERED "
      + "once when it ticks again")
  void alertsOnStallAndRecovery() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
    // ticks 1..3, then stuck at 3 for 9 checks (90 s > 60 s), then ticking again
    List<Alert.Kind> kinds = run(clock, round -> (long) (round < 3 ? round + 1 : round < 12 ? 3 : round), round -> { }, 15);
    assertEquals(List.of(Alert.Kind.TRIGGER_STALLED, Alert.Kind.TRIGGER_RECOVERED), kinds);
  }

  @Test
  @DisplayName("R32: a wall-clock step forward by 25 h while the trigger keeps ticking raises no TRIGGER_STALLED")
  void clockStepIsNoStall() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
    List<Alert.Kind> kinds = run(clock, round -> (long) round + 1,
        round -> {
          if (round == 3) {
            clock.set(clock.instant().plus(Duration.ofHours(25)));
          }
        }, 8);
    assertEquals(List.of(), kinds);
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
      TestProbe<TriggerProtocol.Command> trigger = kit.createTestProbe();
      SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
      kit.spawn(Watchdog.create(trigger.getRef(), alerts::add, clock, Duration.ofMillis(50), Duration.ofMillis(100)));
      // eight checks, none answered: the first five asks have timed out by the eighth check
      for (int i = 0; i < 8; i++) {
        trigger.expectMessageClass(TriggerProtocol.GetStatus.class);
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

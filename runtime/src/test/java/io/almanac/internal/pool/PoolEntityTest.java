package io.almanac.internal.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.PoolWaitReason;
import io.almanac.journal.PoolJournal;
import io.almanac.journal.PoolState;
import io.almanac.spi.PoolStore;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A pool's entity decides with its journal's fold and persists before it answers (the testkit also
 * checks that every command, event, reply and the state serialize): limits across nodes, a rate of N
 * per period, holds that expire without renewal, a node's next life freeing its earlier holds, a
 * refusal and a read that write nothing, budgets with audited raises, and the state after a restart.
 */
@ExtendWith(TestKitJUnit5Extension.class)
class PoolEntityTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);
  private final SettableClock clock = new SettableClock(T0);
  private EventSourcedBehaviorTestKit<PoolProtocol.Command, PoolJournal.Event, PoolState> kit;

  @BeforeEach
  void start() {
    kit = EventSourcedBehaviorTestKit.create(testKit.system(), PoolEntity.create("llm", clock));
  }

  private void declare(int max, int permits, Duration per, String node, String incarnation) {
    kit.<Done>runCommand(r -> new PoolProtocol.Declare(new PoolStore.Limit("llm", max, permits, per), node, incarnation, r));
  }

  private CommandResultWithReply<PoolProtocol.Command, PoolJournal.Event, PoolState, PoolProtocol.Answered> acquire(
      String task, String node, String incarnation) {
    return kit.runCommand(r -> new PoolProtocol.Acquire(task, "w1", node, incarnation, null, TTL, r));
  }

  @Test
  @DisplayName("max-concurrent holds across nodes: the third is refused FULL without a write, a release makes room")
  void maxConcurrentAcrossNodes() {
    declare(2, 0, null, "n1", "i1");
    assertTrue(acquire("a", "n1", "i1").reply().answer().admitted());
    var b = acquire("b", "n2", "j1");
    assertTrue(b.reply().answer().admitted());
    assertInstanceOf(PoolJournal.HoldAcquired.class, b.event());
    var c = acquire("c", "n1", "i1");
    assertFalse(c.reply().answer().admitted());
    assertEquals(PoolWaitReason.FULL, c.reply().answer().reason());
    assertTrue(c.hasNoEvents(), "a refusal writes nothing");
    // another node cannot free n1's hold
    assertTrue(kit.<Done>runCommand(r -> new PoolProtocol.Release("a", "w1", "n2", r)).hasNoEvents());
    assertInstanceOf(PoolJournal.HoldReleased.class,
        kit.<Done>runCommand(r -> new PoolProtocol.Release("a", "w1", "n1", r)).event());
    assertTrue(acquire("c", "n1", "i1").reply().answer().admitted());
    assertTrue(acquire("c", "n1", "i1").hasNoEvents(), "asked again after a lost answer: admitted, nothing written");
  }

  @Test
  @DisplayName("a rate of 2 per minute: the third start waits until a minute after the first, also after releases")
  void rateIsASlidingWindow() {
    declare(10, 2, Duration.ofMinutes(1), "n1", "i1");
    assertTrue(acquire("a", "n1", "i1").reply().answer().admitted());
    clock.set(T0.plusSeconds(10));
    assertTrue(acquire("b", "n1", "i1").reply().answer().admitted());
    kit.<Done>runCommand(r -> new PoolProtocol.Release("a", "w1", "n1", r));
    clock.set(T0.plusSeconds(20));
    var c = acquire("c", "n1", "i1").reply().answer();
    assertEquals(PoolWaitReason.RATE, c.reason());
    assertEquals(Duration.ofSeconds(40).plusMillis(1), c.retryAfter());
    clock.set(T0.plusSeconds(61));
    assertTrue(acquire("c", "n1", "i1").reply().answer().admitted());
    assertEquals(2, kit.getState().starts().size(), "only the rate's N latest starts are kept");
  }

  @Test
  @DisplayName("holds stop counting hold-ttl after the last renewal; a renewal keeps them, and one without holds writes "
      + "nothing")
  void holdsExpireWithoutRenewal() {
    declare(1, 0, null, "n1", "i1");
    assertTrue(acquire("a", "n1", "i1").reply().answer().admitted());
    clock.set(T0.plusSeconds(20));
    assertInstanceOf(PoolJournal.HoldsRenewed.class,
        kit.<Done>runCommand(r -> new PoolProtocol.Renew("n1", "i1", TTL, r)).event());
    clock.set(T0.plusSeconds(45)); // 25 s after the renewal: still held
    assertEquals(PoolWaitReason.FULL, acquire("b", "n2", "j1").reply().answer().reason());
    assertTrue(kit.<Done>runCommand(r -> new PoolProtocol.Renew("n2", "j1", TTL, r)).hasNoEvents());
    clock.set(T0.plusSeconds(50)); // 30 s after it: n1 died (kill -9), its hold no longer counts
    assertEquals(0, kit.<PoolProtocol.LiveHolds>runCommand(PoolProtocol.GetLiveHolds::new).reply().count());
    assertTrue(acquire("b", "n2", "j1").reply().answer().admitted());
    assertEquals(1, kit.getState().holds().size(), "the expired hold is dropped from the state");
  }

  @Test
  @DisplayName("a node's next life frees its earlier holds when it declares; other nodes' holds stay")
  void nextLifeFreesEarlierHolds() {
    declare(3, 0, null, "n1", "i1");
    acquire("a", "n1", "i1");
    acquire("b", "n2", "j1");
    var again = kit.<Done>runCommand(r -> new PoolProtocol.Declare(new PoolStore.Limit("llm", 3, 0, null), "n1", "i2", r));
    assertInstanceOf(PoolJournal.PoolDeclared.class, again.event());
    assertEquals(java.util.Set.of("b|w1"), kit.getState().holds().keySet());
    assertTrue(kit.<Done>runCommand(r -> new PoolProtocol.Declare(new PoolStore.Limit("llm", 3, 0, null), "n2", "j1", r))
        .hasNoEvents(), "the same limits and no earlier life: nothing written");
  }

  @Test
  @DisplayName("a spent budget refuses BUDGET with its day; a raise is journaled with who and why and makes room; "
      + "the state survives a restart")
  void budgetsAndRestart() {
    declare(5, 0, null, "n1", "i1");
    LocalDate day = LocalDate.of(2026, 12, 6);
    kit.<Done>runCommand(r -> new PoolProtocol.AddUsage(day, 2_000_000, r));
    PoolStore.Budget budget = new PoolStore.Budget(day, 2_000_000);
    var spent = kit.<PoolProtocol.Answered>runCommand(r -> new PoolProtocol.Acquire("a", "w1", "n1", "i1", budget, TTL, r));
    assertEquals(PoolWaitReason.BUDGET, spent.reply().answer().reason());
    assertEquals(2_000_000, spent.reply().answer().day().costMicros());
    var raised = kit.<PoolProtocol.DayIs>runCommand(r -> new PoolProtocol.RaiseBudget(day, 500_000, "alice", "quarter end", r));
    assertEquals(new PoolJournal.PoolBudgetRaised("llm", day, 500_000, "alice", "quarter end", T0), raised.event());
    assertEquals(500_000, raised.reply().day().raisedMicros());
    assertTrue(kit.<PoolProtocol.Answered>runCommand(r -> new PoolProtocol.Acquire("a", "w1", "n1", "i1", budget, TTL, r))
        .reply().answer().admitted());
    kit.<Done>runCommand(r -> new PoolProtocol.Pause(Duration.ofMinutes(1), r));
    PoolState before = kit.getState();
    kit.restart();
    assertEquals(before, kit.getState());
    assertEquals(PoolWaitReason.PAUSED, acquire("b", "n1", "i1").reply().answer().reason());
  }

  @Test
  @DisplayName("a batch of asks is decided in order on what each admission leaves, and written in one write")
  void batchInOneWrite() {
    declare(2, 2, Duration.ofMinutes(1), "n1", "i1");
    var r = kit.<PoolProtocol.AnsweredAll>runCommand(ref -> new PoolProtocol.AcquireAll(java.util.List.of(
        new PoolProtocol.Ask("a", "w1", null), new PoolProtocol.Ask("b", "w1", null), new PoolProtocol.Ask("c", "w1", null)),
        "n1", "i1", TTL, ref));
    assertEquals(java.util.List.of(true, true, false),
        r.reply().answers().stream().map(PoolStore.Answer::admitted).toList());
    assertEquals(PoolWaitReason.FULL, r.reply().answers().get(2).reason());
    assertEquals(2, r.events().size(), "the two admissions, written together");
    assertEquals(2, kit.getState().liveHolds(T0));
    var none = kit.<PoolProtocol.AnsweredAll>runCommand(ref -> new PoolProtocol.AcquireAll(java.util.List.of(
        new PoolProtocol.Ask("a", "w1", null), new PoolProtocol.Ask("d", "w1", null)), "n1", "i1", TTL, ref));
    assertEquals(java.util.List.of(true, false), none.reply().answers().stream().map(PoolStore.Answer::admitted).toList());
    assertTrue(none.hasNoEvents(), "a repeated ask and a refusal write nothing");
  }

  @Test
  @DisplayName("the holds that count are listed with their node and since when (the nodes page); an expired one is not, "
      + "and a read writes nothing")
  void holdsAreListedWithSince() {
    declare(2, 0, null, "n1", "i1");
    acquire("a", "n1", "i1");
    clock.set(T0.plusSeconds(5));
    acquire("b", "n2", "j1");
    clock.set(T0.plusSeconds(31)); // a's hold (taken at T0, ttl 30 s) stopped counting
    var listed = kit.<PoolProtocol.Holds>runCommand(PoolProtocol.GetHolds::new);
    assertTrue(listed.hasNoEvents());
    assertEquals(java.util.List.of(new PoolState.Hold("b", "w1", "n2", "j1", T0.plusSeconds(35), T0.plusSeconds(5))),
        listed.reply().holds());
  }
}

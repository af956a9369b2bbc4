package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Condition;
import io.almanac.InstanceStatus;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.meter.SkipSummary;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.GateChecked;
import io.almanac.internal.protocol.TaskProtocol.GetUpstreamReport;
import io.almanac.internal.protocol.TaskProtocol.UpstreamReport;
import io.almanac.journal.SpecRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The gate probe, the task entity's child that does the I/O of gate checks (R9): it asks the
 * upstream tasks within the configured timeout, polls the condition on the blocking dispatcher within
 * its own, and reports one GateChecked per check; a condition call that outlived its timeout keeps
 * its slot until it returns. The test plays the entity and the upstream tasks with probes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GateProbeTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static TaskEnv env(Function<String, Condition> conditions, Function<String, RecipientRef<TaskProtocol.Command>> tasks) {
    return new TaskEnv(null, null, a -> { }, id -> ExecutorLiveness.State.RUNS, Duration.ofSeconds(1), 0, NodeMeters.NONE,
        conditions, tasks, new SkipSummary());
  }

  private static SpecRecord.Condition condition(String name, Duration timeout) {
    return new SpecRecord.Condition(name, Duration.ofMinutes(1), timeout, 1, Duration.ZERO, null);
  }

  private static GateProbe.Check check(List<String> upstream, SpecRecord.Condition condition) {
    return new GateProbe.Check("2026-11-29", T0, T0.plus(Duration.ofDays(1)), upstream, condition, 1);
  }

  private ActorRef<GateProbe.Command> probe(TaskEnv env, Duration askTimeout, TestProbe<TaskProtocol.Command> entity) {
    return testKit.spawn(GateProbe.create("dependent", env, askTimeout, entity.getRef()));
  }

  private static GateChecked checked(TestProbe<TaskProtocol.Command> entity) {
    return (GateChecked) entity.expectMessageClass(GateChecked.class, WAIT);
  }

  @Test
  @DisplayName("R9: each upstream's report, or why it is absent, comes back in one GateChecked")
  void reportsEachUpstream() {
    TestProbe<TaskProtocol.Command> up = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> entity = testKit.createTestProbe();
    var probe = probe(env(name -> null, id -> up.getRef()), WAIT, entity);
    probe.tell(check(List.of("a", "b"), null));
    for (int i = 0; i < 2; i++) {
      GetUpstreamReport ask = up.expectMessageClass(GetUpstreamReport.class, WAIT);
      assertEquals("2026-11-29", ask.key());
      if (i == 0) {
        ask.replyTo().tell(StatusReply.success(new UpstreamReport("a", true, List.of(new TaskProtocol.UpstreamWindow(
            "2026-11-29", T0, T0.plus(Duration.ofDays(1)), InstanceStatus.SUCCEEDED, T0)), List.of())));
      } else {
        ask.replyTo().tell(StatusReply.error("cannot list its windows"));
      }
    }
    GateChecked c = checked(entity);
    assertEquals(1, c.upstream().size());
    assertEquals(1, c.upstreamErrors().size());
    assertEquals("cannot list its windows", c.upstreamErrors().values().iterator().next());
    assertNull(c.conditionHolds());
    assertNull(c.conditionError());
  }

  @Test
  @DisplayName("R9: an upstream that does not answer within almanac.task.upstream-ask-timeout is reported as absent")
  void upstreamAskTimesOutAtTheSetting() {
    TestProbe<TaskProtocol.Command> up = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> entity = testKit.createTestProbe();
    var probe = probe(env(name -> null, id -> up.getRef()), Duration.ofMillis(200), entity);
    probe.tell(check(List.of("a"), null));
    up.expectMessageClass(GetUpstreamReport.class, WAIT);
    GateChecked c = checked(entity);
    assertEquals(Map.of(), c.upstream());
    assertTrue(c.upstreamErrors().get("a").contains("200"), c.upstreamErrors().toString());
  }

  @Test
  @DisplayName("R9: without a route to other tasks, every upstream is reported absent")
  void noRouteToOtherTasks() {
    TestProbe<TaskProtocol.Command> entity = testKit.createTestProbe();
    var probe = probe(env(name -> null, null), WAIT, entity);
    probe.tell(check(List.of("a"), null));
    assertEquals("no route to other tasks on this node", checked(entity).upstreamErrors().get("a"));
  }

  @Test
  @DisplayName("R9: a condition's answer is reported; an unregistered one is an error naming it")
  void pollsTheCondition() {
    TestProbe<TaskProtocol.Command> entity = testKit.createTestProbe();
    Condition holds = ctx -> CompletableFuture.completedFuture(ctx.poll() == 1);
    var probe = probe(env(name -> name.equals("ready") ? holds : null, null), WAIT, entity);
    probe.tell(check(null, condition("ready", WAIT)));
    GateChecked c = checked(entity);
    assertEquals(Boolean.TRUE, c.conditionHolds());
    assertNull(c.upstream());
    probe.tell(check(null, condition("missing", WAIT)));
    assertEquals("java.lang.IllegalStateException: condition 'missing' is not registered on this node",
        checked(entity).conditionError());
  }

  @Test
  @DisplayName("R9: a condition call past its timeout is reported timed out and keeps its slot until it returns: "
      + "no second call runs beside it")
  void conditionTimeoutKeepsTheCallSlot() throws Exception {
    TestProbe<TaskProtocol.Command> entity = testKit.createTestProbe();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    Condition stuck = ctx -> {
      if (ctx.poll() == 1) {
        entered.countDown();
        release.await(30, TimeUnit.SECONDS);
      }
      return CompletableFuture.completedFuture(true);
    };
    var probe = probe(env(name -> stuck, null), WAIT, entity);
    SpecRecord.Condition c = condition("slow", Duration.ofMillis(200));
    probe.tell(check(null, c));
    assertTrue(entered.await(10, TimeUnit.SECONDS));
    assertEquals("timed out after PT0.2S", checked(entity).conditionError());
    probe.tell(new GateProbe.Check("2026-11-29", T0, T0.plus(Duration.ofDays(1)), null, c, 2));
    assertEquals("java.lang.IllegalStateException: the previous poll of condition 'slow' has not returned yet",
        checked(entity).conditionError());
    release.countDown();
    // once the stuck call returned, the next poll runs (asked again until the probe has seen it return)
    GateChecked next;
    do {
      probe.tell(new GateProbe.Check("2026-11-29", T0, T0.plus(Duration.ofDays(1)), null, c, 3));
      next = checked(entity);
    } while (next.conditionError() != null && next.conditionError().contains("has not returned yet"));
    assertEquals(Boolean.TRUE, next.conditionHolds());
  }
}

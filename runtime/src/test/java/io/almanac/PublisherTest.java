package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.internal.node.PublishGate;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every way a publish fails (R9, principle 6), each with a trigger and tasks that answer as the test
 * says (probes; a silent one stands for a node too loaded to answer): a failure under load is an
 * {@link OverloadedException} (nothing was stored, and that is known) or a {@link
 * PublishOutcomeUnknownException} (sent, not every answer came), never a plain {@link AlmanacException};
 * and each slot the gate took is given back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PublisherTest {
  /** Short, so that a silent probe's timeout comes soon; the tests wait for it with generous deadlines. */
  private static final Duration ASK = Duration.ofMillis(300);
  private static final Duration RETRY_AFTER = Duration.ofSeconds(3);
  private static final Instant AT = Instant.parse("2026-11-28T23:00:00Z");

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** A trigger probe, task probes by id, and a publisher over them. */
  private final class Rig {
    final TestProbe<TriggerProtocol.Command> trigger = testKit.createTestProbe();
    final Map<String, TestProbe<TaskProtocol.Command>> tasks = new HashMap<>();
    final PublishGate gate;
    final Publisher publisher;

    Rig(int limit, String... taskIds) {
      this(ASK, limit, taskIds);
    }

    Rig(Duration ask, int limit, String... taskIds) {
      for (String id : taskIds) {
        tasks.put(id, testKit.createTestProbe());
      }
      gate = new PublishGate(limit);
      publisher = new Publisher(gate, RETRY_AFTER, trigger.ref(), this::task, ask, testKit.system().scheduler());
    }

    RecipientRef<TaskProtocol.Command> task(String id) {
      TestProbe<TaskProtocol.Command> p = tasks.get(id);
      if (p == null) {
        throw new IllegalStateException("no entity for task '" + id + "' (sharding refused the reference)");
      }
      return p.ref();
    }

    /** The trigger's request, answered with the listeners. */
    void listeners(List<String> taskIds, List<String> byEventTime) {
      trigger.expectMessageClass(TriggerProtocol.Subscribers.class, Duration.ofSeconds(30)).replyTo()
          .tell(new TriggerProtocol.SubscriberList(taskIds, byEventTime));
    }

    TaskProtocol.PublishEvent received(String taskId) {
      return tasks.get(taskId).expectMessageClass(TaskProtocol.PublishEvent.class, Duration.ofSeconds(30));
    }

    void noneReceived() {
      tasks.values().forEach(p -> p.expectNoMessage(Duration.ofMillis(100)));
    }

    void allSlotsFree() {
      tasks.keySet().forEach(id -> assertEquals(0, gate.pending(id), "slots of " + id));
    }
  }

  private static Throwable failure(CompletableFuture<PublishResult> publish) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> publish.get(60, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static TaskProtocol.EventOutcome scheduled(String window) {
    return new TaskProtocol.EventOutcome(window, PublishResult.Outcome.SCHEDULED, "created");
  }

  @Test
  @DisplayName("R9: a trigger that does not answer: OverloadedException naming no task, saying nothing was stored "
      + "(the event went to no task), with the retry-after; no task was sent anything")
  void silentTriggerIsOverloadedAndStoredNothing() {
    Rig rig = new Rig(10, "a");
    CompletableFuture<PublishResult> publish = rig.publisher.publish(IncomingEvent.of("paid", "e1").withEventTime(AT));
    rig.trigger.expectMessageClass(TriggerProtocol.Subscribers.class, Duration.ofSeconds(30)); // asked, never answers
    OverloadedException o = assertInstanceOf(OverloadedException.class, failure(publish));
    assertNull(o.taskId());
    assertEquals(RETRY_AFTER, o.retryAfter());
    assertTrue(o.getMessage().contains("no answer from the trigger within " + ASK) && o.getMessage().contains(
        "nothing was stored") && o.getMessage().contains("'paid'"), o.getMessage());
    rig.noneReceived();
    rig.allSlotsFree();
  }

  @Test
  @DisplayName("principle 6: a task whose queue is full: OverloadedException naming it, at once (the trigger not even asked "
      + "once the gate knows the listeners), nothing sent to any task")
  void fullTaskIsOverloadedBeforeAnythingIsSent() throws Exception {
    Rig rig = new Rig(Duration.ofSeconds(60), 1, "a", "b"); // answers come when the test sends them
    CompletableFuture<PublishResult> first = rig.publisher.publish(IncomingEvent.of("paid", "e1").withEventTime(AT));
    rig.listeners(List.of("a", "b"), List.of());
    TaskProtocol.PublishEvent held = rig.received("a"); // 'a' holds its answer: its one slot stays taken
    rig.received("b").replyTo().tell(StatusReply.success(scheduled("w")));

    // the gate knows the listeners now: refused before the trigger is asked
    OverloadedException early = assertInstanceOf(OverloadedException.class,
        failure(rig.publisher.publish(IncomingEvent.of("paid", "e2").withEventTime(AT))));
    assertEquals("a", early.taskId());
    rig.trigger.expectNoMessage(Duration.ofMillis(100));

    // a type the gate has not seen yet goes to the trigger; its listener 'a' is full: refused before any send
    CompletableFuture<PublishResult> other = rig.publisher.publish(IncomingEvent.of("refunded", "e3").withEventTime(AT));
    rig.listeners(List.of("b", "a"), List.of());
    OverloadedException late = assertInstanceOf(OverloadedException.class, failure(other));
    assertEquals("a", late.taskId());
    assertTrue(late.getMessage().contains("nothing was stored"), late.getMessage());
    rig.noneReceived();
    assertEquals(0, rig.gate.pending("b"), "the slot taken in 'b' was given back");

    held.replyTo().tell(StatusReply.success(scheduled("w")));
    assertEquals(2, first.get(60, TimeUnit.SECONDS).tasks().size());
    rig.allSlotsFree();
  }

  @Test
  @DisplayName("R9: a task that does not answer after the event was sent to it: PublishOutcomeUnknownException naming it "
      + "(not 'nothing was stored'), the tasks that answered listed; every slot given back")
  void silentTaskIsOutcomeUnknown() {
    Rig rig = new Rig(10, "a", "b");
    CompletableFuture<PublishResult> publish = rig.publisher.publish(IncomingEvent.of("paid", "e1").withEventTime(AT));
    rig.listeners(List.of("a", "b"), List.of());
    rig.received("a").replyTo().tell(StatusReply.success(scheduled("w1")));
    rig.received("b"); // never answers
    PublishOutcomeUnknownException u = assertInstanceOf(PublishOutcomeUnknownException.class, failure(publish));
    assertEquals(List.of("b"), u.unanswered());
    assertEquals(List.of("a"), u.answered().stream().map(PublishResult.TaskOutcome::taskId).toList());
    assertTrue(!u.getMessage().contains("nothing was stored") && u.getMessage().contains("publish it again with the same id"),
        u.getMessage());
    rig.allSlotsFree();
  }

  @Test
  @DisplayName("R9: a task the event could not be sent to (its reference failed): PublishOutcomeUnknownException, the "
      + "others still asked, every slot given back")
  void unsendableTaskIsOutcomeUnknown() throws Exception {
    Rig rig = new Rig(10, "a");
    CompletableFuture<PublishResult> publish = rig.publisher.publish(IncomingEvent.of("paid", "e1").withEventTime(AT));
    rig.listeners(List.of("a", "gone"), List.of());
    rig.received("a").replyTo().tell(StatusReply.success(scheduled("w1")));
    PublishOutcomeUnknownException u = assertInstanceOf(PublishOutcomeUnknownException.class, failure(publish));
    assertEquals(List.of("gone"), u.unanswered());
    rig.allSlotsFree();
    assertEquals(0, rig.gate.pending("gone"));
  }

  @Test
  @DisplayName("R9: refusals of the event itself stay refusals (no listener: UNKNOWN_EVENT_TYPE; no event time for a task "
      + "that maps by it: eventTime; a task's refusal), and a publish every task answers succeeds")
  void refusalsAndSuccess() throws Exception {
    Rig rig = new Rig(10, "a", "b");
    CompletableFuture<PublishResult> nobody = rig.publisher.publish(IncomingEvent.of("paid", "e1").withEventTime(AT));
    rig.listeners(List.of(), List.of());
    assertEquals(RefusedException.Reason.UNKNOWN_EVENT_TYPE,
        assertInstanceOf(RefusedException.class, failure(nobody)).reason());

    CompletableFuture<PublishResult> noTime = rig.publisher.publish(IncomingEvent.of("paid", "e2"));
    rig.listeners(List.of("a"), List.of("a"));
    assertEquals("eventTime", assertInstanceOf(InvalidSpecException.class, failure(noTime)).field());
    rig.noneReceived();

    CompletableFuture<PublishResult> refused = rig.publisher.publish(IncomingEvent.of("paid", "e3").withEventTime(AT));
    rig.listeners(List.of("a", "b"), List.of());
    rig.received("a").replyTo().tell(StatusReply.error(new RefusedException(RefusedException.Reason.SCHEDULE_FAILED,
        "task 'a' cannot map the event to a window")));
    rig.received("b").replyTo().tell(StatusReply.success(scheduled("w")));
    RefusedException r = assertInstanceOf(RefusedException.class, failure(refused));
    assertTrue(r.getMessage().contains("b recorded the event"), r.getMessage());

    CompletableFuture<PublishResult> ok = rig.publisher.publish(IncomingEvent.of("paid", "e4").withEventTime(AT));
    rig.listeners(List.of("a"), List.of());
    TaskProtocol.PublishEvent sent = rig.received("a");
    assertEquals("e4", sent.eventId());
    sent.replyTo().tell(StatusReply.success(scheduled("w")));
    assertEquals(PublishResult.Outcome.SCHEDULED, ok.get(60, TimeUnit.SECONDS).tasks().get(0).outcome());
    rig.allSlotsFree();
  }
}

package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PublishResult.Outcome;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingResult;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Batch publishing on a node (R9): a call's events reach each listening task in one message and are
 * recorded in one journal write per task, every duplicate recognised (counted writes, as {@link
 * FireCostTest} counts them).
 */
class PublishAllTest {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private ActorTestKit testKit;
  private final Map<String, long[]> writes = new ConcurrentHashMap<>();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private Almanac start(SettableClock clock) {
    testKit = ActorTestKit.create("publish-all", AlmanacNodeTest.config(""));
    PersistenceTestKit.create(testKit.system()).withPolicy((String pid, JournalOperation op) -> {
      if (op instanceof WriteEvents w) {
        long[] c = writes.computeIfAbsent(pid, k -> new long[2]);
        synchronized (c) {
          c[0]++;
          c[1] += w.getBatch().size();
        }
      }
      return (ProcessingResult) ProcessingSuccess$.MODULE$;
    });
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("noop", ctx -> CompletableFuture.completedFuture(JobResult.success("ok"))).start();
    NodeReady.await(almanac);
    return almanac;
  }

  private long writesOf(String pid) {
    long[] c = writes.getOrDefault(pid, new long[2]);
    synchronized (c) {
      return c[0];
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS).join();
  }

  @Test
  @DisplayName("R9: 1,000 events in one call are one journal write per listening task; duplicates inside the batch and "
      + "against history are recognised, in order")
  void oneWritePerTask() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T10:15:00Z"));
    Almanac almanac = start(clock);
    for (String id : List.of("sync", "audit")) {
      await(almanac.register(TaskSpec.builder(id).onEvent(EventTrigger.of("order.paid").byArrivalTime()).zone("UTC")
          .window("daily").job("noop").build()));
      await(almanac.pause(id)); // no attempt runs: the tasks' journals hold only what the publishes write
    }
    // history: 50 events published one by one
    for (int i = 0; i < 50; i++) {
      await(almanac.publish(IncomingEvent.of("order.paid", "e" + i)));
    }
    long syncBefore = writesOf("task|sync");
    long auditBefore = writesOf("task|audit");
    // 1,000 events, 700 distinct ids: e0..e49 are known, e0..e299 come twice
    List<IncomingEvent> batch = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      batch.add(IncomingEvent.of("order.paid", "e" + (i % 700)).withSummary("n" + i));
    }
    List<PublishResult> results = await(almanac.publishAll(batch));
    assertEquals(1, writesOf("task|sync") - syncBefore, "journal writes of the batch by task sync");
    assertEquals(1, writesOf("task|audit") - auditBefore, "journal writes of the batch by task audit");
    assertEquals(1_000, results.size());
    Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    for (int i = 0; i < results.size(); i++) {
      PublishResult r = results.get(i);
      assertEquals("e" + (i % 700), r.id(), "results in the batch's order");
      assertEquals(2, r.tasks().size());
      Outcome expected = i < 50 || i >= 700 ? Outcome.DUPLICATE : Outcome.COALESCED;
      for (PublishResult.TaskOutcome o : r.tasks()) {
        assertEquals(expected, o.outcome(), "event " + i + " at task " + o.taskId());
        outcomes.merge(o.outcome(), 1, Integer::sum);
      }
    }
    assertEquals(Map.of(Outcome.DUPLICATE, 700, Outcome.COALESCED, 1_300), outcomes);
    // the same batch again: every event a duplicate, still one write per task
    long again = writesOf("task|sync");
    List<PublishResult> twice = await(almanac.publishAll(batch));
    assertTrue(twice.stream().allMatch(r -> r.tasks().stream().allMatch(o -> o.outcome() == Outcome.DUPLICATE)));
    assertEquals(1, writesOf("task|sync") - again);
  }

  @Test
  @DisplayName("R9: a batch with a null element, an invalid event or a type nobody listens to is refused naming it; "
      + "nothing is stored")
  void refusedBatchStoresNothing() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T10:15:00Z"));
    Almanac almanac = start(clock);
    await(almanac.register(TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("daily").job("noop").build()));
    await(almanac.pause("sync")); // no attempt runs: the task's journal holds only what the publishes write
    long paused = writesOf("task|sync");
    Instant t = clock.instant();
    List<IncomingEvent> withNull = new ArrayList<>();
    withNull.add(IncomingEvent.of("order.paid", "a").withEventTime(t));
    withNull.add(null);
    InvalidSpecException e = refusal(InvalidSpecException.class, almanac.publishAll(withNull));
    assertEquals("events[1]", e.field());
    e = refusal(InvalidSpecException.class, almanac.publishAll(null));
    assertEquals("events", e.field());
    e = refusal(InvalidSpecException.class, almanac.publishAll(List.of(IncomingEvent.of("order.paid", "a").withEventTime(t),
        IncomingEvent.of("order.paid", "b").withEventTime(t.plus(Duration.ofDays(2))))));
    assertEquals("events[1].eventTime", e.field());
    // no event time for a task that maps by event time: refused before any task sees the batch
    e = refusal(InvalidSpecException.class, almanac.publishAll(List.of(IncomingEvent.of("order.paid", "a").withEventTime(t),
        IncomingEvent.of("order.paid", "b"))));
    assertEquals("events[1].eventTime", e.field());
    RefusedException r = refusal(RefusedException.class, almanac.publishAll(List.of(
        IncomingEvent.of("order.paid", "a").withEventTime(t), IncomingEvent.of("nobody.listens", "b"))));
    assertEquals(RefusedException.Reason.UNKNOWN_EVENT_TYPE, r.reason());
    assertEquals(paused, writesOf("task|sync"), "nothing stored");
    assertEquals(List.of(), await(almanac.publishAll(List.of())));
    // and a good batch afterwards: "a" is new (nothing of the refused batches was stored)
    List<PublishResult> ok = await(almanac.publishAll(List.of(IncomingEvent.of("order.paid", "a").withEventTime(t),
        IncomingEvent.of("order.paid", "a").withEventTime(t))));
    assertTrue(ok.get(0).tasks().get(0).outcome() != Outcome.DUPLICATE, "the first 'a': " + ok.get(0));
    assertEquals(Outcome.DUPLICATE, ok.get(1).tasks().get(0).outcome());
    assertEquals(paused + 1, writesOf("task|sync"));
  }

  private static <X extends Throwable> X refusal(Class<X> type, CompletionStage<?> stage) {
    CompletionException e = assertThrows(CompletionException.class, () -> await(stage));
    return assertInstanceOf(type, e.getCause());
  }
}

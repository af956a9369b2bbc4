package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link Almanac#as(String)}: each operator action records who acted (and the note) in the task's
 * journal; the plain methods record {@value Almanac#DEFAULT_ACTOR}. A one-node Almanac on the
 * in-memory journal; the clock does not move, so nothing fires unless asked.
 */
class OperatorTest {

  private static final Instant NOW = Instant.parse("2026-11-29T00:30:00Z");

  private ActorTestKit testKit;
  private PersistenceTestKit journal;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private Almanac start() {
    testKit = ActorTestKit.create("operator-test", AlmanacNodeTest.config(""));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("block", ctx -> new CompletableFuture<>()).start();
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("block")
        .budgetPerDay(new BigDecimal("5")).build()));
    return almanac;
  }

  private List<TaskJournal.Acted> acted() {
    return journal.persistedInStorage(TaskJournal.persistenceId("digest")).stream()
        .filter(e -> e instanceof TaskJournal.Acted).map(e -> (TaskJournal.Acted) e).toList();
  }

  @Test
  @DisplayName("as(actor) records the actor and the note on pause, resume, run, cancel and raise; the plain methods "
      + "record java-api")
  void actionsRecordTheirActor() {
    Almanac almanac = start();
    Operator alice = almanac.as("alice");
    await(alice.pause("digest", "provider outage"));
    await(alice.resume("digest", null));
    FireDecision run = await(alice.runNow("digest", "catch up"));
    await(almanac.as("bob").cancel("digest", run.window(), "wrong input"));
    await(almanac.raiseBudget("digest", new BigDecimal("1"), "month end"));
    List<TaskJournal.Acted> acted = acted();
    assertEquals(new TaskJournal.TaskPaused(NOW, null, null, "alice", "provider outage"), acted.get(0));
    assertEquals(new TaskJournal.TaskResumed(NOW, "alice", null), acted.get(1));
    TaskJournal.InstanceScheduled scheduled = (TaskJournal.InstanceScheduled) acted.get(2);
    assertEquals(List.of(RunKind.MANUAL, "alice", "catch up"), List.of(scheduled.kind(), scheduled.actor(), scheduled.note()));
    TaskJournal.InstanceCancelled cancelled = (TaskJournal.InstanceCancelled) acted.get(3);
    assertEquals(List.of("bob", "wrong input"), List.of(cancelled.actor(), cancelled.reason()));
    assertEquals(Almanac.DEFAULT_ACTOR, acted.get(4).actor());
    assertEquals(5, acted.size());
  }

  @Test
  @DisplayName("an actor that is not a name is refused naming actor and the value; a note over the bound is refused "
      + "naming note, and nothing is stored")
  void refusals() {
    Almanac almanac = start();
    for (String bad : new String[] {"", "al ice", "a\nb", "x".repeat(65)}) {
      InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> almanac.as(bad));
      assertEquals("actor", e.field(), bad);
    }
    assertThrows(InvalidSpecException.class, () -> almanac.as(null));
    int before = journal.persistedInStorage(TaskJournal.persistenceId("digest")).size();
    Throwable t = assertThrows(java.util.concurrent.CompletionException.class,
        () -> await(almanac.as("alice").pause("digest", "n".repeat(100_000))));
    assertTrue(t.getCause() instanceof RefusedException r && "note".equals(r.field()), String.valueOf(t.getCause()));
    assertEquals(before, journal.persistedInStorage(TaskJournal.persistenceId("digest")).size());
  }
}

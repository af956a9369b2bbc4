package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.journal.LogLine;
import io.almanac.journal.TaskJournal;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** docs/long-jobs/logs.md's example job ({@link LogsExample.BriefJob}) leaves what the page says it does. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogsExampleTest {

  private ActorTestKit node;
  private Almanac almanac;
  private PersistenceTestKit journal;

  @BeforeAll
  void start() {
    node = ActorTestKit.create("logs-example", DashboardOpsTest.inMemoryNode(""));
    journal = PersistenceTestKit.create(node.system());
    almanac = Almanac.builder(node.system()).job("brief", new LogsExample.BriefJob(Duration.ofMillis(5))).start();
    DashboardOpsTest.await(almanac.register(TaskSpec.builder("brief").cron("0 0 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.none()).job("brief").build()));
  }

  @AfterAll
  void stop() {
    node.shutdownTestKit();
  }

  private WindowView window() {
    return DashboardOpsTest.await(almanac.windows("brief")).get(0);
  }

  private void eventually(Runnable check) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  private List<TaskJournal.AttemptLogged> logs() {
    return journal.persistedInStorage(TaskJournal.persistenceId("brief")).stream()
        .filter(e -> e instanceof TaskJournal.AttemptLogged).map(e -> (TaskJournal.AttemptLogged) e).toList();
  }

  @Test
  @DisplayName("attempt 1 logs seven lines and fails with its stack trace; attempt 2 (a retry) logs seven and succeeds")
  void theExamplesJobLogsAndFailsOnce() {
    DashboardOpsTest.await(almanac.runNow("brief"));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window().status()));
    TaskJournal.AttemptLogged first = logs().get(0);
    assertEquals(7, first.lines().size(), first.toString());
    assertTrue(first.lines().get(0).text().startsWith("gathered 14 sources for window "), first.toString());
    assertEquals("section 5 drafted (170 words)", first.lines().get(5).text());
    assertEquals("publish refused: HTTP 409 from cms.example.com", first.lines().get(6).text());
    assertTrue(first.stackTrace().startsWith("java.lang.IllegalStateException: tool 'publish' refused the draft"),
        first.stackTrace());

    DashboardOpsTest.await(almanac.retry("brief", window().window()));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window().status()));
    TaskJournal.AttemptLogged second = logs().get(1);
    assertEquals(2, second.attempt());
    assertEquals("published as a new revision", second.lines().get(6).text());
    assertNull(second.stackTrace());
    assertEquals(List.of(), second.lines().stream().map(LogLine::text).filter(t -> t.contains("refused")).toList());
  }
}

package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code almanac queue --task T}, {@code retry --all --task T [--yes]}, {@code retry TASK --from --to},
 * {@code resolve --all --task T --note N --yes} against a node over HTTP ({@link ApiTestNode}), on task
 * {@code hourly} (fails) with two FINAL_FAILED windows backfilled. In order: each test acts on what the
 * one before left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BulkCliTest {

  static final String TASK = "hourly";
  static final String W21 = "2026-11-28T21:00:00Z";
  static final String W22 = "2026-11-28T22:00:00Z";

  @TempDir static Path dir;
  private ApiTestNode node;

  @BeforeAll
  void start() throws Exception {
    node = ApiTestNode.start("bulk-cli-test", dir);
    ApiTestNode.await(node.almanac.register(TaskSpec.builder(TASK).cron("0 0 * * * ? UTC").window("per-firing")
        .job("fails").build()));
    ApiTestNode.await(node.almanac.backfill(TASK, Instant.parse("2026-11-28T20:00:00Z"), Instant.parse(W22)));
    node.eventuallyStatus(TASK, W21, InstanceStatus.FINAL_FAILED);
    node.eventuallyStatus(TASK, W22, InstanceStatus.FINAL_FAILED);
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private String[] run(String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "--url";
    all[1] = node.base;
    all[2] = "--token";
    all[3] = ApiTestNode.TOKEN;
    System.arraycopy(args, 0, all, 4, args.length);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(all, new PrintWriter(out, true), new PrintWriter(err, true));
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }

  private Map<String, WindowView> windows() {
    return ApiTestNode.await(node.almanac.windows(TASK)).stream().collect(Collectors.toMap(w -> w.window().value(), w -> w));
  }

  /** Moves the clock a few seconds (within the minute): the backlog's token buckets refill for the retries. */
  private void tick(String at) {
    node.clock.set(Instant.parse(at));
  }

  @Test
  @Order(1)
  @DisplayName("queue --task lists that task's FINAL_FAILED windows only")
  void queueOfATask() {
    String[] r = run("queue", "--task", TASK);
    assertEquals("0", r[0], r[2]);
    assertTrue(r[1].contains(W21) && r[1].contains(W22), r[1]);
    assertFalse(r[1].contains(ApiTestNode.BROKEN), "another task's window: " + r[1]);
  }

  @Test
  @Order(2)
  @DisplayName("retry --all --task without --yes is a dry run naming the count; another --expect-count than the queue "
      + "holds is refused (exit 1); nothing changes")
  void dryRunAndWrongCount() {
    String[] dry = run("retry", "--all", "--task", TASK);
    assertEquals("0", dry[0], dry[2]);
    assertTrue(dry[1].contains("the queue of task hourly: 2 windows would be retried (dry run: nothing changed); pass "
        + "--yes"), dry[1]);
    String[] wrong = run("retry", "--all", "--task", TASK, "--yes", "--expect-count", "3");
    assertEquals("1", wrong[0], wrong[1] + wrong[2]);
    assertTrue(wrong[2].contains("holds 2 windows now, not the 3"), wrong[2]);
    windows().values().forEach(w -> assertEquals(1, w.attempt(), w.toString()));
  }

  @Test
  @Order(3)
  @DisplayName("retry --all --task --yes retries the whole filtered queue in one call and says how many")
  void retryAll() {
    tick("2026-11-29T00:01:35Z");
    String[] r = run("retry", "--all", "--task", TASK, "--yes", "--expect-count", "2", "--note", "provider back");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("the queue of task hourly: 2 of 2 windows retried"), r[1]);
    DashboardBrowser.eventually(node.node, () -> windows().values().forEach(w -> {
      assertEquals(2, w.attempt(), w.toString());
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
    }));
  }

  @Test
  @Order(4)
  @DisplayName("retry TASK --from --to --yes retries only the windows due in (from, to]; a status that cannot be "
      + "retried is bad input (exit 2); so are --all with a WINDOW and a range with --all")
  void retryRange() {
    tick("2026-11-29T00:01:40Z");
    String[] r = run("retry", TASK, "--from", "2026-11-28T21:30:00Z", "--to", W22, "--yes");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("task hourly (2026-11-28T21:30:00Z, 2026-11-28T22:00:00Z]: 1 of 1 windows retried"), r[1]);
    DashboardBrowser.eventually(node.node, () -> {
      assertEquals(3, windows().get(W22).attempt());
      assertEquals(InstanceStatus.FINAL_FAILED, windows().get(W22).status());
    });
    assertEquals(2, windows().get(W21).attempt());
    String[] status = run("retry", TASK, "--status", "SUCCEEDED", "--yes");
    assertEquals("2", status[0], status[1] + status[2]);
    assertTrue(status[2].contains("status") && status[2].contains("SUCCEEDED"), status[2]);
    assertEquals("2", run("retry", TASK, W21, "--all")[0]);
    assertEquals("2", run("retry", "--all", "--from", "2026-11-28T21:30:00Z")[0]);
  }

  @Test
  @Order(5)
  @DisplayName("resolve --all --task --yes needs a note (exit 2), then resolves every window of the task's queue")
  void resolveAll() {
    String[] none = run("resolve", "--all", "--task", TASK, "--yes");
    assertEquals("2", none[0], none[1] + none[2]);
    String[] r = run("resolve", "--all", "--task", TASK, "--note", "fixed upstream", "--yes");
    assertEquals("0", r[0], r[1] + r[2]);
    assertTrue(r[1].contains("2 of 2 windows resolved"), r[1]);
    windows().values().forEach(w -> assertEquals(InstanceStatus.RESOLVED, w.status(), w.toString()));
    assertEquals(InstanceStatus.FINAL_FAILED, ApiTestNode.await(node.almanac.windows(ApiTestNode.BROKEN)).get(0).status(),
        "another task's queue is left alone");
  }
}

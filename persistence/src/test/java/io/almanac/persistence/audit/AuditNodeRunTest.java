package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.RetryPolicy;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.audit.AuditTesting.Result;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal written by a real node on an H2 file (time from a SettableClock): five daily windows
 * of 08:00 Asia/Shanghai, one succeeding at once, one after a retry, one failing for good, one
 * skipped while the task is paused, one succeeding after the resume. The node is stopped, then the
 * audit reads the file with no node running: the invariants hold, the timeline shows every event
 * in UTC and Shanghai time, the counts are right, and the JSON and CSV outputs parse.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditNodeRunTest {

  @TempDir static Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;
  private Config journal;

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventuallyStatus(Almanac almanac, String window, InstanceStatus status) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      Map<String, WindowView> byKey = await(almanac.windows("digest")).stream()
          .collect(Collectors.toMap(w -> w.window().value(), w -> w));
      assertEquals(status, byKey.containsKey(window) ? byKey.get(window).status() : null, window);
      return null;
    });
  }

  /** Until the trigger's last event in the journal (its progress, as the audit reads it) is at {@code at} or later. */
  private void eventuallyTriggerProgressAt(Instant at) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      try (AuditReader reader = AuditReader.builder(node.system()).start()) {
        Optional<Instant> last = reader.triggerLastEventAt();
        assertTrue(last.isPresent() && !last.get().isBefore(at),
            "the trigger's last event in the journal is at " + last.map(Instant::toString).orElse("(none)") + ", not yet " + at);
      }
      return null;
    });
  }

  @BeforeAll
  void runANode() throws Exception {
    Path db = dir.resolve("almanac");
    Config config = AuditTesting.config(db, String.join("\n",
        "include \"almanac-embedded.conf\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }"));
    node = ActorTestKit.create("audit-node", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    AgentJob job = ctx -> {
      String w = ctx.window().value();
      boolean fail = w.equals("2026-12-01") || (w.equals("2026-11-30") && ctx.attempt() == 1);
      return CompletableFuture.completedFuture(fail ? JobResult.failure("upstream 503") : JobResult.success("digest " + w));
    };
    Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .retry(RetryPolicy.immediate()).maxRetries(1).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventuallyStatus(almanac, "2026-11-29", InstanceStatus.SUCCEEDED);
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    eventuallyStatus(almanac, "2026-11-30", InstanceStatus.SUCCEEDED);
    clock.set(Instant.parse("2026-12-01T00:00:00Z"));
    eventuallyStatus(almanac, "2026-12-01", InstanceStatus.FINAL_FAILED);
    await(almanac.pause("digest"));
    clock.set(Instant.parse("2026-12-02T00:00:00Z"));
    eventuallyStatus(almanac, "2026-12-02", InstanceStatus.SKIPPED);
    await(almanac.resume("digest"));
    clock.set(Instant.parse("2026-12-03T00:00:00Z"));
    eventuallyStatus(almanac, "2026-12-03", InstanceStatus.SUCCEEDED);
    Instant end = Instant.parse("2026-12-03T00:05:00Z");
    clock.set(end);
    eventuallyTriggerProgressAt(end); // the journal goes on past the grace, so the last window is judged
    node.shutdownTestKit();
    node = null;
    journal = AuditTesting.config(db);
  }

  @AfterAll
  void stopNode() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  @Test
  void verifiesTheNodesJournal() {
    Result r = AuditTesting.audit(journal, AuditRequest.builder().task("digest").from("2026-11-29").to("2026-12-04")
        .verify(true).build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    String out = r.out();
    assertTrue(out.contains("OK: I1-I7 hold"), r.toString());
    assertTrue(out.contains("windows seen                      5 (FINAL_FAILED 1, SKIPPED 1, SUCCEEDED 3)"), r.toString());
    assertTrue(out.contains("I2 every due window accounted for checked 5 due windows until 2026-12-03T00:03:00Z (23 events): 0 lost"),
        r.toString());
    assertTrue(out.contains("attempts                          6: 3 succeeded, 2 retries, 0 late results"), r.toString());
    assertTrue(out.contains("I1 no window succeeds twice       checked 5 windows (23 events): 0 double successes"), r.toString());
    assertTrue(out.contains("I3 no attempt RUNNING past lease  checked 6 attempts of 4 windows (12 events)"), r.toString());
    assertTrue(out.contains("I4 no overlap unless allowed      checked 6 attempts of 4 windows (12 events): 0 overlaps"), r.toString());
    assertTrue(out.contains("open at the end                   none"), r.toString());
    // I5 on a real node's journal: every event in the range names its writer, the node's one incarnation (the
    // spec included: registration writes no entity, the task records its spec with its first fire, in the range)
    assertTrue(out.contains("I5 one writer at a time           checked 1 journal (26 events with a known writer): 0 interleavings"),
        r.toString());
    // I6 on a real node's journal: 6 PENDING spells (4 first runs, 2 retries) of 4 windows, each started when due
    assertTrue(out.contains("I6 none stuck PENDING or WAITING  checked 4 windows (12 events): longest past its bound PT0S"),
        r.toString());
    assertTrue(out.contains("OK: I1-I7 hold (checked 5 due windows, 5 windows with events, 6 attempts, 26 events of 1 journal"
        + " with a known writer)"), r.toString());
    assertTrue(!out.contains("had no writer"), r.toString());
    // the table: every event with its time in UTC and in Shanghai
    assertTrue(out.contains("task 'digest' (zone Asia/Shanghai): "), r.toString());
    assertTrue(out.matches("(?s).*2026-12-02T00:00:00Z  2026-12-02T08:00:00\\+08:00  SkipRangeOpened +2026-12-02 +PAUSED: task is paused.*"),
        r.toString());
    assertTrue(out.contains("InstanceFinalFailed"), r.toString());
    assertTrue(r.err().contains("events of 1 task (5 windows)"), r.toString());
  }

  @Test
  @DisplayName("I5: the whole journal of a node's run (the task's and the trigger's) has one writer at a time, and says so")
  void verifiesBothJournalsOfTheNodeWithI5() throws Exception {
    Result r = AuditTesting.audit(journal, AuditRequest.builder().verify(true).timeline(false).format("json").build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    JsonNode summary = null;
    for (String line : r.out().split("\n")) {
      JsonNode n = new ObjectMapper().readTree(line);
      assertTrue(!n.get("record").asText().equals("note") || !n.get("text").asText().startsWith("I5"), line);
      if (n.get("record").asText().equals("verification")) {
        summary = n;
      }
    }
    assertEquals("OK", summary.get("result").asText(), r.out());
    JsonNode i5 = summary.get("checked").get("I5");
    assertEquals(2, i5.get("journals").asLong(), "the task's and the trigger's: " + r.out());
    assertTrue(i5.get("events").asLong() > 25, "the task's 25 events and the trigger's: " + r.out());
  }

  @Test
  @DisplayName("I5: every event of a node's run names its writer: the node, its incarnation and its one-node cluster (itself)")
  void everyEventNamesItsWriter() {
    try (AuditReader reader = AuditReader.builder(journal).start()) {
      List<io.almanac.journal.WriterStamp> writers = new ArrayList<>();
      reader.read("digest").events().forEach(e -> writers.add(e.writer()));
      reader.triggerWriters().forEach(w -> writers.add(w.writer()));
      io.almanac.journal.WriterStamp first = writers.get(0);
      assertTrue(first.node().startsWith("pekko://audit-node@127.0.0.1:"), first.toString());
      assertEquals(first.nodeIncarnation(), first.cluster(), "a one-node cluster is named by its only member");
      assertTrue(writers.stream().allMatch(first::equals), writers.toString());
    }
  }

  @Test
  void timelineOfOneWindowAsJsonLines() throws Exception {
    Result r = AuditTesting.audit(journal, AuditRequest.builder().task("digest").window("2026-11-30").format("json").build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    ObjectMapper json = new ObjectMapper();
    List<String> types = new ArrayList<>();
    List<Integer> attempts = new ArrayList<>();
    for (String line : r.out().split("\n")) {
      JsonNode n = json.readTree(line);
      assertEquals("event", n.get("record").asText());
      assertEquals("digest", n.get("task").asText());
      assertEquals("2026-11-30", n.get("window").asText());
      assertEquals("Asia/Shanghai", n.get("zone").asText());
      assertEquals("2026-11-30T00:00:00Z", n.get("at").asText());
      assertEquals("2026-11-30T08:00:00+08:00", n.get("local").asText());
      types.add(n.get("event").asText());
      attempts.add(n.get("attempt").asInt());
    }
    assertEquals(List.of("InstanceScheduled", "AttemptStarted", "AttemptFailed", "RetryScheduled", "InstanceScheduled",
        "AttemptStarted", "AttemptSucceeded"), types, r.out());
    assertEquals(List.of(0, 1, 1, 0, 0, 2, 2), attempts, r.out());
    assertTrue(r.out().contains("\"detail\":\"took PT0S: upstream 503\""), r.out());
  }

  @Test
  void timelineAsCsv() {
    Result r = AuditTesting.audit(journal, AuditRequest.builder().task("digest").format("csv").build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    assertTrue(r.out().endsWith("\r\n"), "RFC 4180 lines end with CRLF");
    List<List<String>> rows = Csv.parse(r.out());
    assertEquals(Timeline.CSV_HEADER, String.join(",", rows.get(0)));
    List<List<String>> events = rows.subList(1, rows.size());
    assertTrue(events.size() >= 20, r.out());
    for (List<String> row : events) {
      assertEquals(9, row.size(), row.toString());
      assertEquals("digest", row.get(0));
    }
    List<String> spec = events.get(0);
    assertEquals("SpecDefined", spec.get(2));
    // recorded with the first fire (registration writes no entity), not at the registration a minute before
    assertEquals("2026-11-29T00:00:00Z", spec.get(5));
    assertEquals("2026-11-29T08:00:00+08:00", spec.get(6));
    assertTrue(spec.get(8).startsWith("cron '0 0 8 * * ?' in Asia/Shanghai, window daily"), spec.get(8));
    // the paused window opens a skip range (docs/skip-ranges.md)
    assertTrue(events.stream().anyMatch(row -> row.get(2).equals("SkipRangeOpened") && row.get(8).startsWith("PAUSED: ")),
        events.toString());
    assertEquals(r.out().chars().filter(c -> c == '\n').count(), rows.size(), "no field spans lines");
  }

  /** A minimal RFC 4180 reader for the test. */
  static final class Csv {
    static List<List<String>> parse(String text) {
      List<List<String>> rows = new ArrayList<>();
      List<String> row = new ArrayList<>();
      StringBuilder field = new StringBuilder();
      boolean quoted = false;
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (quoted) {
          if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
            field.append('"');
            i++;
          } else if (c == '"') {
            quoted = false;
          } else {
            field.append(c);
          }
        } else if (c == '"') {
          quoted = true;
        } else if (c == ',') {
          row.add(field.toString());
          field.setLength(0);
        } else if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          row.add(field.toString());
          field.setLength(0);
          rows.add(row);
          row = new ArrayList<>();
          i++;
        } else {
          field.append(c);
        }
      }
      return rows;
    }
  }
}

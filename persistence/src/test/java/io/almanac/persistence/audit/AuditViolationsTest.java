package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.late;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.scheduled;
import static io.almanac.persistence.audit.DailyEvents.skipped;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.started;
import static io.almanac.persistence.audit.DailyEvents.succeeded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditTesting.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journals a correct task never writes, written directly under {@code task|<id>} with the task's
 * serializer, on a real H2 file: the audit reads them through the JDBC read journal and must exit
 * 1 naming the task, the window, the invariant and the events. Bad input exits 2.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditViolationsTest {

  @TempDir static Path dir;

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private Config config;

  private static List<TaskJournal.Event> defined(String id, OverlapPolicy overlap) {
    return List.of(spec(daily(id, overlap), DEFINED));
  }

  private static List<TaskJournal.Event> overlapping(String id, OverlapPolicy overlap) {
    Instant d29 = due("2026-11-29");
    Instant d30 = due("2026-11-30");
    return journal(defined(id, overlap), List.of(
        scheduled("2026-11-29", RunKind.FIRST, d29), started("2026-11-29", 1, d29, Duration.ofDays(3)),
        scheduled("2026-11-30", RunKind.FIRST, d30), started("2026-11-30", 1, d30, Duration.ofDays(3)),
        succeeded("2026-11-29", 1, d30.plusSeconds(3600)), succeeded("2026-11-30", 1, d30.plusSeconds(7200))));
  }

  @BeforeAll
  void writeJournals() {
    Map<String, List<TaskJournal.Event>> journals = new LinkedHashMap<>();
    journals.put("fine", journal(defined("fine", OverlapPolicy.SKIP), ran("2026-11-29"),
        List.of(late("2026-11-29", 1, due("2026-11-29").plusSeconds(30))), ran("2026-11-30"), ran("2026-12-01")));
    Instant d29 = due("2026-11-29");
    journals.put("double", journal(defined("double", OverlapPolicy.SKIP), ran("2026-11-29"),
        List.of(started("2026-11-29", 2, d29.plusSeconds(5), Duration.ofHours(1)), succeeded("2026-11-29", 2, d29.plusSeconds(6))),
        ran("2026-11-30")));
    journals.put("lost", journal(defined("lost", OverlapPolicy.SKIP), ran("2026-11-29"), ran("2026-12-01")));
    journals.put("stuck", journal(defined("stuck", OverlapPolicy.SKIP), List.of(
        scheduled("2026-11-29", RunKind.FIRST, d29), started("2026-11-29", 1, d29, Duration.ofMinutes(10)),
        skipped("2026-11-30", SkipReason.PREVIOUS_RUNNING, "window 2026-11-29 is RUNNING"),
        skipped("2026-12-01", SkipReason.PREVIOUS_RUNNING, "window 2026-11-29 is RUNNING"))));
    // 11-29 scheduled when due and never started; the task writes on (five hours later, a resume of a
    // task that was not paused: a pause would hold the window, docs/http-api.md)
    journals.put("pending", journal(defined("pending", OverlapPolicy.SKIP), List.of(scheduled("2026-11-29", RunKind.FIRST, d29),
        new TaskJournal.TaskResumed(d29.plus(Duration.ofHours(5))))));
    journals.put("overlap-skip", overlapping("overlap-skip", OverlapPolicy.SKIP));
    journals.put("overlap-allow", overlapping("overlap-allow", OverlapPolicy.ALLOW));
    AuditTesting.write(dir.resolve("journal"), journals, 100);
    config = AuditTesting.config(dir.resolve("journal"));
  }

  private Result verify(String task) {
    return AuditTesting.audit(config, AuditRequest.builder().task(task).verify(true).build());
  }

  @Test
  void correctJournalVerifiesWithExitZero() {
    Result r = verify("fine");
    assertEquals(Audit.OK, r.exit(), r.toString());
    assertTrue(r.out().contains("OK: I1-I7 hold"), r.toString());
    assertTrue(r.out().contains("1 late results"), r.toString());
    assertTrue(r.err().contains("audit: read 11 events of 1 task (3 windows)"), r.toString());
  }

  @Test
  void i6WindowStuckPendingExitsOneNamingTheWindow() {
    Result r = verify("pending");
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("FAILED: 1 violation"), r.toString());
    assertTrue(r.out().contains("I6 task 'pending' window '2026-11-29': stuck PENDING since 2026-11-29T00:00:00Z: not started"
        + " by its bound 2026-11-29T02:00:00Z"), r.toString());
    assertTrue(r.out().contains("events: #2 InstanceScheduled at 2026-11-29T00:00:00Z"), r.toString());
  }

  @Test
  void i1DoubleSuccessExitsOneNamingWindowAndEvents() {
    Result r = verify("double");
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("FAILED: 1 violation"), r.toString());
    assertTrue(r.out().contains("I1 task 'double' window '2026-11-29': succeeded 2 times; events: #4 AttemptSucceeded at "
        + "2026-11-29T00:00:01Z, #6 AttemptSucceeded at 2026-11-29T00:00:06Z"), r.toString());
  }

  @Test
  void i2LostWindowExitsOneNamingTheWindow() {
    Result r = verify("lost");
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I2 task 'lost' window '2026-11-30': lost window: due 2026-11-30T00:00:00Z"
        + " (2026-11-30T08:00:00+08:00 Asia/Shanghai), no InstanceScheduled, WindowWaiting, FireSkipped or WindowMissed and no event"
        + " at all"),
        r.toString());
  }

  @Test
  void i3AttemptRunningPastItsLeaseExitsOne() {
    Result r = verify("stuck");
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I3 task 'stuck' window '2026-11-29': attempt 1 started 2026-11-29T00:00:00Z is still RUNNING:"
        + " its lease ended 2026-11-29T00:10:00Z"), r.toString());
    assertTrue(r.out().contains("events: #3 AttemptStarted at 2026-11-29T00:00:00Z"), r.toString());
    assertTrue(r.out().contains("I3 no attempt RUNNING past lease  checked 1 attempt of 1 window (1 event):"
        + " longest RUNNING past a lease PT47H50M (stuck/2026-11-29#1)"), r.toString());
  }

  @Test
  void i4OverlapUnderSkipExitsOne() {
    Result r = verify("overlap-skip");
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I4 task 'overlap-skip' window '2026-11-30': attempt 1 of window '2026-11-30'"
        + " (started 2026-11-30T00:00:00Z) overlaps attempt 1 of window '2026-11-29' (started 2026-11-29T00:00:00Z),"
        + " which ended 2026-11-30T01:00:00Z (AttemptSucceeded); the overlap policy is SKIP; events: #3 AttemptStarted"),
        r.toString());
  }

  @Test
  void i4SameOverlapUnderAllowExitsZero() {
    Result r = verify("overlap-allow");
    assertEquals(Audit.OK, r.exit(), r.toString());
  }

  @Test
  void allTasksTogetherReportEveryViolation() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().verify(true).timeline(false).build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("verification of 7 tasks"), r.toString());
    assertTrue(r.out().contains("FAILED: 5 violations"), r.toString());
    assertTrue(r.err().contains("of 7 tasks"), r.toString());
  }

  @Test
  void violationsAsJsonLines() throws Exception {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("lost").verify(true).format("json").build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> violations = new ArrayList<>();
    JsonNode summary = null;
    for (String line : r.out().split("\n")) {
      JsonNode n = json.readTree(line);
      if (n.get("record").asText().equals("violation")) {
        violations.add(n);
      } else if (n.get("record").asText().equals("verification")) {
        summary = n;
      }
    }
    assertEquals(1, violations.size(), r.toString());
    assertEquals("I2", violations.get(0).get("invariant").asText());
    assertEquals("2026-11-30", violations.get(0).get("window").asText());
    assertFalse(summary.get("ok").asBoolean());
    assertEquals(1, summary.get("windowsLost").asInt());
  }

  @Test
  void csvKeepsTheReportOnTheErrorStream() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("lost").verify(true).format("csv").build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().startsWith(Timeline.CSV_HEADER + "\r\n"), r.toString());
    assertEquals(8, r.out().split("\r\n").length, "the header and 7 events, nothing else: " + r.out());
    assertTrue(r.err().contains("I2 task 'lost' window '2026-11-30': lost window"), r.toString());
  }

  @Test
  void readsWithACallersActorSystem() {
    ActorTestKit kit = ActorTestKit.create("caller", AuditTesting.config(dir.resolve("journal"), "pekko.actor.provider = local"));
    try (AuditReader reader = AuditReader.builder(kit.system()).progressEvery(5).onProgress(p -> { }).start()) {
      assertEquals(List.of("double", "fine", "lost", "overlap-allow", "overlap-skip", "pending", "stuck"), reader.taskIds());
      List<AuditEvent> events = reader.events("stuck").runWith(Sink.seq(), kit.system()).toCompletableFuture().join();
      assertEquals(List.of("SpecDefined", "InstanceScheduled", "AttemptStarted", "FireSkipped", "FireSkipped"),
          events.stream().map(AuditEvent::type).toList());
      assertEquals(java.time.ZoneId.of("Asia/Shanghai"), events.get(4).zone());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit = Audit.run(reader, AuditRequest.builder().task("double").verify(true).timeline(false).build(),
          new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(Audit.VIOLATION, exit, out.toString(StandardCharsets.UTF_8));
      assertEquals(5 + 9, reader.eventsRead(), "5 events of stuck, 9 of double");
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void unknownTaskExitsTwoNamingIt() {
    Result r = verify("nope");
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertEquals("audit: task 'nope' is unknown: no events under persistence id task|nope\n", r.err());
  }

  @Test
  void unknownWindowExitsTwoNamingIt() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("fine").window("2027-01-01").build());
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertTrue(r.err().contains("audit: window '2027-01-01' is unknown: no events of task 'fine' are about it"), r.toString());
  }

  @Test
  void fromAfterToExitsTwo() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().from("2026-11-29").to("2026-11-01").build());
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertEquals("audit: from '2026-11-29' is invalid: it is after to '2026-11-01'\n", r.err());
  }

  @Test
  void unknownFormatExitsTwo() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().format("xml").build());
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertEquals("audit: format 'xml' is invalid: expected table, json or csv\n", r.err());
  }

  @Test
  void unparsableDateExitsTwo() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().to("2026-13-01").build());
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertTrue(r.err().startsWith("audit: to '2026-13-01' is invalid: expected a date like 2026-11-01"), r.toString());
  }

  @Test
  void aDatabaseWithoutJournalExitsThree() {
    Result r = AuditTesting.audit(AuditTesting.config(dir.resolve("empty")), AuditRequest.builder().task("fine").build());
    assertEquals(Audit.UNREADABLE, r.exit(), r.toString());
    assertTrue(r.err().startsWith("audit: the journal could not be read (persistence id task|fine):"), r.toString());
  }
}

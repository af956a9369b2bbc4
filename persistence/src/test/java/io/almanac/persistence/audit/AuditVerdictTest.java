package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.OverlapPolicy;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditTesting.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * R28: what a verification checked and what its exit code says. Each invariant reports how many
 * windows and events it checked; a verification that judged no due window is not OK but NOTHING
 * CHECKED (exit 4); the audit runs on a configuration that names only the database; a
 * configuration naming none is a configuration error (exit 2), an unreachable database exit 3.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditVerdictTest {

  @TempDir static Path dir;

  private Path db;
  private Config config;

  @BeforeAll
  void writeJournals() {
    Map<String, List<TaskJournal.Event>> journals = new LinkedHashMap<>();
    journals.put("fine", journal(List.of(spec(daily("fine", OverlapPolicy.SKIP), Instant.parse("2026-11-28T12:00:00Z"))),
        ran("2026-11-29"), ran("2026-11-30"), ran("2026-12-01")));
    // Registered a minute before its first window, which ran: the journal is a minute and a second long.
    journals.put("young", journal(List.of(spec(daily("young", OverlapPolicy.SKIP), due("2026-11-29").minus(Duration.ofMinutes(1)))),
        ran("2026-11-29")));
    journals.put("orders", DailyEvents.orders("orders", 20)); // event-only: no cron to compute due windows from
    db = dir.resolve("journal");
    AuditTesting.write(db, journals, 100);
    config = AuditTesting.config(db);
  }

  private Result verify(Config c, String task, Duration grace) {
    return AuditTesting.audit(c, AuditRequest.builder().task(task).verify(true).timeline(false).grace(grace).build());
  }

  @Test
  @DisplayName("R28: the report says how many windows and events each invariant I1-I4 checked")
  void r28ReportSaysWhatEachInvariantChecked() {
    Result r = verify(config, "fine", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.OK, r.exit(), r.toString());
    String out = r.out();
    assertTrue(out.contains("I1 no window succeeds twice       checked 3 windows (9 events): 0 double successes"), out);
    assertTrue(out.contains("I2 every due window accounted for checked 2 due windows until 2026-11-30T23:58:01Z (6 events): 0 lost"),
        out);
    assertTrue(out.contains("I3 no attempt RUNNING past lease  checked 3 attempts of 3 windows (6 events)"), out);
    assertTrue(out.contains("I4 no overlap unless allowed      checked 3 attempts of 3 windows (6 events): 0 overlaps"), out);
    assertTrue(out.contains("OK: I1-I7 hold"), out);
  }

  @Test
  @DisplayName("R28: a verification that judged no due window is NOTHING CHECKED with exit 4, not OK")
  void r28NothingCheckedIsNotOk() {
    Result r = verify(config, "young", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.NOTHING_CHECKED, r.exit(), r.toString());
    assertFalse(r.out().contains("OK:"), r.toString());
    assertTrue(r.out().contains("NOTHING CHECKED: I2 checked 0 due windows: none was due before 2026-11-28T23:58:01Z"
        + " (the journal's end 2026-11-29T00:00:01Z minus the grace of PT2M)"), r.toString());
    assertTrue(r.out().contains("--grace"), r.toString());
    Result zero = verify(config, "young", Duration.ZERO);
    assertEquals(Audit.OK, zero.exit(), zero.toString());
    assertTrue(zero.out().contains("checked 1 due window until 2026-11-29T00:00:01Z (3 events): 0 lost"), zero.toString());
  }

  @Test
  @DisplayName("R28: an event-only task's journal counts the windows its events reached as checked: exit 0, not 4")
  void r28EventOnlyJournalIsChecked() {
    Result r = verify(config, "orders", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.OK, r.exit(), r.toString());
    assertTrue(r.out().contains("I2 every due window accounted for checked 20 due windows until 2026-11-29T19:10:02Z (80 events):"
        + " 0 lost"), r.toString());
    assertTrue(r.out().contains("OK: I1-I7 hold (checked 20 due windows, 20 windows with events, 20 attempts"), r.toString());
  }

  @Test
  @DisplayName("R28: the JSON summary of a verification that checked nothing is not ok and says why")
  void r28NothingCheckedAsJson() throws Exception {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("young").verify(true).timeline(false).format("json").build());
    assertEquals(Audit.NOTHING_CHECKED, r.exit(), r.toString());
    JsonNode summary = null;
    for (String line : r.out().split("\n")) {
      JsonNode n = new ObjectMapper().readTree(line);
      if (n.get("record").asText().equals("verification")) {
        summary = n;
      }
    }
    assertFalse(summary.get("ok").asBoolean(), r.out());
    assertEquals("NOTHING_CHECKED", summary.get("result").asText(), r.out());
    assertEquals(0, summary.get("checked").get("I2").get("windows").asInt(), r.out());
    assertEquals(1, summary.get("checked").get("I1").get("windows").asInt(), r.out());
  }

  @Test
  @DisplayName("R28: the audit runs on a configuration that names only the H2 file")
  void r28RunsOnAConfigNamingOnlyTheH2File() {
    Config minimal = ConfigFactory.parseString("almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.toString()));
    Result r = verify(minimal, "fine", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.OK, r.exit(), r.toString());
    assertTrue(r.out().contains("OK: I1-I7 hold"), r.toString());
  }

  @Test
  @DisplayName("R28: a configuration that names no database is a configuration error, exit 2")
  void r28ConfigNamingNoDatabaseExitsTwo() {
    Result r = verify(ConfigFactory.parseString("almanac-demo.data-dir = \"./data\""), "fine", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.BAD_INPUT, r.exit(), r.toString());
    assertTrue(r.err().contains("names no journal database"), r.toString());
  }

  @Test
  @DisplayName("R28: an unreachable PostgreSQL named by its almanac-postgres.conf settings alone exits 3")
  void r28UnreachableDatabaseExitsThree() {
    Config pg = ConfigFactory.parseString("almanac.persistence.postgres { url = \"jdbc:postgresql://127.0.0.1:1/almanac\", user = x }");
    Result r = verify(pg, "fine", Verifier.DEFAULT_GRACE);
    assertEquals(Audit.UNREADABLE, r.exit(), r.toString());
    assertTrue(r.err().startsWith("audit: "), r.toString());
  }
}

package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.AuditTesting.Result;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * I5 on a real journal (an H2 file): one task written by two ActorSystems on the same database,
 * interleaved as two clusters on one journal write it ({@link TwoWriters}). The audit fails with I5
 * and the exit code of a violated invariant, naming both writers; the stamps are in the journal
 * rows' metadata columns, one row per event.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditTwoWritersTest {

  @TempDir static Path dir;

  private Config journal;
  private TwoWriters.Outcome outcome;
  private Config clustersJournal;
  private TwoWriters.Outcome clusters;

  @BeforeAll
  void twoNodesWriteOneTask() {
    journal = AuditTesting.config(dir.resolve("almanac"));
    outcome = TwoWriters.write(journal, true, false);
    clustersJournal = AuditTesting.config(dir.resolve("clusters"));
    clusters = TwoWriters.write(clustersJournal, true, true);
  }

  @Test
  @DisplayName("I5: two one-node clusters (each joined itself, as a restarted sole seed does) on one journal: exit 1, naming both clusters")
  void twoClustersOnOneJournal() {
    assertTrue(clusters.staleWriteRefused(), "the journal's unique key refused node-a's stale write");
    assertTrue(clusters.a().node().startsWith("pekko://node-a@127.0.0.1:"), clusters.toString());
    assertEquals(clusters.a().nodeIncarnation(), clusters.a().cluster(), "a one-node cluster is named by its only member");
    assertEquals(clusters.b().nodeIncarnation(), clusters.b().cluster());
    Result r = AuditTesting.audit(clustersJournal, AuditRequest.builder().verify(true).timeline(false).grace(java.time.Duration.ZERO)
        .build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I5 task 'split': two writers at the same time: " + clusters.a().nodeIncarnation() + " (cluster of "
        + clusters.a().cluster() + ") wrote InstanceScheduled #8 at 2026-12-01T00:00:00Z after " + clusters.b().nodeIncarnation()
        + " (cluster of " + clusters.b().cluster() + ") had succeeded it"), r.toString());
    assertTrue(r.out().contains("FAILED: 1 violation"), r.toString());
  }

  @Test
  @DisplayName("I5: node-a writing again after node-b succeeded it fails the audit with exit code 1, naming both writers")
  void auditFailsWithI5() {
    assertTrue(outcome.staleWriteRefused(), "the journal's unique key refused node-a's stale write");
    assertNotEquals(outcome.a(), outcome.b());
    Result r = AuditTesting.audit(journal, AuditRequest.builder().verify(true).timeline(false).grace(java.time.Duration.ZERO).build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I5 task 'split': two writers at the same time: " + outcome.a() + " wrote InstanceScheduled #8 at "
        + "2026-12-01T00:00:00Z after " + outcome.b() + " had succeeded it (its last event AttemptSucceeded #4 at 2026-11-29T00:00:01Z,"
        + " the successor's first InstanceScheduled #5 at 2026-11-30T00:00:00Z)"), r.toString());
    assertTrue(r.out().contains("events: #4 AttemptSucceeded at 2026-11-29T00:00:01Z, #5 InstanceScheduled at 2026-11-30T00:00:00Z,"
        + " #8 InstanceScheduled at 2026-12-01T00:00:00Z"), r.toString());
    assertTrue(r.out().contains("I5 one writer at a time           checked 1 journal (10 events with a known writer): 1 interleaving"),
        r.toString());
    assertTrue(r.out().contains("FAILED: 1 violation"), r.toString());
    assertTrue(outcome.a().node().equals("pekko://node-a") && outcome.b().node().equals("pekko://node-b"), outcome.toString());
  }

  @Test
  @DisplayName("I5 alone is what fails: the same journal read as one writer's (the writers left out) passes I1-I4")
  void nothingElseIsWrong() {
    Result r = AuditTesting.audit(journal, AuditRequest.builder().task(TwoWriters.TASK).verify(true).timeline(false)
        .grace(java.time.Duration.ZERO).format("json").build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    ObjectMapper json = new ObjectMapper();
    List<String> invariants = new ArrayList<>();
    JsonNode verification = null;
    for (String line : r.out().split("\n")) {
      JsonNode n;
      try {
        n = json.readTree(line);
      } catch (Exception e) {
        throw new AssertionError(line, e);
      }
      if (n.get("record").asText().equals("violation")) {
        invariants.add(n.get("invariant").asText());
        assertEquals("split", n.get("task").asText());
        assertTrue(n.get("window").isNull(), line);
        assertEquals("one writer per task at a time", n.get("description").asText());
      } else if (n.get("record").asText().equals("verification")) {
        verification = n;
      }
    }
    assertEquals(List.of("I5"), invariants, r.out());
    assertEquals(1, verification.get("checked").get("I5").get("journals").asLong(), r.out());
    assertEquals(10, verification.get("checked").get("I5").get("events").asLong(), r.out());
    assertEquals(3, verification.get("checked").get("I2").get("windows").asLong(), r.out());
  }

  @Test
  @DisplayName("the writer travels in the event's own row (meta columns): one row per event, the events' JSON unchanged")
  void stampIsMetadataOfTheSameRow() throws Exception {
    String url = journal.getString("pekko-persistence-jdbc.shared-databases.slick.db.url");
    try (Connection c = DriverManager.getConnection(url, "sa", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT \"sequence_number\", \"meta_ser_manifest\", \"meta_payload\", \"event_payload\""
            + " FROM \"event_journal\" WHERE \"persistence_id\" = 'task|split' ORDER BY \"sequence_number\"")) {
      int rows = 0;
      while (rs.next()) {
        rows++;
        assertEquals(rows, rs.getLong(1));
        assertEquals(WriterStamp.class.getName(), rs.getString(2));
        String meta = new String(rs.getBytes(3), java.nio.charset.StandardCharsets.UTF_8);
        WriterStamp expected = rows <= 4 || rows >= 8 ? outcome.a() : outcome.b();
        assertEquals("{\"node\":\"" + expected.node() + "\",\"incarnation\":" + expected.incarnation() + ",\"cluster\":null}", meta);
        String event = new String(rs.getBytes(4), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(!event.contains("node-a") && !event.contains("incarnation"), event);
      }
      assertEquals(10, rows, "one row per event");
    }
  }
}

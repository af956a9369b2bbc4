package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.OverlapPolicy;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import io.almanac.persistence.audit.Verifier.Interleaving;
import io.almanac.persistence.audit.Verifier.Written;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** I5, one writer per task at a time: the pure check, and how the verifier reports and counts it. */
class WriterInterleavingTest {

  private static final WriterStamp A = new WriterStamp("pekko://almanac@10.0.0.1:7355", 111);
  private static final WriterStamp B = new WriterStamp("pekko://almanac@10.0.0.2:7355", 222);
  /** A restarted at the same address: another incarnation, another writer. */
  private static final WriterStamp A2 = new WriterStamp("pekko://almanac@10.0.0.1:7355", 333);
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  // A 3-node cluster (oldest: the seed S), then the seed restarted alone into a second cluster.
  private static final String OLD_SEED = "pekko://almanac@10.0.0.1:7355#1";
  private static final String N2_OLDEST = "pekko://almanac@10.0.0.2:7355#2";
  private static final String NEW_SEED = "pekko://almanac@10.0.0.1:7355#4";
  private static final WriterStamp N2 = new WriterStamp("pekko://almanac@10.0.0.2:7355", 2, N2_OLDEST);
  private static final WriterStamp N3 = new WriterStamp("pekko://almanac@10.0.0.3:7355", 3, N2_OLDEST);
  private static final WriterStamp N2_UNDER_SEED = N2.inCluster(OLD_SEED);
  private static final WriterStamp N3_UNDER_SEED = N3.inCluster(OLD_SEED);
  private static final WriterStamp S2 = new WriterStamp("pekko://almanac@10.0.0.1:7355", 4, NEW_SEED);

  /** One event per writer, sequence numbers from 1, a second apart (null: unknown writer). */
  private static List<Written> written(WriterStamp... writers) {
    List<Written> out = new ArrayList<>();
    for (int i = 0; i < writers.length; i++) {
      out.add(new Written(i + 1, "Progressed", T0.plusSeconds(i), writers[i]));
    }
    return out;
  }

  /** A task's history whose events carry these writers, in order; the rest keep the last one. */
  private static TaskHistory stamped(List<TaskJournal.Event> events, WriterStamp... writers) {
    TaskHistory h = history("t", events);
    List<AuditEvent> out = new ArrayList<>();
    for (int i = 0; i < h.events().size(); i++) {
      out.add(h.events().get(i).withWriter(writers.length == 0 ? null : writers[Math.min(i, writers.length - 1)]));
    }
    return TaskHistory.of("t", out);
  }

  private static List<TaskJournal.Event> twoDays() {
    return journal(List.of(spec(daily("t", OverlapPolicy.SKIP), Instant.parse("2026-11-28T12:00:00Z"))),
        ran("2026-11-29"), ran("2026-11-30"));
  }

  @Test
  @DisplayName("I5: A A B B (a restart, or a move to another node) is one writer at a time")
  void successionIsNoInterleaving() {
    assertEquals(List.of(), Verifier.interleavings(written(A, A, B, B)));
    assertEquals(List.of(), Verifier.interleavings(written(A, B, A2, A2)), "a restarted node is a new incarnation");
    assertEquals(List.of(), Verifier.interleavings(written(A)));
    assertEquals(List.of(), Verifier.interleavings(written()));
  }

  @Test
  @DisplayName("I5: A B A is two writers at the same time, named with the events where they interleave")
  void returnAfterSuccessionIsAnInterleaving() {
    List<Interleaving> found = Verifier.interleavings(written(A, A, B, A, B, A));
    assertEquals(2, found.size(), found.toString());
    Interleaving first = found.get(0);
    assertEquals(A, first.writer());
    assertEquals(B, first.successor());
    assertEquals(2, first.before().sequenceNr());
    assertEquals(3, first.succeeded().sequenceNr());
    assertEquals(4, first.again().sequenceNr());
    assertEquals(2, first.times(), "A came back after B twice (#4 and #6)");
    Interleaving second = found.get(1);
    assertEquals(B, second.writer());
    assertEquals(A, second.successor());
    assertEquals(3, second.before().sequenceNr());
    assertEquals(4, second.succeeded().sequenceNr());
    assertEquals(5, second.again().sequenceNr());
    assertEquals(1, second.times());
  }

  @Test
  @DisplayName("I5 in a cluster: a shard moved from N2 to N3 and back to N2 (rebalancing), and a new oldest, are one writer at a time")
  void movesWithinOneClusterAreNoInterleaving() {
    assertEquals(List.of(), Verifier.interleavings(written(N2, N3, N2, N3, N2)), "one cluster, named by its oldest N2");
    assertEquals(List.of(), Verifier.interleavings(written(N2_UNDER_SEED, N3_UNDER_SEED, N2_UNDER_SEED, N2, N3, N2)),
        "the oldest (the seed) left: the cluster is named by its next oldest from then on");
  }

  @Test
  @DisplayName("I5 in a cluster: the sole seed restarted into a second cluster; the first cluster writes again on another node")
  void secondClusterOnOneJournal() {
    List<Interleaving> found = Verifier.interleavings(written(N2_UNDER_SEED, N2, N3, S2, S2, N2, S2));
    assertEquals(2, found.size(), found.toString());
    Interleaving first = found.get(0);
    assertEquals(N2, first.writer(), "cluster N2 came back (through N2 here)");
    assertEquals(S2, first.successor());
    assertEquals(3, first.before().sequenceNr(), "N3's event, the first cluster's last before the second's");
    assertEquals(4, first.succeeded().sequenceNr());
    assertEquals(6, first.again().sequenceNr());
    assertEquals(List.of(), Verifier.interleavings(written(N2, N3, S2, S2)), "the seed's new cluster took over: no interleaving yet");
    assertEquals(1, Verifier.interleavings(written(N2, S2, N3)).size(), "the first cluster returns through another node: caught");
  }

  @Test
  @DisplayName("I5: events without a writer (old journals) are neither judged nor a violation")
  void unknownWritersAreSkipped() {
    assertEquals(List.of(), Verifier.interleavings(written(null, null, A, null, A, B)));
    assertEquals(List.of(), Verifier.interleavings(written(null, null, null)));
    // an unknown writer between two turns of A does not hide that B came between them
    assertEquals(1, Verifier.interleavings(written(A, null, B, null, A)).size());
  }

  @Test
  @DisplayName("I5: a task written by A, then B, then A again fails verification, naming both writers and the events")
  void taskJournalWithInterleavedWriters() {
    List<TaskJournal.Event> events = twoDays(); // 7 events: spec, 3 for 11-29, 3 for 11-30
    VerificationReport r = Verifier.create().check(stamped(events, A, A, A, A, B, B, A)).report();
    assertEquals(VerificationReport.Result.FAILED, r.result(), r.toText());
    Violation v = r.violations().get(0);
    assertEquals(Invariant.I5, v.invariant());
    assertEquals("t", v.taskId());
    assertNull(v.window());
    assertEquals(List.of(4L, 5L, 7L), v.events().stream().map(VerificationReport.EventRef::sequenceNr).toList());
    assertTrue(v.toString().startsWith("I5 task 't': two writers at the same time: pekko://almanac@10.0.0.1:7355#111 wrote"
        + " AttemptSucceeded #7 at 2026-11-30T00:00:01Z after pekko://almanac@10.0.0.2:7355#222 had succeeded it"), v.toString());
    assertEquals(new VerificationReport.Checked(0, 0, 7, 1), r.stats().checked(Invariant.I5));
    assertTrue(r.toText().contains("I5 one writer at a time           checked 1 journal (7 events with a known writer): 1 interleaving"),
        r.toText());
  }

  @Test
  @DisplayName("I5: one writer after another holds and is counted; the OK line says I1-I7")
  void successionVerifiesOk() {
    VerificationReport r = Verifier.create().check(stamped(twoDays(), A, A, A, A, B, B, B)).report();
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText());
    assertEquals(new VerificationReport.Checked(0, 0, 7, 1), r.stats().checked(Invariant.I5));
    assertTrue(r.toText().contains("OK: I1-I7 hold (checked 1 due window, 2 windows with events, 2 attempts, 7 events of 1 journal"
        + " with a known writer)"), r.toText());
    assertTrue(r.notes().isEmpty(), r.notes().toString());
  }

  @Test
  @DisplayName("I5: a journal with no writer at all is not OK-for-I5: I5 is reported as not judged, and the notes count the events")
  void oldJournalIsNotJudged() {
    VerificationReport r = Verifier.create().check(stamped(twoDays())).report();
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText()); // I1-I4 hold; old journals keep their exit code
    assertEquals(VerificationReport.Checked.NONE, r.stats().checked(Invariant.I5));
    assertTrue(r.toText().contains("OK: I1-I4, I6 and I7 hold (checked 1 due window, 2 windows with events, 2 attempts); I5 not judged"),
        r.toText());
    assertTrue(r.notes().contains("I5: 7 events of 1 journal had no writer (written before writer stamps, or through a journal"
        + " plugin without them): not judged"), r.notes().toString());
  }

  @Test
  @DisplayName("I5: a journal half old (no writer), half stamped is judged on its stamped part")
  void partlyStampedJournal() {
    VerificationReport r = Verifier.create().check(stamped(twoDays(), null, null, null, null, A, A, A)).report();
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText());
    assertEquals(new VerificationReport.Checked(0, 0, 3, 1), r.stats().checked(Invariant.I5));
    assertTrue(r.notes().get(0).startsWith("I5: 4 events of 1 journal had no writer"), r.notes().toString());
  }

  @Test
  @DisplayName("I5: the trigger's journal: two triggers at once is a violation of journal 'almanac-trigger'; one after another is not")
  void triggerJournal() {
    VerificationReport ok = Verifier.create().check(stamped(twoDays(), A)).checkTrigger(written(A, A, A2, A2)).report();
    assertEquals(VerificationReport.Result.OK, ok.result(), ok.toText());
    assertEquals(new VerificationReport.Checked(0, 0, 11, 2), ok.stats().checked(Invariant.I5));

    VerificationReport two = Verifier.create().check(stamped(twoDays(), A)).checkTrigger(written(A, B, A, B)).report();
    assertEquals(VerificationReport.Result.FAILED, two.result(), two.toText());
    assertEquals(2, two.violations().size(), two.toText());
    Violation v = two.violations().get(0);
    assertEquals(Invariant.I5, v.invariant());
    assertEquals("almanac-trigger", v.taskId());
    assertTrue(v.toString().startsWith("I5 trigger journal 'almanac-trigger': two writers at the same time: "
        + "pekko://almanac@10.0.0.1:7355#111 wrote Progressed #3"), v.toString());

    VerificationReport windowOnly = Verifier.create().window("2026-11-29").checkTrigger(written(A, B, A)).report();
    assertTrue(windowOnly.ok(), "the trigger's journal is not about a window: not judged when one window is checked");

    VerificationReport inRange = Verifier.create().range(T0.plusSeconds(2), null).checkTrigger(written(A, B, A)).report();
    assertTrue(inRange.ok(), "only the events in the range are judged: B A is a succession");
  }
}

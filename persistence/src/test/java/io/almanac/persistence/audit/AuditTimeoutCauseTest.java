package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.scheduled;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
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
 * R28/R7/R23: the timeline tells why an attempt timed out. A lease that expired is shown with the
 * moment it expired, never after the moment the timeout was recorded; an attempt timed out before
 * its lease ended (its executor was gone, e.g. the node was killed and the attempt was found
 * orphaned at recovery) is never shown as "lease expired at" a time still in the future, and the
 * cause the entity recorded with it is shown when the journal has it.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditTimeoutCauseTest {

  @TempDir static Path dir;

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private static final Instant DUE = due("2026-11-29"); // 2026-11-29T00:00:00Z
  private static final Instant LEASE_2H = DUE.plus(Duration.ofHours(2)); // the lease ceiling
  private static final Instant FOUND = DUE.plus(Duration.ofMinutes(1)); // the node came back and found the attempt orphaned
  private Config config;

  private static List<TaskJournal.Event> start(String id) {
    return journal(List.of(spec(daily(id, OverlapPolicy.SKIP), DEFINED)),
        List.of(scheduled("2026-11-29", RunKind.FIRST, DUE), started("2026-11-29", 1, DUE, Duration.ofHours(2))));
  }

  @BeforeAll
  void writeJournals() {
    Map<String, List<TaskJournal.Event>> journals = new LinkedHashMap<>();
    // Orphaned at recovery, no retry left: the entity's reason is the lastCause of the InstanceFinalFailed written with it.
    journals.put("orphan-final", journal(start("orphan-final"), List.of(
        new TaskJournal.AttemptTimedOut("2026-11-29", 1, LEASE_2H, null, FOUND),
        TaskJournal.InstanceFinalFailed.after("2026-11-29", "retry cap 0 reached",
            "executor node-1 is gone (node restarted or left)", FOUND)),
        ran("2026-11-30")));
    // The same, written before InstanceFinalFailed carried its lastCause: the cause is only in the reason's text.
    journals.put("orphan-legacy", journal(start("orphan-legacy"), List.of(
        new TaskJournal.AttemptTimedOut("2026-11-29", 1, LEASE_2H, null, FOUND),
        new TaskJournal.InstanceFinalFailed("2026-11-29",
            "retry cap 0 reached; last: executor node-1 is gone (node restarted or left)", FOUND)),
        ran("2026-11-30")));
    // A new final failure whose typed lastCause differs from its text: the field is what is shown.
    journals.put("orphan-typed", journal(start("orphan-typed"), List.of(
        new TaskJournal.AttemptTimedOut("2026-11-29", 1, LEASE_2H, null, FOUND),
        new TaskJournal.InstanceFinalFailed("2026-11-29", "retry cap 0 reached; last: words of another writer", FOUND,
            "retry cap 0 reached", "executor node-1 is gone (node restarted or left)")),
        ran("2026-11-30")));
    // Orphaned at recovery, retried: the RetryScheduled carries no reason.
    journals.put("orphan-retry", journal(start("orphan-retry"), List.of(
        new TaskJournal.AttemptTimedOut("2026-11-29", 1, LEASE_2H, null, FOUND),
        new TaskJournal.RetryScheduled("2026-11-29", 1, FOUND.plus(Duration.ofMinutes(5)), FOUND)),
        ran("2026-11-30")));
    // The lease really expired: found 5 minutes after it ended.
    Instant leaseEnd = DUE.plus(Duration.ofMinutes(10));
    journals.put("expired", journal(List.of(spec(daily("expired", OverlapPolicy.SKIP), DEFINED)), List.of(
        scheduled("2026-11-29", RunKind.FIRST, DUE), started("2026-11-29", 1, DUE, Duration.ofMinutes(10)),
        new TaskJournal.AttemptTimedOut("2026-11-29", 1, leaseEnd, Duration.ofMinutes(10), leaseEnd.plus(Duration.ofMinutes(5))),
        TaskJournal.InstanceFinalFailed.after("2026-11-29", "retry cap 0 reached", "lease expired at " + leaseEnd,
            leaseEnd.plus(Duration.ofMinutes(5)))),
        ran("2026-11-30")));
    AuditTesting.write(dir.resolve("journal"), journals, 100);
    config = AuditTesting.config(dir.resolve("journal"));
  }

  private String timedOutRow(String task) {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task(task).window("2026-11-29").build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    String row = r.out().lines().filter(l -> l.contains("AttemptTimedOut")).findFirst().orElseThrow(() -> new AssertionError(r));
    return row;
  }

  @Test
  @DisplayName("R28/R23: an attempt orphaned at recovery is not shown as a lease that expired in the future; the recorded cause is")
  void r23OrphanedAttemptShowsTheRecordedCauseNotAFutureExpiry() {
    String row = timedOutRow("orphan-final");
    assertFalse(row.contains("lease expired at " + LEASE_2H), row);
    assertTrue(row.contains("executor node-1 is gone (node restarted or left)"), row);
    assertTrue(row.contains("before its lease ended (lease was until " + LEASE_2H + ")"), row);
  }

  @Test
  @DisplayName("R28: a final failure stored before its lastCause existed gives the timeout the cause its reason names, as before")
  void legacyFinalFailureStillGivesItsCause() {
    String row = timedOutRow("orphan-legacy");
    assertTrue(row.contains("before its lease ended (lease was until " + LEASE_2H + "): executor node-1 is gone (node "
        + "restarted or left)"), row);
    assertFalse(row.contains("cause not recorded"), row);
  }

  @Test
  @DisplayName("R28: a final failure that carries its lastCause gives that, whatever its reason's text says")
  void typedLastCauseWinsOverTheText() {
    String row = timedOutRow("orphan-typed");
    assertTrue(row.contains("executor node-1 is gone (node restarted or left)"), row);
    assertFalse(row.contains("words of another writer"), row);
  }

  @Test
  @DisplayName("R28/R7: a timeout recorded before the lease ended, without a recorded cause, says so and never claims an expiry")
  void r7TimeoutBeforeTheLeaseWithoutACauseSaysWhatCanBeTold() {
    String row = timedOutRow("orphan-retry");
    assertFalse(row.contains("lease expired"), row);
    assertTrue(row.contains("before its lease ended (lease was until " + LEASE_2H + ")"), row);
    assertTrue(row.contains("cause not recorded"), row);
  }

  @Test
  @DisplayName("R28/R23: a lease that expired is shown with its expiry, which is not after the timeout was recorded")
  void r23ExpiredLeaseShowsWhenItExpired() {
    String row = timedOutRow("expired");
    assertTrue(row.contains("lease expired at 2026-11-29T00:10:00Z, timed out PT5M later"), row);
  }

  @Test
  @DisplayName("R28: the timeout's cause is the same in JSON")
  void r28CauseInJson() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("orphan-final").format("json").build());
    String line = r.out().lines().filter(l -> l.contains("\"AttemptTimedOut\"")).findFirst().orElseThrow();
    assertTrue(line.contains("executor node-1 is gone"), line);
    assertFalse(line.contains("lease expired at"), line);
  }
}

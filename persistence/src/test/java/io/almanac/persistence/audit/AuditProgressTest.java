package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditTesting.Result;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A long journal (20,000 events of an every-second task): progress lines, counts, and I2 at scale. */
@ExtendWith(LogCapturingExtension.class)
class AuditProgressTest {

  private static final int WINDOWS = 6_666;

  @TempDir Path dir;

  @Test
  void showsProgressAndCountsOnALongJournal() {
    TaskSpec spec = TaskSpec.builder("busy").cron("* * * * * ? UTC").window("per-firing").job("j").build();
    Instant defined = Instant.parse("2026-11-29T00:00:00Z");
    List<TaskJournal.Event> events = new ArrayList<>();
    events.add(new TaskJournal.SpecDefined(SpecRecord.of(spec), defined));
    List<DueWindow> due = Schedules.of(spec).dueBetween(defined, Instant.MAX, WINDOWS);
    for (DueWindow d : due) {
      String key = d.key().value();
      Instant at = d.dueAt();
      events.add(new TaskJournal.InstanceScheduled(key, d.window().start(), d.window().end(), at, RunKind.FIRST, at));
      events.add(new TaskJournal.AttemptStarted(key, 1, RunKind.FIRST, at.plusSeconds(30), "node-1", at));
      events.add(new TaskJournal.AttemptSucceeded(key, 1, Duration.ofMillis(100), "ok", null, at.plusMillis(100)));
    }
    // The journal goes on for the grace after the last window: every window is due early enough to be checked.
    events.add(new TaskJournal.TaskPaused(due.get(due.size() - 1).dueAt().plus(Verifier.DEFAULT_GRACE)));
    assertEquals(20_000, events.size());
    AuditTesting.write(dir.resolve("journal"), Map.of("busy", events), 1_000);

    Result r = AuditTesting.audit(AuditTesting.config(dir.resolve("journal")),
        AuditRequest.builder().verify(true).timeline(false).progressEvery(5_000).build());

    assertEquals(Audit.OK, r.exit(), r.toString());
    Matcher progress = Pattern.compile("audit: ([0-9,]+) events read \\([0-9,]+ events/s, [0-9.]+ s\\)").matcher(r.err());
    List<String> counts = new ArrayList<>();
    while (progress.find()) {
      counts.add(progress.group(1));
    }
    assertEquals(List.of("5,000", "10,000", "15,000", "20,000"), counts, r.err());
    assertTrue(r.err().contains("audit: read 20,000 events of 1 task (6,666 windows)"), r.err());
    assertTrue(r.out().contains("windows seen                      6,666 (SUCCEEDED 6,666)"), r.out());
    assertTrue(r.out().contains("I2 every due window accounted for checked 6,666 due windows until"), r.out());
    assertTrue(r.out().contains("OK: I1-I7 hold"), r.out());
  }
}

package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.CatchUpPolicy;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.EffectIntended;
import io.almanac.journal.TaskJournal.EffectRecorded;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.CancelCause;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LateResultRecorded;
import io.almanac.journal.TaskJournal.LeaseExtended;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskRemoved;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.TaskJournal.ConditionCheckFailed;
import io.almanac.journal.TaskJournal.EventDuplicated;
import io.almanac.journal.TaskJournal.EventReceived;
import io.almanac.journal.TaskJournal.UpstreamRerunRecorded;
import io.almanac.journal.TaskJournal.WaitEnded;
import io.almanac.journal.TaskJournal.WaitSatisfied;
import io.almanac.journal.TaskJournal.WindowWaiting;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.WindowExplanation.Explanation;
import io.almanac.persistence.audit.WindowExplanation.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link WindowExplanation} on journals built event by event: every event type of {@link TaskJournal}
 * and every {@link SkipReason} and {@link MissReason}, in words. A daily 08:00 Asia/Shanghai task
 * (00:00Z) unless said otherwise; its window of 2026-11-29 is due 2026-11-29T00:00:00Z.
 */
class WindowExplanationTest {

  static final String TASK = "digest";
  static final String DAY = "2026-11-29";
  static final Instant DUE = Instant.parse("2026-11-29T00:00:00Z");
  static final Instant START = Instant.parse("2026-11-28T16:00:00Z");
  static final Instant END = Instant.parse("2026-11-29T16:00:00Z");
  static final String N1 = "UniqueAddress(pekko://almanac@10.0.0.1:2552,123456)";
  static final String N2 = "UniqueAddress(pekko://almanac@10.0.0.2:2552,-98765)";

  static Instant t(String hms) {
    return DUE.plus(Duration.between(java.time.LocalTime.MIDNIGHT, java.time.LocalTime.parse(hms)));
  }

  static SpecRecord spec(TaskSpec.Builder b) {
    return SpecRecord.of(b.build());
  }

  static SpecRecord daily() {
    return spec(TaskSpec.builder(TASK).cron("0 0 8 * * ? Asia/Shanghai"));
  }

  static SpecRecord hourly() {
    return spec(TaskSpec.builder(TASK).cron("0 0 * * * ? Asia/Shanghai").window("per-firing"));
  }

  static List<Event> journal(Event... events) {
    List<Event> out = new ArrayList<>();
    out.add(new SpecDefined(daily(), Instant.parse("2026-11-28T00:00:00Z")));
    out.addAll(List.of(events));
    return out;
  }

  static Explanation explain(List<Event> events, String window) {
    return explainAudit(WindowExplanation.auditEvents(TASK, events), window);
  }

  /** Explains from the whole journal, and checks the bounded digest (as the HTTP routes read) explains it the same. */
  static Explanation explainAudit(List<AuditEvent> events, String window) {
    Explanation whole = WindowExplanation.explain(TASK, events, window);
    WindowExplanation.Digest digest = new WindowExplanation.Digest(window, 1_000);
    events.forEach(digest::add);
    assertEquals(whole, digest.explain(TASK), "the digest explains as the whole journal does");
    return whole;
  }

  static Explanation explain(List<Event> events) {
    return explain(events, DAY);
  }

  static List<String> texts(Explanation e) {
    return e.steps().stream().map(Step::text).toList();
  }

  static InstanceScheduled scheduled(RunKind kind, Instant at) {
    return new InstanceScheduled(DAY, START, END, DUE, kind, at);
  }

  static AttemptStarted started(int attempt, RunKind kind, Instant at, String node) {
    return new AttemptStarted(DAY, attempt, kind, at.plus(Duration.ofHours(2)), node, at);
  }

  /** Every step is one sentence on one line, with its time in UTC and in Shanghai. */
  static void wellFormed(Explanation e) {
    for (Step s : e.steps()) {
      assertFalse(s.text().contains("\n"), s.text());
      assertTrue(s.text().endsWith("."), s.text());
      assertFalse(s.text().contains("UniqueAddress"), s.text());
      assertEquals(Timeline.local(s.atUtc(), java.time.ZoneId.of("Asia/Shanghai")), s.atLocal());
    }
    assertFalse(e.verdict().contains("UniqueAddress"), e.verdict());
  }

  @Test
  @DisplayName("interrupted: attempt 1 reads as interrupted with its cause and node, not as a failure; the resume and its "
      + "success follow")
  void interruptedThenResumed() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, t("00:00:02"), N1),
        new TaskJournal.AttemptInterrupted(DAY, 1, io.almanac.InterruptCause.NODE_STOPPED,
            "executor " + N1 + " stopped: shutdown-grace PT25S ended with the job running", t("00:00:30")),
        scheduled(RunKind.RESUME, t("00:00:30")),
        started(2, RunKind.RESUME, t("00:00:35"), N2),
        new AttemptSucceeded(DAY, 2, Duration.ofSeconds(60), "12 stories", null, t("00:01:35"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    List<String> texts = texts(e);
    assertTrue(texts.contains("Attempt 1 on node almanac@10.0.0.1:2552 was interrupted at 08:00:30 (NODE_STOPPED): its node "
        + "stopped and the job was still running when the shutdown grace ended. Its node's life stopped it, not its job: "
        + "this is not a failure and spends no retry."), texts.toString());
    assertTrue(texts.contains("The interrupted attempt's window was scheduled to run again at once as RESUME (no retry "
        + "spent)."), texts.toString());
    assertTrue(texts.stream().noneMatch(x -> x.contains("failed")), texts.toString());
  }

  @Test
  @DisplayName("ran on time: due, attempt 1 started 2 s late on its node, succeeded; each step in UTC and local time")
  void ranOnTime() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, t("00:00:02"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(188), "12 stories", "s3://digests/2026-11-29", t("00:03:10"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertEquals("ran on time: due 08:00:00 Asia/Shanghai, attempt 1 started 08:00:02 (2 s late) on node "
        + "almanac@10.0.0.1:2552, succeeded 08:03:10", e.verdict());
    assertEquals(List.of(
        "Due 08:00:00 Asia/Shanghai, the trigger fired it on time and it was scheduled to run (window 2026-11-29 00:00:00 "
            + "to 2026-11-30 00:00:00).",
        "Attempt 1 (FIRST) started at 08:00:02 (2 s late) on node almanac@10.0.0.1:2552, lease until 10:00:02.",
        "Attempt 1 succeeded at 08:03:10 after 3 min 8 s: 12 stories (s3://digests/2026-11-29)."), texts(e));
    assertEquals(DUE, e.steps().get(0).atUtc());
    assertEquals("2026-11-29T08:00:00+08:00", e.steps().get(0).atLocal());
  }

  @Test
  @DisplayName("heartbeats are one step (the latest lease); effects intended and recorded are steps")
  void leaseExtendedAndEffects() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new LeaseExtended(DAY, 1, t("02:30:00"), t("00:30:00")),
        new LeaseExtended(DAY, 1, t("03:00:00"), t("01:00:00")),
        new EffectIntended(DAY, 1, "post", t("01:10:00")),
        new EffectRecorded(DAY, 1, "post", "msg-42", t("01:10:01")),
        new AttemptSucceeded(DAY, 1, Duration.ofMinutes(75), "done", null, t("01:15:00"))));
    wellFormed(e);
    assertEquals(List.of(
        "Due 08:00:00 Asia/Shanghai, the trigger fired it on time and it was scheduled to run (window 2026-11-29 00:00:00 "
            + "to 2026-11-30 00:00:00).",
        "Attempt 1 (FIRST) started at 08:00:00 (on the dot) on node almanac@10.0.0.1:2552, lease until 10:00:00.",
        "Attempt 1's heartbeats (2) extended its lease until 11:00:00.",
        "Attempt 1 was about to run effect 'post' (its outcome is unknown until it is recorded).",
        "Attempt 1 recorded effect 'post' = msg-42.",
        "Attempt 1 succeeded at 09:15:00 after 1 h 15 min: done."), texts(e));
    assertEquals(t("01:00:00"), e.steps().get(2).atUtc(), "the collapsed step is at the latest heartbeat");
  }

  @Test
  @DisplayName("skipped PREVIOUS_RUNNING: the window that ran comes from the task's state at the skip, not from the skip's "
      + "detail (a detail that names no window, or another one, tells the same)")
  void previousRunningComesFromTheStateNotTheDetail() {
    String seven = "2026-11-28T23:00:00Z";
    String eight = "2026-11-29T00:00:00Z";
    Instant due7 = Instant.parse(seven);
    for (String detail : List.of("window " + seven + " is RUNNING", "another run is in progress", "window 1999 is RUNNING")) {
      List<Event> events = new ArrayList<>();
      events.add(new SpecDefined(hourly(), Instant.parse("2026-11-28T00:00:00Z")));
      events.add(new InstanceScheduled(seven, due7, due7, due7, RunKind.FIRST, due7));
      events.add(new AttemptStarted(seven, 1, RunKind.FIRST, Instant.parse("2026-11-29T00:02:00Z"), N2, due7));
      events.add(new FireSkipped(eight, DUE, DUE, DUE, SkipReason.PREVIOUS_RUNNING, detail, DUE));
      Explanation e = explain(events, eight);
      assertEquals("skipped: window 2026-11-28T23:00:00Z was RUNNING (attempt 1 on node almanac@10.0.0.2:2552, lease until "
          + "08:02:00) and the overlap policy SKIP runs one window at a time (PREVIOUS_RUNNING)", e.verdict(), detail);
      WindowExplanation.Digest digest = new WindowExplanation.Digest(eight, 10);
      WindowExplanation.auditEvents(TASK, events).forEach(digest::add);
      assertEquals(e, digest.explain(TASK), detail);
    }
  }

  @Test
  @DisplayName("skipped PREVIOUS_RUNNING: names the window that ran, its attempt, node and lease, from the journal folded to then")
  void skippedPreviousRunning() {
    String seven = "2026-11-28T23:00:00Z";
    String eight = "2026-11-29T00:00:00Z";
    Instant due7 = Instant.parse(seven);
    List<Event> events = new ArrayList<>();
    events.add(new SpecDefined(hourly(), Instant.parse("2026-11-28T00:00:00Z")));
    events.add(new InstanceScheduled(seven, due7, due7, due7, RunKind.FIRST, due7));
    events.add(new AttemptStarted(seven, 1, RunKind.FIRST, due7.plusSeconds(3600), N1, due7));
    events.add(new AttemptFailed(seven, 1, Duration.ofSeconds(30), "upstream 503", due7.plusSeconds(30)));
    events.add(new RetryScheduled(seven, 1, due7.plusSeconds(60), due7.plusSeconds(30)));
    events.add(new InstanceScheduled(seven, due7, due7, due7, RunKind.RETRY, due7.plusSeconds(60)));
    events.add(new AttemptStarted(seven, 2, RunKind.RETRY, Instant.parse("2026-11-29T00:02:00Z"), N2, due7.plusSeconds(60)));
    events.add(new FireSkipped(eight, DUE, DUE, DUE, SkipReason.PREVIOUS_RUNNING, "window " + seven + " is RUNNING", DUE));
    Explanation e = explain(events, eight);
    wellFormed(e);
    assertEquals("SKIPPED", e.status());
    assertEquals("skipped: window 2026-11-28T23:00:00Z was RUNNING (attempt 2 on node almanac@10.0.0.2:2552, lease until "
        + "08:02:00) and the overlap policy SKIP runs one window at a time (PREVIOUS_RUNNING)", e.verdict());
    assertEquals(1, e.steps().size());

    Explanation seventh = explain(events, seven);
    assertEquals("RUNNING", seventh.status());
    assertEquals("running: attempt 2 on node almanac@10.0.0.2:2552 since 07:01:00, lease until 08:02:00", seventh.verdict());
    assertTrue(texts(seventh).contains("The retry policy scheduled retry 1, due at 07:01:00 (back-off 30 s)."),
        texts(seventh).toString());
    assertTrue(texts(seventh).contains("The back-off passed: the window was scheduled again for retry 1."), texts(seventh).toString());
    assertTrue(texts(seventh).contains("Attempt 2 (RETRY) started at 07:01:00 (as soon as its retry was due) on node "
        + "almanac@10.0.0.2:2552, lease until 08:02:00."), texts(seventh).toString());
  }

  @Test
  void skippedBufferFull() {
    Explanation e = explain(journal(new FireSkipped(DAY, START, END, DUE, SkipReason.BUFFER_FULL,
        "windows 2026-11-27, 2026-11-28 are waiting to start (overlap SKIP queues at most 2 not yet started)", DUE)));
    wellFormed(e);
    assertEquals("skipped: windows 2026-11-27, 2026-11-28 are waiting to start (overlap SKIP queues at most 2 not yet "
        + "started) and the overlap policy SKIP queues no more (BUFFER_FULL)", e.verdict());
  }

  @Test
  @DisplayName("skipped PAUSED: says when the task was paused")
  void skippedPaused() {
    Explanation e = explain(journal(
        new TaskPaused(Instant.parse("2026-11-28T10:15:00Z")),
        new FireSkipped(DAY, START, END, DUE, SkipReason.PAUSED, "task is paused", DUE)));
    wellFormed(e);
    assertEquals("skipped: the task was paused since 2026-11-28 18:15:00 by an operator, so the window was recorded SKIPPED "
        + "(PAUSED)", e.verdict());
    assertEquals(List.of("Due 08:00:00 Asia/Shanghai, it was skipped: the task was paused since 2026-11-28 18:15:00 by an "
        + "operator, so the window was recorded SKIPPED (PAUSED)."), texts(e));
  }

  @Test
  @DisplayName("skipped PAUSED after the task paused itself on failures: says so, since when and which windows")
  void skippedPausedOnFailures() {
    Explanation e = explain(journal(
        new TaskPaused(Instant.parse("2026-11-28T10:15:00Z"), io.almanac.journal.TaskJournal.PauseCause.FAILURES,
            new io.almanac.journal.TaskJournal.FailureStreak(3, "2026-11-26", "2026-11-28")),
        new FireSkipped(DAY, START, END, DUE, SkipReason.PAUSED, "task paused itself after 3 windows in a row ended "
            + "FINAL_FAILED, from '2026-11-26' to '2026-11-28'; an operator's resume runs it again", DUE)));
    wellFormed(e);
    assertEquals("skipped: the task had paused itself since 2026-11-28 18:15:00, after 3 windows in a row ended FINAL_FAILED "
        + "(from 2026-11-26 to 2026-11-28), so the window was recorded SKIPPED (PAUSED)", e.verdict());
  }

  @Test
  @DisplayName("a deadline missed while the window ran is a step of its story, and the window went on")
  void deadlineMissedWhileRunning() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new io.almanac.journal.TaskJournal.DeadlineMissed(DAY, DUE, t("01:00:00"), io.almanac.InstanceStatus.RUNNING, 1,
            t("01:00:00")),
        new AttemptSucceeded(DAY, 1, Duration.ofMinutes(90), "late", null, t("01:30:00"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertTrue(texts(e).stream().anyMatch(x -> x.startsWith("Its deadline 09:00:00 (1 h after due) passed while it was still "
        + "RUNNING (attempt 1): DEADLINE_MISSED was recorded at 09:00:00")), texts(e).toString());
  }

  @Test
  @DisplayName("a pause and a resume while the window waits to retry are steps of its story")
  void pausedAndResumedWhileOpen() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(5), "boom", t("00:00:05")),
        new RetryScheduled(DAY, 1, t("00:30:00"), t("00:00:05")),
        new TaskPaused(t("00:10:00")),
        new TaskResumed(t("00:20:00"))));
    wellFormed(e);
    assertEquals("RETRY_WAIT", e.status());
    assertEquals("waiting to retry: retry 1 due at 08:30:00 after attempt 1 failed: boom", e.verdict());
    assertTrue(texts(e).contains("The task was paused (an operator's pause): windows due from here on are skipped until it "
        + "is resumed."), texts(e).toString());
    assertTrue(texts(e).contains("The task was resumed after a pause since 08:10:00."), texts(e).toString());
  }

  @Test
  @DisplayName("a window waiting to retry while its task is paused is held by the pause: the verdict says it starts after the resume")
  void heldByThePause() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(5), "boom", t("00:00:05")),
        new RetryScheduled(DAY, 1, t("00:30:00"), t("00:00:05")),
        new TaskPaused(t("00:10:00"))));
    wellFormed(e);
    assertEquals("RETRY_WAIT", e.status());
    assertEquals("waiting to retry: retry 1 due at 08:30:00 after attempt 1 failed: boom; held by the task's pause since "
        + "08:10:00: it starts after the resume", e.verdict());
  }

  @Test
  @DisplayName("WINDOW_EXISTS: an operator's run of a done window changes nothing, and says so")
  void windowExists() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("00:00:01")),
        new FireSkipped(DAY, START, END, DUE, SkipReason.WINDOW_EXISTS, "window is SUCCEEDED", t("05:00:00"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertEquals("An operator's run or backfill found the window already SUCCEEDED (WINDOW_EXISTS): nothing changed.",
        texts(e).get(3));
    Explanation fresh = explain(journal(new FireSkipped(DAY, START, END, DUE, SkipReason.WINDOW_EXISTS, "window is SUCCEEDED",
        DUE)));
    assertEquals("skipped: the window already had an instance (WINDOW_EXISTS: window is SUCCEEDED)", fresh.verdict());
  }

  @Test
  void skippedDependencyNotMet() {
    Explanation e = explain(journal(new FireSkipped(DAY, START, END, DUE, SkipReason.DEPENDENCY_NOT_MET,
        "task 'ingest' window 2026-11-29 is FAILED", DUE)));
    wellFormed(e);
    assertEquals("skipped: a dependency had not succeeded for this window (DEPENDENCY_NOT_MET: task 'ingest' window "
        + "2026-11-29 is FAILED)", e.verdict());
  }

  @Test
  void skippedConditionNotMet() {
    Explanation e = explain(journal(new FireSkipped(DAY, START, END, DUE, SkipReason.CONDITION_NOT_MET,
        "market closed", DUE)));
    wellFormed(e);
    assertEquals("skipped: the task's condition did not hold (CONDITION_NOT_MET: market closed)", e.verdict());
  }

  @ParameterizedTest
  @EnumSource(SkipReason.class)
  @DisplayName("every skip reason is named in the verdict and in its step")
  void everySkipReasonIsNamed(SkipReason reason) {
    Explanation e = explain(journal(new FireSkipped(DAY, START, END, DUE, reason, "detail of " + reason, DUE)));
    wellFormed(e);
    assertEquals("SKIPPED", e.status());
    assertTrue(e.verdict().startsWith("skipped: "), e.verdict());
    assertTrue(e.verdict().contains(reason.name()), e.verdict());
    assertTrue(texts(e).get(0).contains(reason.name()), texts(e).toString());
  }

  @ParameterizedTest
  @EnumSource(MissReason.class)
  @DisplayName("every miss reason is named in the verdict and in its step")
  void everyMissReasonIsNamed(MissReason reason) {
    Explanation e = explain(journal(new WindowMissed(DAY, START, END, DUE, reason, "detail of " + reason, t("00:00:30"))));
    wellFormed(e);
    assertEquals("MISSED", e.status());
    assertTrue(e.verdict().startsWith("missed: "), e.verdict());
    assertTrue(e.verdict().contains(reason.name()), e.verdict());
    assertTrue(texts(e).get(texts(e).size() - 1).contains(reason.name()), texts(e).toString());
  }

  @Test
  @DisplayName("missed OUTSIDE_HORIZON: names the horizon")
  void missedOutsideHorizon() {
    Explanation e = explain(journal(new WindowMissed(DAY, START, END, DUE, MissReason.OUTSIDE_HORIZON,
        "due 2026-11-29T00:00:00Z, older than the catch-up horizon PT24H", Instant.parse("2026-12-01T00:00:00Z"))));
    wellFormed(e);
    assertEquals("missed: the task's journal has no event from 2026-11-28 08:00:00 to 2026-12-01 08:00:00 (the node was down, "
        + "the trigger behind, or the clock stepped); it was older than the catch-up horizon of 24 h, and windows beyond it "
        + "are not run whatever the catch-up mode (OUTSIDE_HORIZON)", e.verdict());
  }

  @Test
  @DisplayName("missed BACKFILL_NOT_ALLOWED after a restart: the node was down between its two writers' events")
  void missedWhileTheNodeWasDown() {
    List<AuditEvent> events = new ArrayList<>(WindowExplanation.auditEvents(TASK, journal(
        new InstanceScheduled("2026-11-28", START.minus(Duration.ofDays(1)), START, DUE.minus(Duration.ofDays(1)), RunKind.FIRST,
            Instant.parse("2026-11-28T22:58:00Z")),
        new WindowMissed(DAY, START, END, DUE, MissReason.BACKFILL_NOT_ALLOWED, "due 2026-11-29T00:00:00Z and not fired on time",
            t("00:20:00")))));
    WriterStamp n1 = new WriterStamp("pekko://almanac@10.0.0.1:2552", 1);
    WriterStamp n1Again = new WriterStamp("pekko://almanac@10.0.0.1:2552", 2);
    events.set(1, events.get(1).withWriter(n1));
    events.set(2, events.get(2).withWriter(n1Again));
    Explanation e = explainAudit(events, DAY);
    wellFormed(e);
    assertEquals("missed: its node restarted between 06:58:00 and 08:20:00 (the task's journal was "
        + "written by almanac@10.0.0.1:2552 until then and by a new incarnation of it after); the catch-up policy NONE "
        + "records windows that were not fired within the on-time grace as MISSED instead of running them "
        + "(BACKFILL_NOT_ALLOWED)", e.verdict());
    assertEquals(2, e.steps().size());
    assertTrue(texts(e).get(1).startsWith("At 08:20:00, 20 min after due, it was recorded MISSED: "), texts(e).toString());
  }

  @Test
  @DisplayName("missed BACKFILL_NOT_ALLOWED under catch-up ALL with a span: the policy's own detail")
  void missedOutsideTheCatchUpSpan() {
    List<Event> events = List.of(
        new SpecDefined(spec(TaskSpec.builder(TASK).cron("0 0 8 * * ? Asia/Shanghai")
            .catchUp(CatchUpPolicy.all().withinSpan(Duration.ofHours(1)))), Instant.parse("2026-11-28T00:00:00Z")),
        new WindowMissed(DAY, START, END, DUE, MissReason.BACKFILL_NOT_ALLOWED,
            "due 2026-11-29T00:00:00Z, outside the catch-up span PT1H after the window's start", t("00:00:30")));
    Explanation e = explain(events);
    assertEquals("missed: the catch-up policy ALL does not run it: due 2026-11-29T00:00:00Z, outside the catch-up span PT1H "
        + "after the window's start (BACKFILL_NOT_ALLOWED)", e.verdict());
  }

  @Test
  @DisplayName("ran late: a catch-up BACKFILL 20 min after due, because nothing was written while the node was down")
  void ranLateAsCatchUp() {
    Explanation e = explain(journal(
        new TaskResumed(Instant.parse("2026-11-28T23:40:00Z")),
        scheduled(RunKind.BACKFILL, t("00:20:05")),
        started(1, RunKind.BACKFILL, t("00:20:06"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(60), "ok", null, t("00:21:06"))));
    wellFormed(e);
    assertEquals("ran late: fired as a BACKFILL at 08:20:05, 20 min 5 s after due, because the task's journal has no event "
        + "from 07:40:00 to 08:20:05 (the node was down, the trigger behind, or the clock stepped); attempt 1 started "
        + "08:20:06 on node almanac@10.0.0.1:2552, succeeded 08:21:06", e.verdict());
    assertTrue(texts(e).get(0).startsWith("Due 08:00:00 Asia/Shanghai but not fired on time (the task's journal has no event "
        + "from 07:40:00 to 08:20:05"), texts(e).toString());
  }

  @Test
  @DisplayName("ran late: the latest window due during downtime is fired as FIRST after the restart, and says so")
  void ranLateAfterRestart() {
    List<AuditEvent> events = new ArrayList<>(WindowExplanation.auditEvents(TASK, journal(
        new TaskResumed(Instant.parse("2026-11-28T23:58:00Z")),
        scheduled(RunKind.FIRST, t("00:20:05")),
        started(1, RunKind.FIRST, t("00:20:05"), N2),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(60), "ok", null, t("00:21:05")))));
    events.set(1, events.get(1).withWriter(new WriterStamp("pekko://almanac@10.0.0.1:2552", 1)));
    events.set(2, events.get(2).withWriter(new WriterStamp("pekko://almanac@10.0.0.2:2552", 7)));
    Explanation e = explainAudit(events, DAY);
    wellFormed(e);
    assertEquals("ran late: due 08:00:00 Asia/Shanghai, attempt 1 started 08:20:05, 20 min 5 s after due, because its node "
        + "was down or replaced between 07:58:00 and 08:20:05 (the task's journal was written by almanac@10.0.0.1:2552 "
        + "until then and by almanac@10.0.0.2:2552 after: a restart or a failover); succeeded 08:21:05", e.verdict());
    assertTrue(texts(e).get(0).startsWith("Due 08:00:00 Asia/Shanghai, the trigger fired it only at 08:20:05, 20 min 5 s "
        + "after due, because its node was down or replaced"), texts(e).toString());
    assertTrue(texts(e).get(0).endsWith("; as the latest window due while nothing fired it, it runs as a first run, not as a "
        + "catch-up."), texts(e).toString());
  }

  @Test
  @DisplayName("failed finally after 3 attempts (one timed out), with the last error, waiting in the intervention queue")
  void failedFinally() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503.", t("00:00:03")),
        new RetryScheduled(DAY, 1, t("00:05:03"), t("00:00:03")),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.RETRY, t("00:05:03")),
        new AttemptStarted(DAY, 2, RunKind.RETRY, t("00:06:03"), N1, t("00:05:03")),
        new AttemptTimedOut(DAY, 2, t("00:06:03"), Duration.ofMinutes(1), t("00:06:03")),
        new RetryScheduled(DAY, 2, t("00:16:03"), t("00:06:03")),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.RETRY, t("00:16:03")),
        new AttemptStarted(DAY, 3, RunKind.RETRY, t("02:16:03"), N2, t("00:16:03")),
        new AttemptFailed(DAY, 3, Duration.ofSeconds(4), "model quota exceeded", t("00:16:07")),
        InstanceFinalFailed.after(DAY, "retry cap 2 reached", "model quota exceeded", t("00:16:07"))));
    wellFormed(e);
    assertEquals("FINAL_FAILED", e.status());
    assertEquals("failed finally after 3 attempts, last error: model quota exceeded (retry cap 2 reached); waiting in the "
        + "intervention queue for an operator", e.verdict());
    assertTrue(texts(e).contains("Attempt 2 timed out at 08:06:03: its lease expired at 08:06:03 after running 1 min."),
        texts(e).toString());
    assertTrue(texts(e).contains("Attempt 1 failed at 08:00:03 after 3 s: upstream 503."), "one period: " + texts(e));
    assertTrue(texts(e).contains("Attempt 2 (RETRY) started at 08:05:03 (as soon as its retry was due) on node "
        + "almanac@10.0.0.1:2552, lease until 08:06:03."), texts(e).toString());
    assertTrue(texts(e).contains("It failed finally at 08:16:07: retry cap 2 reached; last: model quota exceeded; it waits in "
        + "the intervention queue for an operator to retry or resolve it."), texts(e).toString());
  }

  @Test
  @DisplayName("an attempt timed out before its lease ended (its executor was gone); its late result is kept for audit only")
  void timedOutWhenTheExecutorWasGoneAndALateResult() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptTimedOut(DAY, 1, t("02:00:00"), null, t("00:10:00")),
        InstanceFinalFailed.after(DAY, "not retried: the task is not marked for retry (max retries 0, R12)", "executor "
            + N1 + " is gone (node restarted or left)", t("00:10:00")),
        new LateResultRecorded(DAY, 1, JobResult.Outcome.SUCCEEDED, "attempt 1 no longer holds the window; summary: ok",
            t("00:11:00"))));
    wellFormed(e);
    assertTrue(texts(e).contains("Attempt 1 was timed out at 08:10:00, before its lease ended at 10:00:00: executor "
        + "almanac@10.0.0.1:2552 is gone (node restarted or left)."), texts(e).toString());
    assertTrue(texts(e).contains("A late SUCCEEDED result of attempt 1 arrived at 08:11:00 and was recorded for audit only: "
        + "that attempt no longer held the window (attempt 1 no longer holds the window; summary: ok)."), texts(e).toString());
    assertEquals("failed finally after 1 attempt, last error: timed out before its lease ended: executor almanac@10.0.0.1:2552 "
        + "is gone (node restarted or left) (not retried: the task is not marked for retry (max retries 0, R12)); waiting in "
        + "the intervention queue for an operator", e.verdict());
  }

  @Test
  @DisplayName("retried by an operator after a final failure, then succeeded")
  void retriedByOperator() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")),
        InstanceFinalFailed.after(DAY, "not retried: the task is not marked for retry (max retries 0, R12)", "upstream 503",
            t("00:00:03")),
        scheduled(RunKind.MANUAL, t("03:00:00")),
        started(2, RunKind.MANUAL, t("03:00:01"), N2),
        new AttemptSucceeded(DAY, 2, Duration.ofSeconds(9), "ok", null, t("03:00:10"))));
    wellFormed(e);
    assertEquals("ran after an operator's retry: due 08:00:00 Asia/Shanghai, attempt 2 started 11:00:01 on node "
        + "almanac@10.0.0.2:2552, succeeded 11:00:10", e.verdict());
    assertTrue(texts(e).contains("An operator retried the window (it was FINAL_FAILED): it was scheduled to run again as "
        + "MANUAL."), texts(e).toString());
    assertTrue(texts(e).contains("Attempt 2 (MANUAL) started at 11:00:01 on node almanac@10.0.0.2:2552, lease until 13:00:01."),
        "an operator's run is not late against the window's due time: " + texts(e));
  }

  @Test
  @DisplayName("an operator's actions name who did them and their note: retry, resolve, cancel, pause, resume, "
      + "backfill (events written before actors were recorded say 'an operator', as above)")
  void actorsNamed() {
    Explanation retried = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")),
        InstanceFinalFailed.after(DAY, "retry cap 0 reached", "upstream 503", t("00:00:03")),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.MANUAL, t("03:00:00"), "alice", "provider fixed"),
        started(2, RunKind.MANUAL, t("03:00:01"), N2),
        new AttemptSucceeded(DAY, 2, Duration.ofSeconds(9), "ok", null, t("03:00:10"))));
    wellFormed(retried);
    assertTrue(texts(retried).contains("alice retried the window (note: \"provider fixed\") (it was FINAL_FAILED): it was "
        + "scheduled to run again as MANUAL."), texts(retried).toString());
    assertTrue(retried.verdict().startsWith("ran after alice's retry: "), retried.verdict());

    Explanation resolved = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")),
        InstanceFinalFailed.after(DAY, "retry cap 0 reached", "upstream 503", t("00:00:03")),
        new InstanceResolved(DAY, "sent by hand", t("04:00:00"), "bob")));
    assertTrue(texts(resolved).contains("bob resolved the failed window at 12:00:00 with the note \"sent by hand\"."),
        texts(resolved).toString());
    assertTrue(resolved.verdict().startsWith("resolved by bob after failing finally"), resolved.verdict());

    Explanation cancelled = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        new TaskPaused(t("00:00:01"), null, null, "carol", "maintenance"),
        new TaskResumed(t("00:00:02"), "carol", null),
        new InstanceCancelled(DAY, 0, "not today", t("00:00:03"), TaskJournal.CancelCause.OPERATOR, "bob")));
    List<String> texts = texts(cancelled);
    assertTrue(texts.stream().anyMatch(x -> x.startsWith("carol paused the task (note: \"maintenance\"): windows due")),
        texts.toString());
    assertTrue(texts.stream().anyMatch(x -> x.startsWith("carol resumed the task after a pause since")), texts.toString());
    assertTrue(cancelled.verdict().contains("bob cancelled it with the reason \"not today\""), cancelled.verdict());

    Explanation backfill = explain(journal(
        new FireSkipped(DAY, START, END, DUE, SkipReason.PAUSED, "task is paused", DUE),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.BACKFILL, t("03:00:00"), "alice", null),
        started(1, RunKind.BACKFILL, t("03:00:00"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(2), "ok", null, t("03:00:02"))));
    assertTrue(texts(backfill).contains("alice's backfill reopened the window (it was SKIPPED) and scheduled it to run as "
        + "a BACKFILL."), texts(backfill).toString());
    assertTrue(backfill.verdict().contains("reopened from SKIPPED by alice's backfill"), backfill.verdict());

    List<AuditEvent> audit = WindowExplanation.auditEvents(TASK, journal(
        new InstanceScheduled(DAY, START, END, DUE, RunKind.MANUAL, t("03:00:00"), "alice", "provider fixed"),
        new TaskJournal.BudgetRaised(java.time.LocalDate.of(2026, 11, 29), 1_000_000, 6_000_000, null, t("03:00:00"), "bob")));
    assertEquals(java.util.Arrays.asList(null, "alice", "bob"), audit.stream().map(AuditEvent::actor).toList());
    assertTrue(audit.get(1).detail().endsWith(" by alice (note: \"provider fixed\")"), audit.get(1).detail());
    assertTrue(audit.get(2).detail().startsWith("bob raised the budget for 2026-11-29 by 1.00 to 6.00"), audit.get(2).detail());
  }

  @Test
  @DisplayName("an operator's run now, and an operator's backfill of a skipped window")
  void operatorRuns() {
    Explanation runNow = explain(journal(
        scheduled(RunKind.MANUAL, t("03:00:00")),
        started(1, RunKind.MANUAL, t("03:00:00"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(2), "ok", null, t("03:00:02"))));
    assertEquals("ran by an operator: run now, attempt 1 started 11:00:00 on node almanac@10.0.0.1:2552, succeeded 11:00:02",
        runNow.verdict());
    Explanation backfill = explain(journal(
        new FireSkipped(DAY, START, END, DUE, SkipReason.PAUSED, "task is paused", DUE),
        scheduled(RunKind.BACKFILL, t("03:00:00")),
        started(1, RunKind.BACKFILL, t("03:00:00"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(2), "ok", null, t("03:00:02"))));
    wellFormed(backfill);
    assertEquals("ran late: fired as a BACKFILL at 11:00:00, 3 h after due, reopened from SKIPPED by an operator's backfill; "
        + "attempt 1 started 11:00:00 on node almanac@10.0.0.1:2552, succeeded 11:00:02", backfill.verdict());
    assertTrue(texts(backfill).contains("An operator's backfill reopened the window (it was SKIPPED) and scheduled it to run as "
        + "a BACKFILL."), texts(backfill).toString());
  }

  @Test
  @DisplayName("resolved by an operator with a note")
  void resolved() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")),
        InstanceFinalFailed.after(DAY, "retry cap 0 reached", "upstream 503", t("00:00:03")),
        new InstanceResolved(DAY, "sent by hand", t("04:00:00"))));
    wellFormed(e);
    assertEquals("RESOLVED", e.status());
    assertEquals("resolved by an operator after failing finally (last error: upstream 503), with the note \"sent by hand\"",
        e.verdict());
    assertTrue(texts(e).contains("An operator resolved the failed window at 12:00:00 with the note \"sent by hand\"."),
        texts(e).toString());
  }

  @Test
  @DisplayName("cancelled by an operator with a reason, by CANCEL_PREVIOUS, and by the task's removal")
  void cancelled() {
    Explanation byOperator = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new InstanceCancelled(DAY, 1, "wrong prompt", t("00:01:00"), CancelCause.OPERATOR)));
    wellFormed(byOperator);
    assertEquals("cancelled: an operator cancelled it with the reason \"wrong prompt\"", byOperator.verdict());
    assertTrue(texts(byOperator).contains("It was cancelled at 08:01:00 while attempt 1 ran: an operator cancelled it with the "
        + "reason \"wrong prompt\"."), texts(byOperator).toString());

    Explanation superseded = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "superseded by window 2026-11-30", Instant.parse("2026-11-30T00:00:00Z"),
            CancelCause.SUPERSEDED)));
    assertEquals("cancelled: the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires "
        + "(superseded by window 2026-11-30)", superseded.verdict());

    Explanation removed = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "task removed", t("00:00:10"), CancelCause.TASK_REMOVED),
        new TaskRemoved(t("00:00:10"))));
    wellFormed(removed);
    assertEquals("cancelled: the task was removed", removed.verdict());
    assertEquals("The task was removed: it is fired no more; its history stays in the journal.",
        texts(removed).get(texts(removed).size() - 1));
  }

  @Test
  @DisplayName("R31: a cancel is told by its typed cause, never by its reason: an operator's reason 'task removed' is theirs")
  void cancelToldByItsCauseNotItsReason() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "task removed", t("00:00:10"), CancelCause.OPERATOR)));
    assertEquals("cancelled: an operator cancelled it with the reason \"task removed\"", e.verdict());
  }

  /** Reads an event as the journal stored it (JSON), the way the journal's Jackson serializer does. */
  static Event stored(Class<? extends Event> type, String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper()
          .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule()).readValue(json, type);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Journals written before final failures carried their decision and last cause and cancels their
   * cause: those events read with them null and are explained exactly as before the fields existed
   * (the texts below are those of the tests before them), their facts read from their reason by
   * LegacyReasons alone: a final failure's verdict shows its reason up to "; last: ", a timeout before
   * its lease the cause after "last: ", and a cancel is told by "task removed" / "superseded by window".
   */
  @Test
  @DisplayName("R28: final failures and cancels stored before their typed facts read with them null and are explained "
      + "exactly as before")
  void eventsStoredBeforeTheTypedFacts() {
    InstanceFinalFailed ff = (InstanceFinalFailed) stored(InstanceFinalFailed.class,
        "{\"window\":\"2026-11-29\",\"reason\":\"retry cap 0 reached\",\"at\":\"2026-11-29T00:00:03Z\"}");
    assertNull(ff.decision());
    assertNull(ff.lastCause());
    Explanation plain = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")), ff));
    assertEquals("failed finally after 1 attempt, last error: upstream 503 (retry cap 0 reached); waiting in the "
        + "intervention queue for an operator", plain.verdict(), "as before the typed facts");

    // (a) the verdict shows the decision part of the stored reason, the step the reason whole (as before)
    Event withLast = stored(InstanceFinalFailed.class, "{\"window\":\"2026-11-29\",\"reason\":\"retry cap 2 reached; last: "
        + "model quota exceeded\",\"at\":\"2026-11-29T00:00:03Z\"}");
    Explanation legacyFinal = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "model quota exceeded", t("00:00:03")), withLast));
    assertTrue(texts(legacyFinal).contains("It failed finally at 08:00:03: retry cap 2 reached; last: model quota exceeded; it "
        + "waits in the intervention queue for an operator to retry or resolve it."), texts(legacyFinal).toString());
    assertEquals("failed finally after 1 attempt, last error: model quota exceeded (retry cap 2 reached); waiting in the "
        + "intervention queue for an operator", legacyFinal.verdict());

    // (b) a timeout before its lease: the cause its final failure's reason names after "last:" (as before)
    Explanation orphan = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptTimedOut(DAY, 1, t("02:00:00"), null, t("00:10:00")),
        stored(InstanceFinalFailed.class, "{\"window\":\"2026-11-29\",\"reason\":\"not retried: the task is not marked "
            + "for retry (max retries 0, R12); last: executor almanac@10.0.0.1:2552 is gone (node restarted or left)\","
            + "\"at\":\"2026-11-29T00:10:00Z\"}")));
    assertTrue(texts(orphan).contains("Attempt 1 was timed out at 08:10:00, before its lease ended at 10:00:00: executor "
        + "almanac@10.0.0.1:2552 is gone (node restarted or left)."), texts(orphan).toString());
    assertEquals("failed finally after 1 attempt, last error: timed out before its lease ended: executor almanac@10.0.0.1:2552 "
        + "is gone (node restarted or left) (not retried: the task is not marked for retry (max retries 0, R12)); waiting in "
        + "the intervention queue for an operator", orphan.verdict());

    // (c) a cancel is told by its reason, as before
    InstanceCancelled removedCancel = (InstanceCancelled) stored(InstanceCancelled.class, "{\"window\":\"2026-11-29\","
        + "\"attempt\":0,\"reason\":\"task removed\",\"at\":\"2026-11-29T00:00:10Z\"}");
    assertNull(removedCancel.cause());
    assertEquals("cancelled: the task was removed", explain(journal(scheduled(RunKind.FIRST, DUE), removedCancel,
        new TaskRemoved(t("00:00:10")))).verdict());
    Event operatorCancel = stored(InstanceCancelled.class, "{\"window\":\"2026-11-29\",\"attempt\":1,\"reason\":"
        + "\"wrong prompt\",\"at\":\"2026-11-29T00:01:00Z\"}");
    Explanation byOperator = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1), operatorCancel));
    assertEquals("cancelled: an operator cancelled it with the reason \"wrong prompt\"", byOperator.verdict());
    assertTrue(texts(byOperator).contains("It was cancelled at 08:01:00 while attempt 1 ran: an operator cancelled it with the "
        + "reason \"wrong prompt\"."), texts(byOperator).toString());
    List<Event> underCancelPrevious = new ArrayList<>();
    underCancelPrevious.add(new SpecDefined(spec(TaskSpec.builder(TASK).cron("0 0 8 * * ? Asia/Shanghai")
        .overlap(io.almanac.OverlapPolicy.CANCEL_PREVIOUS)), Instant.parse("2026-11-28T00:00:00Z")));
    underCancelPrevious.add(scheduled(RunKind.FIRST, DUE));
    underCancelPrevious.add(stored(InstanceCancelled.class, "{\"window\":\"2026-11-29\",\"attempt\":0,\"reason\":"
        + "\"superseded by window 2026-11-30\",\"at\":\"2026-11-30T00:00:00Z\"}"));
    assertEquals("cancelled: the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires "
        + "(superseded by window 2026-11-30)", explain(underCancelPrevious).verdict());
    assertEquals("cancelled: the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires "
        + "(superseded by window 2026-11-30)", explain(journal(scheduled(RunKind.FIRST, DUE),
        stored(InstanceCancelled.class, "{\"window\":\"2026-11-29\",\"attempt\":0,\"reason\":\"superseded by window "
            + "2026-11-30\",\"at\":\"2026-11-30T00:00:00Z\"}"))).verdict(), "as before: told by its reason alone");
  }

  /** Events that carry the typed facts are explained from them, even where their reason's text says otherwise. */
  @Test
  @DisplayName("R28: final failures and cancels that carry their typed facts are explained from them, not from their text")
  void typedFactsWinOverTheText() {
    Explanation e = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptTimedOut(DAY, 1, t("02:00:00"), null, t("00:10:00")),
        new InstanceFinalFailed(DAY, "retry cap 9 reached; last: words of another writer", t("00:10:00"), "retry cap 0 reached",
            "executor " + N1 + " is gone (node restarted or left)")));
    assertTrue(texts(e).contains("Attempt 1 was timed out at 08:10:00, before its lease ended at 10:00:00: executor "
        + "almanac@10.0.0.1:2552 is gone (node restarted or left)."), texts(e).toString());
    assertEquals("failed finally after 1 attempt, last error: timed out before its lease ended: executor almanac@10.0.0.1:2552 "
        + "is gone (node restarted or left) (retry cap 0 reached); waiting in the intervention queue for an operator",
        e.verdict());

    Explanation noCause = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptTimedOut(DAY, 1, t("02:00:00"), null, t("00:10:00")),
        new InstanceFinalFailed(DAY, "retry cap 0 reached; last: words of another writer", t("00:10:00"), "retry cap 0 reached",
            null)));
    assertTrue(texts(noCause).stream().anyMatch(x -> x.contains("before its lease ended at 10:00:00: cause not recorded")),
        "a decision without a last cause is a new event: its text is not read " + texts(noCause));

    assertEquals("cancelled: the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires "
        + "(task removed)", explain(journal(scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "task removed", t("00:00:10"), CancelCause.SUPERSEDED))).verdict());
    assertEquals("cancelled: the task was removed", explain(journal(scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "superseded by window 2026-11-30", t("00:00:10"), CancelCause.TASK_REMOVED),
        new TaskRemoved(t("00:00:10")))).verdict());
  }

  @Test
  @DisplayName("a window waiting for an executor, and one whose attempt just failed, say what they wait for")
  void openWindows() {
    Explanation pending = explain(journal(scheduled(RunKind.FIRST, DUE)));
    assertEquals("waiting to start: scheduled as FIRST at 08:00:00 and not yet taken by an executor", pending.verdict());
    Explanation failed = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03"))));
    assertEquals("attempt 1 failed: upstream 503; the retry policy has not decided yet", failed.verdict());
  }

  @Test
  @DisplayName("no such window: before the task's registration, not due yet, not a firing of the schedule, not a key")
  void noSuchWindow() {
    List<Event> events = journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(2), "ok", null, t("00:00:02")));
    Explanation before = explain(events, "2026-11-20");
    assertEquals("NONE", before.status());
    assertFalse(before.known());
    assertEquals("no such window: the task has no record of window 2026-11-20; it was due 2026-11-20 08:00:00 Asia/Shanghai, "
        + "before the task was registered at 2026-11-28 08:00:00, and windows due before a task's registration are not "
        + "fired; its nearest windows are 2026-11-29", before.verdict());
    assertEquals(List.of("The task was registered at 2026-11-28 08:00:00 Asia/Shanghai (cron '0 0 8 * * ?' in Asia/Shanghai, "
        + "window daily)."), texts(before));

    Explanation later = explain(events, "2026-12-05");
    assertEquals("no such window: the task has no record of window 2026-12-05; it is due 2026-12-05 08:00:00 Asia/Shanghai, "
        + "after the journal's last event (2026-11-29 08:00:02): not due yet; its nearest windows are 2026-11-29",
        later.verdict());

    Explanation notAKey = explain(events, "yesterday");
    assertEquals("no such window: the task has no record of window yesterday; 'yesterday' is not a key its window spec 'daily' "
        + "makes (keys look like 2026-11-29); its nearest windows are 2026-11-29", notAKey.verdict());

    List<Event> weekdays = List.of(new SpecDefined(spec(TaskSpec.builder(TASK).cron("0 0 8 ? * MON-FRI Asia/Shanghai")),
        Instant.parse("2026-11-20T00:00:00Z")));
    Explanation sunday = explain(weekdays, "2026-11-29");
    assertEquals("no such window: the task has no record of window 2026-11-29; its schedule (cron '0 0 8 ? * MON-FRI' in "
        + "Asia/Shanghai, window daily) does not fire in that window; the task has no windows yet", sunday.verdict());

    Explanation removedFirst = explain(journal(new TaskRemoved(Instant.parse("2026-11-28T12:00:00Z"))), "2026-11-29");
    assertTrue(removedFirst.verdict().contains("it is due 2026-11-29 08:00:00 Asia/Shanghai, after the task was removed at "
        + "2026-11-28 20:00:00"), removedFirst.verdict());
  }

  static final String UPSTREAM = "upstream order-export (SAME_WINDOW)";

  static WindowWaiting waiting() {
    return new WindowWaiting(DAY, START, END, DUE, RunKind.FIRST, UPSTREAM, t("06:00:00"), DUE);
  }

  @Test
  @DisplayName("WAITING: what it waits for and until when, in the verdict and its step")
  void waitingForUpstream() {
    Explanation e = explain(journal(waiting()));
    wellFormed(e);
    assertEquals("WAITING", e.status());
    assertEquals("waiting for upstream order-export (SAME_WINDOW) until 14:00:00 (due 08:00:00 Asia/Shanghai)", e.verdict());
    assertEquals(List.of("Due 08:00:00 Asia/Shanghai, it was recorded WAITING for upstream order-export (SAME_WINDOW) until "
        + "14:00:00 (FIRST, window 2026-11-29 00:00:00 to 2026-11-30 00:00:00)."), texts(e));
  }

  @Test
  @DisplayName("released: the WaitSatisfied detail, the schedule that followed, and a verdict that says the run waited")
  void releasedAndRan() {
    Explanation e = explain(journal(waiting(),
        new WaitSatisfied(DAY, "upstream order-export succeeded for 2026-11-29 at 10:30:00", t("02:30:00")),
        scheduled(RunKind.FIRST, t("02:30:00")),
        started(1, RunKind.FIRST, t("02:30:01"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(9), "ok", null, t("02:30:10"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertEquals("ran after its wait: due 08:00:00 Asia/Shanghai, released 10:30:00 (upstream order-export succeeded for "
        + "2026-11-29 at 10:30:00), attempt 1 started 10:30:01 on node almanac@10.0.0.1:2552, succeeded 10:30:10", e.verdict());
    assertEquals("Released at 10:30:00, after waiting 2 h 30 min: upstream order-export succeeded for 2026-11-29 at "
        + "10:30:00.", texts(e).get(1));
    assertEquals("Released, it was scheduled to run as FIRST at 10:30:00, 2 h 30 min after due.", texts(e).get(2));
  }

  @Test
  @DisplayName("skipped DEPENDENCY_NOT_MET and CONDITION_NOT_MET when the wait's deadline passed, with their detail and the "
      + "last failed poll")
  void waitEnded() {
    Explanation dep = explain(journal(waiting(), new WaitEnded(DAY, SkipReason.DEPENDENCY_NOT_MET,
        "upstream order-export window 2026-11-29 is FAILED", t("06:00:00"))));
    wellFormed(dep);
    assertEquals("SKIPPED", dep.status());
    assertEquals("skipped: a dependency had not succeeded for this window (DEPENDENCY_NOT_MET: upstream order-export window "
        + "2026-11-29 is FAILED)", dep.verdict());
    assertEquals("Its wait ended at 14:00:00 (deadline 14:00:00) without what it waited for: it was recorded SKIPPED, a "
        + "dependency had not succeeded for this window (DEPENDENCY_NOT_MET: upstream order-export window 2026-11-29 is "
        + "FAILED), and a WAIT_EXPIRED alert was raised.", texts(dep).get(1));

    Explanation cond = explain(journal(
        new WindowWaiting(DAY, START, END, DUE, RunKind.FIRST, "condition settlement-file", t("02:00:00"), DUE),
        new ConditionCheckFailed(DAY, "settlement-file", "java.io.IOException: mount gone", t("00:01:00")),
        new WaitEnded(DAY, SkipReason.CONDITION_NOT_MET, "condition settlement-file did not hold by 10:00:00",
            t("02:00:00"))));
    wellFormed(cond);
    assertEquals("skipped: the task's condition did not hold (CONDITION_NOT_MET: condition settlement-file did not hold by "
        + "10:00:00); the last poll failed: condition 'settlement-file' failed: java.io.IOException: mount gone",
        cond.verdict());
    assertEquals("A poll of condition 'settlement-file' failed at 08:01:00: java.io.IOException: mount gone; it is polled "
        + "again at the next poll.", texts(cond).get(1));

    Explanation stillWaiting = explain(journal(
        new WindowWaiting(DAY, START, END, DUE, RunKind.FIRST, "condition settlement-file", t("02:00:00"), DUE),
        new ConditionCheckFailed(DAY, "settlement-file", "timed out after 10 s", t("00:01:00"))));
    assertEquals("waiting for condition settlement-file until 10:00:00 (due 08:00:00 Asia/Shanghai); last poll: condition "
        + "'settlement-file' failed: timed out after 10 s", stillWaiting.verdict());
  }

  @Test
  @DisplayName("released when met, then skipped by the overlap policy: the release and the overlap reason")
  void releasedThenOverlapSkip() {
    Explanation e = explain(journal(waiting(),
        new WaitSatisfied(DAY, "upstream order-export succeeded for 2026-11-29", t("01:00:00")),
        new WaitEnded(DAY, SkipReason.BUFFER_FULL, "windows 2026-11-27, 2026-11-28 are waiting to start", t("01:00:00"))));
    wellFormed(e);
    assertEquals("SKIPPED", e.status());
    assertTrue(e.verdict().startsWith("skipped: windows 2026-11-27, 2026-11-28 are waiting to start and the overlap policy"),
        e.verdict());
    assertTrue(e.verdict().contains("(BUFFER_FULL)"), e.verdict());
    assertTrue(texts(e).get(2).startsWith("Released, it did not run: "), texts(e).toString());
  }

  @Test
  @DisplayName("released late: a DEPENDENCY_NOT_MET window is released when its upstream succeeds later")
  void releasedLate() {
    Explanation e = explain(journal(waiting(),
        new WaitEnded(DAY, SkipReason.DEPENDENCY_NOT_MET, "upstream order-export window 2026-11-29 is FAILED", t("06:00:00")),
        new WaitSatisfied(DAY, "released late: upstream order-export succeeded for 2026-11-29", t("09:00:00")),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.BACKFILL, t("09:00:00"))));
    wellFormed(e);
    assertEquals("PENDING", e.status());
    assertEquals("Released at 17:00:00, after waiting 9 h: released late: upstream order-export succeeded for 2026-11-29.",
        texts(e).get(2));
    assertEquals("Released, it was scheduled to run as BACKFILL at 17:00:00, 9 h after due.", texts(e).get(3));
  }

  @Test
  @DisplayName("an event storm is one window: the deciding event is a step, the rest one coalesced step with the counts "
      + "and the first and last ids, also in the verdict")
  void coalescedEvents() {
    List<Event> events = new ArrayList<>();
    events.add(new SpecDefined(spec(TaskSpec.builder(TASK).onEvent(io.almanac.EventTrigger.of("order.paid"))
        .zone("Asia/Shanghai").window("daily")), Instant.parse("2026-11-28T00:00:00Z")));
    events.add(scheduled(RunKind.FIRST, DUE));
    events.add(new EventReceived(DAY, "order.paid", "e0", DUE, "order 0 paid", DUE));
    for (int i = 1; i < 10_000; i++) {
      Instant at = DUE.plusMillis(i);
      if (i % 5 == 0) {
        events.add(new EventReceived(DAY, "order.paid", "e" + i, at, null, at));
      } else {
        events.add(new EventDuplicated(DAY, "e" + (i - i % 5), at));
      }
    }
    Explanation e = WindowExplanation.explain(TASK, WindowExplanation.auditEvents(TASK, events), DAY);
    wellFormed(e);
    assertEquals("PENDING", e.status());
    assertEquals(List.of(
        "Due 08:00:00 Asia/Shanghai, the trigger fired it on time and it was scheduled to run (window 2026-11-29 00:00:00 "
            + "to 2026-11-30 00:00:00).",
        "Event order.paid id e0 arrived at 08:00:00 (event time 08:00:00): order 0 paid; it decided the window.",
        "Coalesced 10000 events (2000 distinct ids, 8000 duplicates), first id e0, last id e9995."), texts(e));
    assertTrue(e.verdict().endsWith("; it coalesced 10000 events (2000 distinct ids, 8000 duplicates), first id e0, last id "
        + "e9995"), e.verdict());
  }

  @Test
  @DisplayName("an upstream rerun after the window ran: the decision and why")
  void upstreamRerun() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        started(1, RunKind.FIRST, DUE, N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("00:00:01")),
        new UpstreamRerunRecorded(DAY, "order-export", DAY, "KEPT", "the window succeeded: no window succeeds twice",
            t("05:00:00"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertEquals("Upstream task order-export succeeded for its window 2026-11-29 at 13:00:00, after this window had been "
        + "SUCCEEDED: KEPT (the window succeeded: no window succeeds twice).", texts(e).get(3));
  }

  @Test
  @DisplayName("every event type of TaskJournal is told in its own words (none falls to the generic sentence)")
  void everyEventTypeHasItsWords() {
    Set<Class<?>> covered = new HashSet<>();
    List<List<Event>> journals = List.of(
        journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
            new LeaseExtended(DAY, 1, t("03:00:00"), t("00:30:00")), new EffectIntended(DAY, 1, "k", t("00:31:00")),
            new EffectRecorded(DAY, 1, "k", "v", t("00:31:01")), new TaskPaused(t("00:32:00")), new TaskResumed(t("00:33:00")),
            new AttemptFailed(DAY, 1, Duration.ofSeconds(1), "x", t("00:40:00")),
            new RetryScheduled(DAY, 1, t("00:41:00"), t("00:40:00")),
            new InstanceScheduled(DAY, START, END, DUE, RunKind.RETRY, t("00:41:00")),
            started(2, RunKind.RETRY, t("00:41:00"), N1),
            new AttemptTimedOut(DAY, 2, t("02:41:00"), Duration.ofHours(2), t("02:41:00")),
            InstanceFinalFailed.after(DAY, "retry cap 1 reached", "lease expired", t("02:41:00")),
            new LateResultRecorded(DAY, 2, JobResult.Outcome.FAILED, "late", t("02:42:00")),
            new InstanceResolved(DAY, "ok", t("03:00:00"))),
        journal(new FireSkipped(DAY, START, END, DUE, SkipReason.PAUSED, "p", DUE)),
        journal(new WindowMissed(DAY, START, END, DUE, MissReason.OUTSIDE_HORIZON, "m", DUE),
            scheduled(RunKind.MANUAL, t("01:00:00")), new InstanceCancelled(DAY, 0, "task removed", t("01:00:01"),
                CancelCause.TASK_REMOVED),
            new TaskRemoved(t("01:00:01")),
            new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("01:00:02"))),
        journal(waiting(), new ConditionCheckFailed(DAY, "settlement-file", "timed out after 10 s", t("00:01:00")),
            new WaitSatisfied(DAY, "upstream order-export succeeded for 2026-11-29", t("01:00:00")),
            scheduled(RunKind.FIRST, t("01:00:00")), new EventReceived(DAY, "order.paid", "evt-1", DUE, "paid", t("01:00:00")),
            new EventDuplicated(DAY, "evt-1", t("01:00:01")),
            started(1, RunKind.FIRST, t("01:00:02"), N1),
            new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("01:00:03")),
            new UpstreamRerunRecorded(DAY, "order-export", DAY, "KEPT", "the window succeeded: no window succeeds twice",
                t("03:00:00"))),
        journal(waiting(), new WaitEnded(DAY, SkipReason.DEPENDENCY_NOT_MET, "upstream order-export window 2026-11-29 is "
            + "FAILED", t("06:00:00"))),
        journal(WindowExplanationBudgetTest.budgetSkip(), WindowExplanationBudgetTest.raise()),
        // a fresh window's schedule and start in one row: explained as the two events it stands for
        journal(new TaskJournal.WindowStarted(DAY, DUE.minus(Duration.ofHours(8)), DUE.plus(Duration.ofHours(16)), DUE,
            RunKind.FIRST, 1, DUE.plus(Duration.ofHours(2)), N1, DUE),
            new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("00:00:01"))),
        // a window that waits for a resource pool (PoolExplanationTest tells it in full)
        journal(scheduled(RunKind.FIRST, DUE), new TaskJournal.PoolWaited(DAY, "openai", io.almanac.PoolWaitReason.FULL, null,
            DUE)),
        // an attempt interrupted by its node's life, resumed (docs/long-jobs/interruption.md)
        journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
            new TaskJournal.AttemptInterrupted(DAY, 1, io.almanac.InterruptCause.FENCED, "executor fenced out", t("00:10:00")),
            scheduled(RunKind.RESUME, t("00:10:00"))),
        // a deadline missed while running (docs/deadlines.md)
        journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
            new TaskJournal.DeadlineMissed(DAY, DUE, t("01:00:00"), io.almanac.InstanceStatus.RUNNING, 1, t("01:00:00"))),
        // durable steps: recorded by attempt 1, replayed by attempt 2 (docs/long-jobs/steps.md)
        journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
            new TaskJournal.StepRecorded(DAY, 1, "gather", "java.lang.String", "\"facts\"",
                new io.almanac.journal.UsageRecord("m", 10, 5, 20_000), Duration.ofSeconds(3), t("00:00:03")),
            new AttemptFailed(DAY, 1, Duration.ofSeconds(5), "draft failed", t("00:00:05")),
            new RetryScheduled(DAY, 1, t("00:00:05"), t("00:00:05")),
            new InstanceScheduled(DAY, START, END, DUE, RunKind.RETRY, t("00:00:05")),
            started(2, RunKind.RETRY, t("00:00:05"), N1),
            new TaskJournal.StepsReplayed(DAY, 2, List.of("gather"), t("00:00:09")),
            new AttemptSucceeded(DAY, 2, Duration.ofSeconds(4), "ok", null, t("00:00:09"))),
        // skip ranges (docs/skip-ranges.md): one opened and closed, one written closed by a catch-up
        journal(new TaskJournal.SkipRangeOpened(DAY, START, END, DUE, io.almanac.InstanceStatus.SKIPPED,
                SkipReason.PREVIOUS_RUNNING, null, "window 2026-11-28 is RUNNING", DUE),
            new TaskJournal.SkipRangeClosed(DAY, "2026-12-01", START.plus(Duration.ofDays(2)), DUE.plus(Duration.ofDays(2)), 3,
                DUE.plus(Duration.ofDays(3)))),
        journal(new TaskJournal.WindowsSkipped(DAY, START, END, DUE, "2026-12-01", START.plus(Duration.ofDays(2)),
            DUE.plus(Duration.ofDays(2)), 3, io.almanac.InstanceStatus.MISSED, null, io.almanac.MissReason.BACKFILL_NOT_ALLOWED,
            "catch-up mode NONE", DUE.plus(Duration.ofDays(3)))),
        // a failed attempt's log and stack trace, written with its end (docs/long-jobs/logs.md)
        journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
            new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "IllegalStateException: boom", t("00:00:03")),
            new TaskJournal.AttemptLogged(DAY, 1, List.of(new io.almanac.journal.LogLine(t("00:00:01"),
                io.almanac.JobLog.Level.INFO, "gathered 3")), 0, "java.lang.IllegalStateException: boom\n\tat x.Y(Y.java:1)",
                t("00:00:03"))));
    for (List<Event> j : journals) {
      j.forEach(e -> covered.add(e.getClass()));
      Explanation e = explain(j);
      wellFormed(e);
      for (String text : texts(e)) {
        assertFalse(text.startsWith("The journal holds a ") && !text.contains("transition table refuses"), text);
      }
    }
    Set<Class<?>> types = new HashSet<>();
    for (Class<?> c : TaskJournal.class.getDeclaredClasses()) {
      if (c.isRecord() && Event.class.isAssignableFrom(c)) {
        types.add(c);
      }
    }
    types.removeAll(covered);
    assertEquals(Set.of(), types.stream().map(Class::getSimpleName).collect(Collectors.toSet()),
        "event types no journal of this test holds");
  }

  @Test
  @DisplayName("why says which attempt ran a durable step, how long it took and what it cost, and which attempt "
      + "got its result without running it")
  void stepsInWords() {
    List<String> texts = texts(explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new TaskJournal.StepRecorded(DAY, 1, "gather", "java.lang.String", "\"facts\"",
            new io.almanac.journal.UsageRecord("m", 10, 5, 20_000), Duration.ofSeconds(3), t("00:00:03")),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(5), "draft failed", t("00:00:05")),
        new RetryScheduled(DAY, 1, t("00:00:05"), t("00:00:05")),
        new InstanceScheduled(DAY, START, END, DUE, RunKind.RETRY, t("00:00:05")),
        started(2, RunKind.RETRY, t("00:00:05"), N1),
        new TaskJournal.StepsReplayed(DAY, 2, List.of("gather"), t("00:00:09")),
        new AttemptSucceeded(DAY, 2, Duration.ofSeconds(4), "ok", null, t("00:00:09")))));
    assertTrue(texts.contains("Attempt 1 ran step 'gather' in 3 s, using 10 tokens in and 5 out, cost 0.02 and recorded "
        + "its result: later attempts of this window get it without running it."), texts.toString());
    assertTrue(texts.contains("Attempt 2 got the recorded result of step 'gather' without running it."), texts.toString());
  }

  @Test
  @DisplayName("an event the transition table refuses (only a corrupted journal or a second writer makes one) is said to "
      + "change nothing")
  void refusedTransition() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, DUE),
        new InstanceCancelled(DAY, 0, "wrong prompt", t("00:00:10"), CancelCause.OPERATOR),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("00:00:20"))));
    wellFormed(e);
    assertEquals("CANCELLED", e.status());
    assertEquals("The journal holds a AttemptSucceeded event the transition table refuses (CANCELLED -> SUCCEEDED): the "
        + "window kept its status.", texts(e).get(2));
  }

  @Test
  @DisplayName("a journal whose first events were deleted by retention: the window is told as far as the journal goes")
  void retentionDeletedTheStart() {
    List<Event> raw = List.of(
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "upstream 503", t("00:00:03")),
        InstanceFinalFailed.after(DAY, "retry cap 0 reached", "upstream 503", t("00:00:03")));
    List<AuditEvent> events = new ArrayList<>();
    long seq = 40;
    for (Event e : raw) {
      events.add(AuditEvent.of(TASK, seq++, e, java.time.ZoneId.of("Asia/Shanghai")));
    }
    Explanation e = explainAudit(events, DAY);
    wellFormed(e);
    assertEquals("FINAL_FAILED", e.status());
    assertEquals("final failed as far as the journal goes: the window's earlier events were deleted by retention (the task's "
        + "journal now starts at seq 40); last error: upstream 503", e.verdict());
    assertEquals("The window's earlier events were deleted by retention (the task's journal now starts at seq 40); its "
        + "history goes on from here.", texts(e).get(0));
    assertEquals(3, e.steps().size(), texts(e).toString());
  }

  @Test
  @DisplayName("a long journal (a per-minute task, 60,000 windows, 180,000 events) is explained in linear time")
  void longJournal() {
    List<Event> events = new ArrayList<>();
    events.add(new SpecDefined(spec(TaskSpec.builder(TASK).cron("0 * * * * ? UTC").window("per-firing")),
        Instant.parse("2026-01-01T00:00:00Z")));
    Instant at = Instant.parse("2026-01-01T00:01:00Z");
    for (int i = 0; i < 60_000; i++, at = at.plusSeconds(60)) {
      String key = at.toString();
      events.add(new InstanceScheduled(key, at, at, at, RunKind.FIRST, at));
      events.add(new AttemptStarted(key, 1, RunKind.FIRST, at.plusSeconds(120), N1, at));
      events.add(new AttemptSucceeded(key, 1, Duration.ofSeconds(1), "ok", null, at.plusSeconds(1)));
    }
    List<AuditEvent> audit = WindowExplanation.auditEvents(TASK, events);
    String middle = Instant.parse("2026-01-01T00:01:00Z").plusSeconds(60L * 30_000).toString();
    long start = System.nanoTime();
    Explanation e = WindowExplanation.explain(TASK, audit, middle);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertEquals("SUCCEEDED", e.status());
    assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, "took " + took);
    assertTrue(e.verdict().startsWith("ran on time: due 20:01:00 UTC, attempt 1 started 20:01:00"), e.verdict());
  }

  @Test
  @DisplayName("a long journal read as a stream keeps only the window's events: 9,000 events read, a handful kept, "
      + "the same explanation (a PREVIOUS_RUNNING skip, an unknown window's nearest windows); beyond the bound it fails")
  void digestOfALongJournalIsBounded() {
    List<Event> events = new ArrayList<>();
    events.add(new SpecDefined(spec(TaskSpec.builder(TASK).cron("0 * * * * ? UTC").window("per-firing")),
        Instant.parse("2026-01-01T00:00:00Z")));
    Instant at = Instant.parse("2026-01-01T00:01:00Z");
    String skipped = null;
    for (int i = 0; i < 3_000; i++, at = at.plusSeconds(60)) {
      String key = at.toString();
      if (i == 1_500) { // the previous window still runs: this one is skipped
        skipped = key;
        String previous = at.minusSeconds(60).toString();
        events.add(new FireSkipped(key, at, at, at, SkipReason.PREVIOUS_RUNNING, "window " + previous + " is RUNNING", at));
        events.add(new AttemptSucceeded(previous, 1, Duration.ofSeconds(70), "ok", null, at.plusSeconds(10)));
        events.add(new TaskPaused(at.plusSeconds(20)));
        events.add(new TaskResumed(at.plusSeconds(30)));
        continue;
      }
      events.add(new InstanceScheduled(key, at, at, at, RunKind.FIRST, at));
      events.add(new AttemptStarted(key, 1, RunKind.FIRST, at.plusSeconds(120), N1, at));
      if (i != 1_499) {
        events.add(new AttemptSucceeded(key, 1, Duration.ofSeconds(1), "ok", null, at.plusSeconds(1)));
      }
    }
    List<AuditEvent> audit = WindowExplanation.auditEvents(TASK, events);
    for (String window : List.of(skipped, Instant.parse("2026-01-01T00:01:00Z").plusSeconds(60L * 2_000).toString(),
        "2026-01-01T00:01:30Z", "2030-01-01T00:00:00Z", "not-a-key")) {
      Explanation whole = WindowExplanation.explain(TASK, audit, window);
      WindowExplanation.Digest digest = new WindowExplanation.Digest(window, 10);
      audit.forEach(digest::add);
      assertEquals(audit.size(), digest.read());
      assertTrue(digest.kept() <= 6, "kept " + digest.kept() + " of " + audit.size() + " for " + window);
      assertEquals(whole, digest.explain(TASK), window);
    }
    assertTrue(WindowExplanation.explain(TASK, audit, skipped).verdict().contains("(attempt 1 on node"),
        WindowExplanation.explain(TASK, audit, skipped).verdict());
    assertTrue(WindowExplanation.explain(TASK, audit, "2026-01-01T00:01:30Z").verdict().contains("nearest windows are"));
    WindowExplanation.Digest tooSmall = new WindowExplanation.Digest(skipped, 3);
    HistoryTooLargeException big = org.junit.jupiter.api.Assertions.assertThrows(HistoryTooLargeException.class,
        () -> audit.forEach(tooSmall::add));
    assertTrue(big.getMessage().contains("more than 3 events"), big.getMessage());
  }

  @Test
  @DisplayName("durations in words")
  void human() {
    assertEquals("120 ms", WindowExplanation.human(Duration.ofMillis(120)));
    assertEquals("2 s", WindowExplanation.human(Duration.ofSeconds(2)));
    assertEquals("2.5 s", WindowExplanation.human(Duration.ofMillis(2500)));
    assertEquals("20 min", WindowExplanation.human(Duration.ofMinutes(20)));
    assertEquals("1 h 5 min", WindowExplanation.human(Duration.ofMinutes(65)));
    assertEquals("3 d 2 h", WindowExplanation.human(Duration.ofHours(74)));
    assertEquals("24 h", WindowExplanation.human(Duration.ofHours(24)));
    // R33: a job's wait past its bound (a result made from JSON) is told, never an ArithmeticException
    assertEquals("106751991167300 d 15 h", WindowExplanation.human(java.time.temporal.ChronoUnit.FOREVER.getDuration()));
    assertEquals("-106751991167300 d 15 h", WindowExplanation.human(Duration.ofSeconds(Long.MIN_VALUE)));
  }

  @Test
  @DisplayName("the audit view of raw events: numbered from 1, each with the zone of the spec before it")
  void auditEventsOfRawEvents() {
    List<AuditEvent> a = WindowExplanation.auditEvents(TASK, journal(scheduled(RunKind.FIRST, DUE)));
    assertEquals(List.of(1L, 2L), a.stream().map(AuditEvent::sequenceNr).toList());
    assertEquals("Asia/Shanghai", a.get(1).zone().getId());
    assertEquals(InstanceStatus.PENDING.name(), explain(journal(scheduled(RunKind.FIRST, DUE))).status());
    assertEquals(OverlapPolicy.SKIP, daily().overlap());
    assertEquals(0, RetryPolicy.DEFAULT.maxRetries());
  }

  @Test
  @DisplayName("why tells a thrown failure's first stack line and how many lines the attempt logged; an attempt that "
      + "only logged says so")
  void attemptLogsAreTold() {
    Explanation e = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(3), "IllegalStateException: boom", t("00:00:03")),
        new TaskJournal.AttemptLogged(DAY, 1, List.of(new io.almanac.journal.LogLine(t("00:00:01"),
            io.almanac.JobLog.Level.INFO, "gathered 3")), 2, "java.lang.IllegalStateException: boom\n\tat x.Y(Y.java:1)",
            t("00:00:03"))));
    assertTrue(texts(e).contains("Attempt 1's job threw java.lang.IllegalStateException: boom; it logged 1 line (and 2 "
        + "dropped) (almanac logs shows them and the stack trace)."), texts(e).toString());
    Explanation quiet = explain(journal(scheduled(RunKind.FIRST, DUE), started(1, RunKind.FIRST, DUE, N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(1), "ok", null, t("00:00:01")),
        new TaskJournal.AttemptLogged(DAY, 1, List.of(new io.almanac.journal.LogLine(t("00:00:01"),
            io.almanac.JobLog.Level.INFO, "published")), 0, null, t("00:00:01"))));
    assertTrue(texts(quiet).contains("Attempt 1 logged 1 line (almanac logs)."), texts(quiet).toString());
  }
}

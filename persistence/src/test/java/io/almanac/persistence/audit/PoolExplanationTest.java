package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanationTest.DAY;
import static io.almanac.persistence.audit.WindowExplanationTest.N1;
import static io.almanac.persistence.audit.WindowExplanationTest.explain;
import static io.almanac.persistence.audit.WindowExplanationTest.journal;
import static io.almanac.persistence.audit.WindowExplanationTest.scheduled;
import static io.almanac.persistence.audit.WindowExplanationTest.started;
import static io.almanac.persistence.audit.WindowExplanationTest.t;
import static io.almanac.persistence.audit.WindowExplanationTest.texts;
import static io.almanac.persistence.audit.WindowExplanationTest.wellFormed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PoolWaitReason;
import io.almanac.RunKind;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.PoolWaited;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.persistence.audit.WindowExplanation.Explanation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** "Why" for a window of a task with resource pools: its waits for a pool and a throttled attempt, in words. */
class PoolExplanationTest {

  @Test
  @DisplayName("a window that waited for a full pool, then ran: the wait is a step naming the pool and the reason")
  void waitedForAFullPool() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, t("00:00:00")),
        new PoolWaited(DAY, "openai", PoolWaitReason.FULL, null, t("00:00:00")),
        started(1, RunKind.FIRST, t("00:04:00"), N1),
        new AttemptSucceeded(DAY, 1, Duration.ofSeconds(30), "ok", null, t("00:04:30"))));
    wellFormed(e);
    assertEquals("SUCCEEDED", e.status());
    assertTrue(texts(e).contains("The window waited for resource pool openai: its max-concurrent attempts were running "
        + "across the cluster (recorded once per pool and reason in an attempt; it starts when every pool it names has room)."), texts(e).toString());
  }

  @Test
  @DisplayName("a throttled attempt: THROTTLED, the pause, not counted against the retry cap; the next wait is PAUSED until")
  void throttled() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, t("00:00:00")),
        started(1, RunKind.FIRST, t("00:00:00"), N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(2), "throttled: retry after PT5M (pool openai)", t("00:00:02"),
            Duration.ofMinutes(5), "openai"),
        new RetryScheduled(DAY, 0, t("00:05:02"), t("00:00:02")),
        new InstanceScheduled(DAY, WindowExplanationTest.START, WindowExplanationTest.END, WindowExplanationTest.DUE,
            RunKind.RETRY, t("00:05:02")),
        new PoolWaited(DAY, "openai", PoolWaitReason.RATE, t("00:05:10"), t("00:05:02"))));
    wellFormed(e);
    List<String> steps = texts(e);
    assertTrue(steps.contains("Attempt 1 was THROTTLED at 08:00:02 after 2 s: its job asked to retry after 5 min; pool "
        + "openai paused for as long (not counted against the retry cap)."), steps.toString());
    assertTrue(steps.stream().anyMatch(s -> s.startsWith("The window waited for resource pool openai: its rate allowed no "
        + "start before 08:05:10")), steps.toString());
    assertTrue(steps.contains("The throttled window is tried again at 08:05:02, after the wait its job asked for; no retry is "
        + "counted (retry number stays 0)."), steps.toString());
    assertEquals("waiting to start: scheduled as RETRY at 08:05:02 and not yet taken by an executor; it waits for resource "
        + "pool openai (RATE until 08:05:10)", e.verdict());
  }

  @Test
  @DisplayName("a window skipped because its pool's budget for the day was spent: SKIPPED, the pool named in words")
  void poolBudgetSpent() {
    String detail = "pool openai's budget for 2026-11-29 (UTC) was spent: cost 5.20 reached the budget per day 5.00";
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, t("00:00:00")),
        new io.almanac.journal.TaskJournal.WaitEnded(DAY, io.almanac.SkipReason.BUDGET_EXHAUSTED, detail, t("00:00:01"),
            "openai")));
    wellFormed(e);
    assertEquals("SKIPPED", e.status());
    assertTrue(texts(e).stream().anyMatch(s -> s.contains("resource pool openai's budget for the day was spent "
        + "(BUDGET_EXHAUSTED: " + detail + ")")), texts(e).toString());
    assertTrue(texts(e).stream().noneMatch(s -> s.contains("the task's budget")), texts(e).toString());
  }

  @Test
  @DisplayName("after a throttled attempt, a later attempt that timed out is explained as a timeout, not as throttled")
  void aTimedOutRetryAfterAThrottledOneIsNotThrottled() {
    Explanation e = explain(journal(
        scheduled(RunKind.FIRST, t("00:00:00")),
        started(1, RunKind.FIRST, t("00:00:00"), N1),
        new AttemptFailed(DAY, 1, Duration.ofSeconds(2), "throttled: retry after PT5M (pool openai)", t("00:00:02"),
            Duration.ofMinutes(5), "openai"),
        new RetryScheduled(DAY, 0, t("00:05:02"), t("00:00:02")),
        new InstanceScheduled(DAY, WindowExplanationTest.START, WindowExplanationTest.END, WindowExplanationTest.DUE,
            RunKind.RETRY, t("00:05:02")),
        started(2, RunKind.RETRY, t("00:05:02"), N1),
        new io.almanac.journal.TaskJournal.AttemptTimedOut(DAY, 2, t("00:06:00"), Duration.ofSeconds(58), t("00:06:00")),
        new RetryScheduled(DAY, 1, t("00:07:00"), t("00:06:00"))));
    wellFormed(e);
    List<String> steps = texts(e);
    assertTrue(steps.stream().noneMatch(s -> s.startsWith("The throttled window is tried again at 08:07:00")), steps.toString());
    assertTrue(!e.verdict().startsWith("throttled"), e.verdict());
  }
}

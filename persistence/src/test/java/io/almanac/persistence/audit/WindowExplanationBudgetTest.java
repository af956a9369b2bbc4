package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.SkipReason;
import io.almanac.persistence.audit.WindowExplanation.Explanation;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.UsageRecord;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** "Why" and the audit for budgets: a BUDGET_EXHAUSTED skip, an operator's raise of the day, an attempt's usage. */
class WindowExplanationBudgetTest {

  static TaskJournal.FireSkipped budgetSkip() {
    return new TaskJournal.FireSkipped(WindowExplanationTest.DAY, WindowExplanationTest.START, WindowExplanationTest.END,
        WindowExplanationTest.DUE, SkipReason.BUDGET_EXHAUSTED,
        "cost 5.00 on 2026-11-29 (Asia/Shanghai) reached the budget per day 5.00", WindowExplanationTest.DUE);
  }

  static TaskJournal.BudgetRaised raise() {
    return new TaskJournal.BudgetRaised(LocalDate.parse(WindowExplanationTest.DAY), 2_500_000, 7_500_000, "quarter-end",
        WindowExplanationTest.DUE.plus(Duration.ofHours(1)));
  }

  @Test
  @DisplayName("a window skipped because the day's budget was spent says so, with the day's cost and budget, and the "
      + "operator's raise of that day is a step")
  void budgetSkipAndRaise() {
    Explanation e = WindowExplanationTest.explain(WindowExplanationTest.journal(budgetSkip(), raise()));
    assertEquals("SKIPPED", e.status());
    assertTrue(e.verdict().contains("BUDGET_EXHAUSTED: cost 5.00 on 2026-11-29"), e.verdict());
    List<String> texts = WindowExplanationTest.texts(e);
    assertTrue(texts.stream().anyMatch(t -> t.startsWith("An operator raised the task's budget for 2026-11-29 by 2.50 to "
        + "7.50 (quarter-end)")), texts.toString());
  }

  @Test
  @DisplayName("the audit tells an attempt's usage and the raise")
  void auditWords() {
    TaskJournal.AttemptSucceeded ok = new TaskJournal.AttemptSucceeded(WindowExplanationTest.DAY, 1, Duration.ofSeconds(3),
        "sent", null, WindowExplanationTest.DUE, new UsageRecord("gpt-4o", 1_200, 300, 420_000));
    assertEquals("took PT3S: sent; used 1200 tokens in, 300 out, cost 0.42 (gpt-4o)",
        AuditEvent.of("t", 1, ok, null).detail());
    assertEquals("operator raised the budget for 2026-11-29 by 2.50 to 7.50: quarter-end",
        AuditEvent.of("t", 2, raise(), null).detail());
  }
}

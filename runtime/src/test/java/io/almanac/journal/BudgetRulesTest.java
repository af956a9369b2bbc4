package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RefusedException;
import io.almanac.TaskSpec;
import java.math.BigDecimal;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The budget rules a task's and a pool's day share: saturating sums, the limit, spent, and a raise's checks. */
class BudgetRulesTest {

  @Test
  @DisplayName("sums saturate at Long.MAX_VALUE instead of wrapping to a negative limit")
  void sumsSaturate() {
    assertEquals(5, BudgetRules.plus(2, 3));
    assertEquals(Long.MAX_VALUE, BudgetRules.plus(Long.MAX_VALUE - 1, 2));
    assertEquals(Long.MAX_VALUE, BudgetRules.limit(Long.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  @DisplayName("a day is spent once its cost reaches the budget plus its raises, not before")
  void spentAtTheLimit() {
    assertFalse(BudgetRules.spent(999_999, 1_000_000, 0));
    assertTrue(BudgetRules.spent(1_000_000, 1_000_000, 0));
    assertFalse(BudgetRules.spent(1_000_000, 1_000_000, 1));
    assertFalse(BudgetRules.spent(Long.MAX_VALUE - 1, Long.MAX_VALUE, Long.MAX_VALUE), "a saturated limit");
  }

  @Test
  @DisplayName("a raise is refused naming amount or note and the value; a good one is in millionths")
  void raiseChecks() {
    assertEquals(2_500_000, BudgetRules.checkRaise(new BigDecimal("2.50"), "quarter end", 11));
    RefusedException missing = assertThrows(RefusedException.class, () -> BudgetRules.checkRaise(null, null, 10));
    assertEquals("amount", missing.field());
    RefusedException zero = assertThrows(RefusedException.class, () -> BudgetRules.checkRaise(BigDecimal.ZERO, null, 10));
    assertEquals("amount", zero.field());
    assertTrue(zero.getMessage().contains("must be more than 0"), zero.getMessage());
    RefusedException fine = assertThrows(RefusedException.class,
        () -> BudgetRules.checkRaise(new BigDecimal("0.0000001"), null, 10));
    assertEquals("amount", fine.field());
    BigDecimal huge = io.almanac.Usage.fromMicros(TaskSpec.MAX_BUDGET_MICROS).add(BigDecimal.ONE);
    RefusedException tooBig = assertThrows(RefusedException.class, () -> BudgetRules.checkRaise(huge, null, 10));
    assertTrue(tooBig.getMessage().contains("at most"), tooBig.getMessage());
    RefusedException note = assertThrows(RefusedException.class,
        () -> BudgetRules.checkRaise(BigDecimal.ONE, "x".repeat(11), 10));
    assertEquals("note", note.field());
    assertTrue(note.getMessage().contains("11 characters, at most 10"), note.getMessage());
  }
}

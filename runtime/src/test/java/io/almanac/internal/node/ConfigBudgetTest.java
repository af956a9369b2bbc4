package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A task's {@code budget-per-day} in {@code almanac.tasks}: read as the Java builder's, refused naming the key and the value. */
class ConfigBudgetTest {

  private static List<TaskSpec> parse(String task) {
    return ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { t { cron = \"0 0 8 * * ? Europe/Berlin\", job = J, "
        + task + " } }"));
  }

  @Test
  @DisplayName("budget-per-day = 5.00 (a number or a string) is the builder's budgetPerDay(5.00); without it there is none")
  void readsTheBudget() {
    TaskSpec java = TaskSpec.builder("t").cron("0 0 8 * * ? Europe/Berlin").job("J").budgetPerDay(new BigDecimal("5.00"))
        .build();
    assertEquals(java, parse("budget-per-day = 5.00").get(0));
    assertEquals(java, parse("budget-per-day = \"5\"").get(0));
    assertEquals(new BigDecimal("0.123456"), parse("budget-per-day = 0.123456").get(0).budgetPerDay());
    assertEquals(BigDecimal.ZERO, parse("budget-per-day = 0").get(0).budgetPerDay());
    assertNull(parse("description = x").get(0).budgetPerDay());
  }

  @ParameterizedTest(name = "budget-per-day = {0} is refused naming the key and the value ''{1}''")
  @CsvSource(delimiter = '|', value = {
      "abc|abc",
      "\"five\"|five",
      "-1|-1",
      "-0.01|-0.01",
      "0.0000001|1.0E-7",
      "[5]|[5]",
      "{ a = 1 }|{a=1}",
      "true|true",
      "1000000000001|1000000000001"})
  void badBudgetRefused(String written, String value) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> parse("budget-per-day = " + written));
    assertEquals("almanac.tasks.t.budget-per-day", e.field(), e.getMessage());
    assertEquals(value, String.valueOf(e.value()), e.getMessage());
    assertTrue(e.getMessage().startsWith("almanac.tasks.t.budget-per-day '" + value + "' is invalid: "), e.getMessage());
  }
}

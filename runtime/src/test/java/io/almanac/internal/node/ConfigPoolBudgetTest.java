package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.PoolSpec;
import java.math.BigDecimal;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A pool's budget-per-day and zone, in almanac.pools and through PoolSpec: what is accepted and each bad value refused. */
class ConfigPoolBudgetTest {

  private static List<PoolSpec> parse(String hocon) {
    return ConfigPools.parse(ConfigFactory.parseString(hocon));
  }

  @Test
  @DisplayName("budget-per-day as a number or a string, and a zone; without them no budget and UTC")
  void parses() {
    List<PoolSpec> pools = parse("almanac.pools { a { max-concurrent = 2, budget-per-day = 5.00, zone = \"Europe/Berlin\" }"
        + ", b { max-concurrent = 1, budget-per-day = \"0.000001\" }, c { max-concurrent = 1 }, d { max-concurrent = 1, "
        + "budget-per-day = 0 } }");
    assertEquals(PoolSpec.of("a", 2).withBudgetPerDay(new BigDecimal("5")).withZone(ZoneId.of("Europe/Berlin")), pools.get(0));
    assertEquals(0, new BigDecimal("5.00").compareTo(pools.get(0).budgetPerDay()));
    assertEquals(5_000_000L, pools.get(0).budgetPerDayMicros());
    assertEquals(ZoneId.of("Europe/Berlin"), pools.get(0).zone());
    assertEquals(1L, pools.get(1).budgetPerDayMicros());
    assertEquals(ZoneId.of("UTC"), pools.get(1).zone());
    assertNull(pools.get(2).budgetPerDay());
    assertEquals(0L, pools.get(3).budgetPerDayMicros());
    assertEquals(PoolSpec.of("x", 1).withBudgetPerDay(new BigDecimal("5.00")), PoolSpec.of("x", 1).withBudgetPerDay(
        new BigDecimal("5")), "5.00 and 5 are the same budget");
    assertEquals(1_000_000_000_000_000L, PoolSpec.of("x", 1).withBudgetPerDay(new BigDecimal("1000000000"))
        .budgetPerDayMicros());
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', value = {
      "almanac.pools.openai.budget-per-day|abc|budget-per-day = abc",
      "almanac.pools.openai.budget-per-day|-1|budget-per-day = -1",
      "almanac.pools.openai.budget-per-day|0.0000001|budget-per-day = \"0.0000001\"",
      "almanac.pools.openai.budget-per-day|1000000000.01|budget-per-day = 1000000000.01",
      "almanac.pools.openai.budget-per-day|[1,2]|budget-per-day = [1, 2]",
      "almanac.pools.openai.budget-per-day|true|budget-per-day = true",
      "almanac.pools.openai.budget-per-day|{|budget-per-day { x = 1 }",
      "almanac.pools.openai.zone|Mars/Olympus|zone = \"Mars/Olympus\"",
      "almanac.pools.openai.zone|5|zone = 5",
      "almanac.pools.openai.zone|''|zone = \"\""})
  @DisplayName("a bad budget-per-day or zone is refused naming the key and the value")
  void refused(String key, String value, String line) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> parse("almanac.pools.openai { max-concurrent = 2\n" + line + " }"));
    assertEquals(key, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(value.equals("''") ? "''" : value), e.getMessage());
  }

  @Test
  @DisplayName("PoolSpec refuses the same values in Java, naming almanac.pools.<name>.budget-per-day and the value")
  void javaRefuses() {
    for (String bad : List.of("-0.01", "0.0000001", "1000000001")) {
      InvalidSpecException e = assertThrows(InvalidSpecException.class,
          () -> PoolSpec.of("openai", 2).withBudgetPerDay(new BigDecimal(bad)));
      assertEquals("almanac.pools.openai.budget-per-day", e.field(), e.getMessage());
      assertTrue(e.getMessage().contains(bad), e.getMessage());
    }
    InvalidSpecException z = assertThrows(InvalidSpecException.class, () -> PoolSpec.of("openai", 2).withZone(null));
    assertEquals("almanac.pools.openai.zone", z.field());
  }
}

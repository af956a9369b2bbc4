package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Pools declared in almanac.pools and through the Java API: what is accepted, and each bad input refused naming the key and the value. */
class ConfigPoolsTest {

  private static List<PoolSpec> parse(String hocon) {
    return ConfigPools.parse(ConfigFactory.parseString(hocon));
  }

  @Test
  @DisplayName("a pool with max-concurrent and an optional rate")
  void parses() {
    List<PoolSpec> pools = parse("almanac.pools { openai { max-concurrent = 8, rate = \"60/1m\" }, search { max-concurrent = 2 } }");
    assertEquals(List.of(PoolSpec.of("openai", 8).withRate(60, Duration.ofMinutes(1)), PoolSpec.of("search", 2)), pools);
    assertEquals("60/PT1M", pools.get(0).rateText());
    assertEquals(PoolSpec.of("p", 1).withRate(5, Duration.ofSeconds(1)), PoolSpec.of("p", 1).withRate(" 5 / 1s "));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', value = {
      "almanac.pools.openai.rate|'-5/1m'|rate = \"-5/1m\"",
      "almanac.pools.openai.rate|'0/1m'|rate = \"0/1m\"",
      "almanac.pools.openai.rate|'60/-1m'|rate = \"60/-1m\"",
      "almanac.pools.openai.rate|'60/0s'|rate = \"60/0s\"",
      "almanac.pools.openai.rate|'sixty'|rate = sixty",
      "almanac.pools.openai.rate|'60/forever'|rate = \"60/forever\"",
      "almanac.pools.openai.rate|'60'|rate = 60",
      "almanac.pools.openai.max-concurrent|'0'|max-concurrent = 0",
      "almanac.pools.openai.max-concurrent|'-3'|max-concurrent = -3",
      "almanac.pools.openai.max-concurrent|'many'|max-concurrent = many",
      "almanac.pools.openai.max-concurrent|max-concurrent is missing|rate = \"1/1s\"",
      "almanac.pools.openai.burst|'3'|burst = 3"})
  @DisplayName("bad pools are refused naming the key and the value")
  void refused(String key, String value, String line) {
    String hocon = "almanac.pools.openai { " + (line.startsWith("max-concurrent") || line.startsWith("rate = \"1/1s\"")
        ? "" : "max-concurrent = 2\n") + line + " }";
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> parse(hocon));
    assertEquals(key, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(value), e.getMessage());
  }

  @Test
  @DisplayName("a bad pool name and a pool that is not an object are refused")
  void badNames() {
    assertThrows(InvalidSpecException.class, () -> parse("almanac.pools { \"a b\" { max-concurrent = 1 } }"));
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> parse("almanac.pools { p = 3 }"));
    assertEquals("almanac.pools.p", e.field());
    assertThrows(InvalidSpecException.class, () -> PoolSpec.of("p", 0));
    assertThrows(InvalidSpecException.class, () -> PoolSpec.of("p", 1).withRate(-1, Duration.ofSeconds(1)));
    assertThrows(InvalidSpecException.class, () -> PoolSpec.of("p", 1).withRate(1, Duration.ZERO));
    assertThrows(InvalidSpecException.class, () -> JobResult.throttled(Duration.ZERO));
    assertThrows(InvalidSpecException.class, () -> JobResult.throttled(Duration.ofSeconds(-1)));
  }

  @Test
  @DisplayName("a task naming an unknown pool is refused naming the task, the key and the pool")
  void unknownPool() {
    TaskSpec spec = ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks.digest { cron = \"0 0 8 * * ? UTC\", job = j, pools = [llm, nope] }")).get(0);
    assertEquals(List.of("llm", "nope"), spec.pools());
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ConfigPools.requireKnown(spec, Map.of("llm", PoolSpec.of("llm", 1)), "almanac.tasks.digest.pools"));
    assertTrue(e.getMessage().contains("digest") && e.getMessage().contains("almanac.tasks.digest.pools")
        && e.getMessage().contains("nope"), e.getMessage());
    InvalidSpecException twice = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks.digest { cron = \"0 0 8 * * ? UTC\", job = j, pools = [llm, llm] }")));
    assertTrue(twice.getMessage().contains("almanac.tasks.digest.pools"), twice.getMessage());
    assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks.digest { cron = \"0 0 8 * * ? UTC\", job = j, pools = llm }")));
  }
}

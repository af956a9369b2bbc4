package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import io.almanac.internal.executor.ExecutorSettings;
import io.almanac.internal.executor.PoolSettings;
import io.almanac.internal.task.TaskSettings;
import io.almanac.internal.trigger.TriggerSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * R33: a configuration error about a value that is not there (a key left out, or set to HOCON
 * {@code null}) says the key is missing, naming it; it never shows {@code 'null'} as if that were
 * the value given. Walked over every key of the runtime's reference.conf through every settings
 * reader, and over every key of declared tasks and pools.
 */
class ConfigNullValuesTest {

  /** The settings readers a node runs at start, before anything starts (Node.start). */
  private static final Map<String, Consumer<Config>> READERS = Map.of(
      "TaskSettings", TaskSettings::from,
      "TriggerSettings", TriggerSettings::from,
      "ExecutorSettings", ExecutorSettings::from,
      "PoolSettings", PoolSettings::from,
      "WebhookSettings", WebhookSettings::from,
      "ConfigTasks", c -> ConfigTasks.parse(c),
      "ConfigPools", c -> ConfigPools.parse(c));

  /**
   * Checks one refusal: it names a key (the one set to null, or another one that the default taking
   * its place does not fit, e.g. retry.delays once retry.backoff is left out), no 'null' in it;
   * about the key set to null, it says that key is missing.
   */
  private static void saysMissing(String key, RuntimeException e) {
    String m = e.getMessage();
    assertFalse(m.contains("'null'"), key + " = null: the message shows 'null' as a value: " + m);
    assertFalse(m.contains("null (default)"), key + " = null: " + m);
    assertTrue(m.contains(key) || m.startsWith("almanac.") || m.startsWith("task '"),
        key + " = null: the message names a key: " + m);
    if (e instanceof InvalidSpecException ise && ise.field().equals(key)) {
      assertTrue(m.startsWith(key + " is missing"), key + " = null: says it is missing: " + m);
      assertNull(ise.value(), m);
    }
  }

  static Stream<String> referenceKeys() {
    List<String> keys = new ArrayList<>();
    Config almanac = ConfigFactory.defaultReference().getConfig("almanac");
    new TreeSet<>(almanac.entrySet().stream().map(Map.Entry::getKey).toList()).forEach(k -> keys.add("almanac." + k));
    return keys.stream();
  }

  @ParameterizedTest(name = "{0} = null")
  @MethodSource("referenceKeys")
  @DisplayName("R33: every key of the runtime's reference.conf set to null: each settings reader accepts it (an "
      + "optional key) or refuses it saying the key is missing, never 'null'")
  void everyReferenceKeySetToNull(String key) {
    Config config = ConfigFactory.parseString(key + " = null").withFallback(ConfigFactory.defaultReference()).resolve();
    int refused = 0;
    for (Map.Entry<String, Consumer<Config>> reader : READERS.entrySet()) {
      try {
        reader.getValue().accept(config);
      } catch (RuntimeException e) {
        refused++;
        saysMissing(key, e);
      }
    }
    // the reads Node.start makes itself go through the same helpers
    try {
      switch (ConfigFactory.defaultReference().getValue(key).valueType()) {
        case NUMBER -> Settings.doubleOf(config, key);
        case BOOLEAN -> Settings.booleanOf(config, key);
        default -> Settings.stringOf(config, key);
      }
    } catch (RuntimeException e) {
      refused++;
      saysMissing(key, e);
    }
    assertTrue(refused > 0, key + " = null: the helper refuses it at least");
  }

  @Test
  @DisplayName("R33: each Settings reader says a missing or null key is missing, naming it; a given value is quoted")
  void settingsReaders() {
    Config missing = ConfigFactory.parseString("a.present = 1\na.nothing = null");
    List<Consumer<String>> reads = List.of(k -> Settings.intOf(missing, k), k -> Settings.doubleOf(missing, k),
        k -> Settings.stringOf(missing, k), k -> Settings.booleanOf(missing, k), k -> Settings.durationOf(missing, k));
    for (Consumer<String> read : reads) {
      for (String key : List.of("a.absent", "a.nothing")) {
        InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class, () -> read.accept(key));
        assertEquals(key + " is missing", e.getMessage());
        assertEquals(key, e.field());
      }
    }
    Config wrong = ConfigFactory.parseString("a.b = abc");
    InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> Settings.durationOf(wrong, "a.b"));
    assertEquals("a.b 'abc' is invalid: must be a duration such as 30s", e.getMessage());
  }

  @Test
  @DisplayName("R33: the one wording: a value quoted, a missing one said to be missing with the reason, a hidden "
      + "one (a secret) not shown")
  void theOneWording() {
    assertEquals("cron 'x' is invalid: bad", new InvalidSpecException("cron", "x", "bad").getMessage());
    assertEquals("k is missing", InvalidSpecException.missing("k").getMessage());
    assertEquals("is missing", InvalidSpecException.missing("k").reason());
    assertNull(InvalidSpecException.missing("k").value());
    assertEquals("k is missing: set it in reference.conf",
        InvalidSpecException.missing("k", "set it in reference.conf").getMessage());
    assertEquals("zone is missing: must be set, e.g. UTC", new InvalidSpecException("zone", null, "must be set, e.g. UTC")
        .getMessage());
    assertEquals("task 't': zone is missing: must be set",
        new InvalidSpecException("t", new InvalidSpecException("zone", null, "must be set")).getMessage());
    InvalidSpecException hidden = InvalidSpecException.withoutValue("almanac.http.token", "is 3 characters long");
    assertEquals("almanac.http.token is invalid: is 3 characters long", hidden.getMessage());
    assertNull(hidden.value());
    // the text "null" given as a value is a value like any other
    assertEquals("k 'null' is invalid: bad", new InvalidSpecException("k", "null", "bad").getMessage());
  }

  /** Valid declared tasks and pools between them using every key ConfigTasks and ConfigPools read. */
  private static final List<String> BASES = List.of(
      """
      almanac.pools.llm { max-concurrent = 2, rate = "4/10s", budget-per-day = 5, zone = UTC }
      almanac.tasks.t {
        cron = "0 0 8 * * ? UTC", job = J, window = daily, overlap = buffer-one, description = d
        retry { max-retries = 3, backoff = exponential, initial-delay = 1m, multiplier = 2, max-delay = 1h, jitter = 0.1 }
        catch-up { mode = all, horizon = 12h }
        lease { floor = 1m, ceiling = 2h, factor = 2, min-samples = 5 }
        dst { gap = skip, overlap = last }
        pools = [llm], budget-per-day = 5, deadline = 1h, pause-after-failures = 3
      }
      """,
      """
      almanac.tasks.t {
        cron = "0 0 8 * * ? UTC", job = J, window = daily
        retry { max-retries = 2, backoff = delays, delays = [5m, 15m], span = 1d }
        catch-up { mode = all, horizon = 12h, span = 1d }
      }
      """,
      """
      almanac.tasks.t { at = "2027-01-01T08:00:00Z", job = J }
      """,
      """
      almanac.tasks {
        up { cron = "0 0 8 * * ? UTC", job = J, window = daily }
        t {
          cron = "0 0 8 * * ? UTC", job = J, window = daily
          depends-on { upstream = [up], require = all, mapping = same-window, wait-at-most = 6h }
          condition { name = c, every = 1m, debounce = 2, wait-at-most = 6h }
        }
      }
      """);

  static Stream<String> taskAndPoolKeys() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < BASES.size(); i++) {
      Config base = ConfigFactory.parseString(BASES.get(i));
      TreeSet<String> paths = new TreeSet<>();
      for (String leaf : base.entrySet().stream().map(Map.Entry::getKey).toList()) {
        // the leaf and every object above it inside a task or a pool
        String[] parts = leaf.split("\\.");
        for (int n = 3; n <= parts.length; n++) {
          paths.add(String.join(".", java.util.Arrays.copyOf(parts, n)));
        }
      }
      for (String p : paths) {
        keys.add(i + "|" + p);
      }
    }
    return keys.stream();
  }

  @ParameterizedTest(name = "{0} = null")
  @MethodSource("taskAndPoolKeys")
  @DisplayName("R33: every key of a declared task or pool set to null: accepted as left out, or refused saying the key "
      + "is missing, never 'null'")
  void everyTaskAndPoolKeySetToNull(String baseAndKey) {
    int bar = baseAndKey.indexOf('|');
    String base = BASES.get(Integer.parseInt(baseAndKey.substring(0, bar)));
    String key = baseAndKey.substring(bar + 1);
    Config valid = ConfigFactory.parseString(base);
    ConfigTasks.parse(valid);
    ConfigPools.parse(valid);
    Config config = ConfigFactory.parseString(key + " = null").withFallback(valid);
    for (Consumer<Config> read : List.<Consumer<Config>>of(c -> ConfigTasks.parse(c), c -> ConfigPools.parse(c))) {
      try {
        read.accept(config);
      } catch (RuntimeException e) {
        saysMissing(key, e);
      }
    }
  }
}

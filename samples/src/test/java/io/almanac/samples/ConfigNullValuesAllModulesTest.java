package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * R33 across the modules a node runs (runtime, persistence, http): every {@code almanac.*} key of
 * their reference.conf files, set to HOCON null over the demo's configuration, goes through every
 * public settings reader; a refusal names a key and never shows {@code 'null'} as the value, and
 * one about the key itself says it is missing. (The runtime's package-private readers, declared
 * tasks and pools: ConfigNullValuesTest in the runtime.)
 */
class ConfigNullValuesAllModulesTest {

  private static final Map<String, Consumer<Config>> READERS = SettingsReaders.ALL;

  static Stream<String> keys() {
    TreeSet<String> keys = new TreeSet<>();
    ConfigFactory.defaultReference().getConfig("almanac").entrySet().forEach(e -> keys.add("almanac." + e.getKey()));
    return keys.stream();
  }

  @ParameterizedTest(name = "{0} = null")
  @MethodSource("keys")
  void everyKeySetToNull(String key) {
    Config config = ConfigFactory.load(ConfigFactory.parseString(key + " = null")
        .withFallback(ConfigFactory.parseResources("application.conf")));
    for (Map.Entry<String, Consumer<Config>> reader : READERS.entrySet()) {
      try {
        reader.getValue().accept(config);
      } catch (RuntimeException e) {
        String m = String.valueOf(e.getMessage());
        String who = key + " = null, " + reader.getKey() + ": ";
        assertFalse(m.contains("'null'"), who + "shows 'null' as a value: " + m);
        assertTrue(m.contains("almanac.") || m.contains("pekko."), who + "names no key: " + m);
        if (e instanceof InvalidSpecException ise && ise.field().equals(key)) {
          assertTrue(m.startsWith(key + " is missing"), who + m);
          assertNull(ise.value(), m);
        }
      }
    }
  }
}

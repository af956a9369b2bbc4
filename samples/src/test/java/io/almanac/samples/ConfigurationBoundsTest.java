package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import io.almanac.internal.node.NodeChecks;
import io.almanac.internal.task.TaskSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every duration key of the {@code reference.conf} files (runtime, persistence, http) is bounded
 * where it enters (R33, R34): set to a negative value, to Long.MAX_VALUE seconds or past {@link
 * Settings#MAX_DURATION}, it is refused at start by the reader that owns it, naming the key; zero is
 * either taken or refused naming the key. The readers are the ones {@code Almanac.start} and the
 * persistence module run before anything starts; a duration key that no reader refuses fails the test.
 */
class ConfigurationBoundsTest {

  /** Every reader of almanac.* settings run at start (shared with ConfigNullValuesAllModulesTest). */
  static final Map<String, Consumer<Config>> READERS = SettingsReaders.ALL;

  static Config reference() {
    return ConfigFactory.parseResources(ConfigurationBoundsTest.class.getClassLoader(), "reference.conf").resolve();
  }

  /** The almanac.* keys whose default is a duration (e.g. {@code 30s}). */
  static List<String> durationKeys() {
    Config almanac = reference().getConfig("almanac");
    List<String> keys = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : almanac.entrySet()) {
      if (e.getValue().valueType() != ConfigValueType.STRING && e.getValue().valueType() != ConfigValueType.NUMBER) {
        continue;
      }
      if (!String.valueOf(e.getValue().unwrapped()).trim().matches("\\d+(\\.\\d+)?\\s*[a-zA-Z]+")) {
        continue; // a number of something else (a size such as 16MiB is refused by getDuration below)
      }
      try {
        almanac.getDuration(e.getKey());
        keys.add("almanac." + e.getKey());
      } catch (ConfigException notADuration) {
        // a size or a word
      }
    }
    keys.sort(null);
    return keys;
  }

  /** The configuration with one key set: the webhook's keys are read only with a url. */
  static Config with(String key, String value) {
    String url = key.startsWith("almanac.alerts.webhook.") ? "almanac.alerts.webhook.url = \"http://127.0.0.1:9/a\"\n" : "";
    return ConfigFactory.parseString(url + key + " = \"" + value + "\"").withFallback(reference()).resolve();
  }

  /** Runs every reader; the first refusal, or null when all take it. */
  static InvalidSpecException refusal(Config config) {
    for (Consumer<Config> reader : READERS.values()) {
      try {
        reader.accept(config);
      } catch (InvalidSpecException e) {
        return e;
      }
    }
    return null;
  }

  @Test
  @DisplayName("the reference configuration passes every reader, and the duration keys are found")
  void referencePasses() {
    assertEquals(null, refusal(reference()));
    List<String> keys = durationKeys();
    assertTrue(keys.size() >= 40, keys::toString);
    assertTrue(keys.contains("almanac.task.retention") && keys.contains("almanac.lease.jdbc.heartbeat-timeout")
        && keys.contains("almanac.http.history-timeout") && keys.contains("almanac.pool-store.hold-ttl"), keys::toString);
  }

  @TestFactory
  @DisplayName("R33/R34: every duration key refuses a negative value, Long.MAX_VALUE seconds and 3661 days naming the key;"
      + " zero is taken or refused naming the key")
  Stream<DynamicTest> everyDurationKeyIsBounded() {
    List<String> values = List.of("-1s", Long.MAX_VALUE + "s", "3661d", "0s");
    return durationKeys().stream().flatMap(key -> values.stream().map(value -> DynamicTest.dynamicTest(key + " = " + value,
        () -> {
          InvalidSpecException e;
          try {
            e = refusal(with(key, value));
          } catch (RuntimeException other) {
            fail(key + " = " + value + " threw " + other + " instead of a refusal naming the key", other);
            return;
          }
          if (value.equals("0s") && e == null) {
            return; // zero is a valid setting of this key
          }
          assertTrue(e != null, key + " = " + value + " is taken by every reader: no reader bounds it");
          assertEquals(key, e.field(), e.getMessage());
          assertTrue(!e.getMessage().contains("'null'"), e.getMessage());
        })));
  }

  @Test
  @DisplayName("the largest duration accepted is Settings.MAX_DURATION, 3660 days, for a key that takes long values")
  void maximumIsTaken() {
    assertEquals(Duration.ofDays(3660), Settings.MAX_DURATION);
    assertEquals(null, refusal(with("almanac.task.retention", "3660d")));
    assertEquals(Duration.ofDays(3660), TaskSettings.from(with("almanac.task.retention", "3660d")).retention());
    assertTrue(NodeChecks.NODE_DURATIONS.stream().allMatch(reference()::hasPath), "NodeChecks names only real keys");
    // a key whose default is "" (its documented default) is bounded too once set
    InvalidSpecException margin = refusal(with("almanac.lease.jdbc.safety-margin", Long.MAX_VALUE + "s"));
    assertEquals("almanac.lease.jdbc.safety-margin", margin == null ? null : margin.field());
  }
}

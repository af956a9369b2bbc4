package io.almanac.samples;

import com.typesafe.config.Config;
import io.almanac.http.AlmanacHttp;
import io.almanac.internal.executor.ExecutorSettings;
import io.almanac.internal.executor.PoolSettings;
import io.almanac.internal.node.NodeChecks;
import io.almanac.internal.node.WebhookSettings;
import io.almanac.internal.task.TaskSettings;
import io.almanac.internal.trigger.TriggerSettings;
import io.almanac.persistence.PersistenceSettings;
import io.almanac.persistence.instances.InstanceSettings;
import io.almanac.persistence.lease.JdbcLease;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Every public reader of {@code almanac.*} settings that a node (runtime, persistence, http) runs at
 * start, by name, in a fixed order: the tests that walk every key of the reference.conf files
 * through them (ConfigNullValuesAllModulesTest, ConfigurationBoundsTest) share this one list.
 */
final class SettingsReaders {
  private SettingsReaders() {}

  static final Map<String, Consumer<Config>> ALL = all();

  private static Map<String, Consumer<Config>> all() {
    Map<String, Consumer<Config>> readers = new LinkedHashMap<>();
    readers.put("NodeChecks.durations", NodeChecks::durations);
    readers.put("TaskSettings", TaskSettings::from);
    readers.put("TriggerSettings", TriggerSettings::from);
    readers.put("ExecutorSettings", ExecutorSettings::from);
    readers.put("JobLogSettings", io.almanac.internal.executor.JobLogSettings::from);
    readers.put("PoolSettings", PoolSettings::from);
    readers.put("WebhookSettings", WebhookSettings::from);
    readers.put("PersistenceSettings", PersistenceSettings::from);
    readers.put("InstanceSettings", InstanceSettings::from);
    readers.put("AlmanacHttp.Settings", c -> AlmanacHttp.Settings.from(DemoNode.withActionToken(c)));
    readers.put("JdbcLease.checkSettings", JdbcLease::checkSettings);
    return java.util.Collections.unmodifiableMap(readers);
  }
}

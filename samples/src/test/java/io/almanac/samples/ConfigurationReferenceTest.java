package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference, {@code docs/configuration.md}, is generated from the {@code
 * reference.conf} files of the runtime, persistence and http modules (every {@code almanac.*} key, its
 * default and its comment), so it cannot drift from them: this test fails when the committed file
 * differs from what the files say today. Regenerate it with {@code mvn -pl samples -am test
 * -Dtest=ConfigurationReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -Dalmanac.writeDocs=true} (from the
 * repository's root). It also
 * fails for a key without a comment.
 */
class ConfigurationReferenceTest {

  static final Path DOC = Path.of("..", "docs", "configuration.md");

  /** Every almanac.* key of the modules' reference.conf files: key to (default, comment, file). */
  static Map<String, String[]> keys() {
    // every reference.conf of the class path, merged (not defaultReference(): it adds system properties)
    Config reference = ConfigFactory.parseResources(ConfigurationReferenceTest.class.getClassLoader(), "reference.conf")
        .resolve();
    Map<String, String[]> keys = new TreeMap<>();
    for (Map.Entry<String, ConfigValue> e : reference.getConfig("almanac").entrySet()) {
      ConfigValue v = e.getValue();
      String comment = String.join(" ", v.origin().comments()).trim().replaceAll("\\s+", " ");
      String file = v.origin().resource() == null ? "?" : v.origin().resource();
      String url = v.origin().url() == null ? "" : v.origin().url().toString();
      String module = url.contains("/persistence/target/") || url.contains("almanac-persistence") ? "persistence"
          : url.contains("/http/target/") || url.contains("almanac-http") ? "http" : "runtime";
      keys.put("almanac." + e.getKey(), new String[] {v.render(ConfigRenderOptions.concise()), comment, module + " " + file});
    }
    return keys;
  }

  static String render(Map<String, String[]> keys) {
    StringBuilder b = new StringBuilder();
    b.append("# Configuration reference\n\n");
    b.append("Every `almanac.*` key with its default, generated from the `reference.conf` files of the runtime,\n");
    b.append("persistence and http modules (their comments are the descriptions). Override a key in your `application.conf` or\n");
    b.append("with `-D<key>=<value>`; a wrong value is refused at start naming the key and the value. Tasks declared in\n");
    b.append("configuration (`almanac.tasks`) and the includable files (`almanac-embedded.conf`, `almanac-h2.conf`,\n");
    b.append("`almanac-postgres.conf`, `almanac-cluster.conf`, each key commented there) are described in the README.\n\n");
    b.append("Every duration setting is from 0 to 3660 days (`Settings.MAX_DURATION`); a negative one or a longer one is\n");
    b.append("refused at start naming the key (`ConfigurationBoundsTest` checks every key below). A timer longer than a day is\n");
    b.append("armed a day at a time, and an ask waits at most a day. A task's own values (`almanac.tasks.*`) are bounded\n");
    b.append("as the Java builder's: `deadline` and the policies' delays at most 366 days, see the README.\n\n");
    b.append("This file is checked against the `reference.conf` files by a test (`ConfigurationReferenceTest`); regenerate\n");
    b.append("it with `mvn -pl samples -am test -Dtest=ConfigurationReferenceTest -Dsurefire.failIfNoSpecifiedTests=false\n");
    b.append("-Dalmanac.writeDocs=true`.\n\n");
    String section = null;
    for (Map.Entry<String, String[]> e : keys.entrySet()) {
      String key = e.getKey();
      String[] parts = key.split("\\.");
      String s = parts.length > 2 ? parts[0] + "." + parts[1] : parts[0];
      if (!s.equals(section)) {
        section = s;
        b.append("## `").append(s).append("` (").append(e.getValue()[2].split(" ")[0]).append(" module)\n\n");
        b.append("| key | default | what |\n| --- | --- | --- |\n");
      }
      b.append("| `").append(key).append("` | `").append(e.getValue()[0].replace("|", "\\|")).append("` | ")
          .append(e.getValue()[1].replace("|", "\\|")).append(" |\n");
      // a table ends before the next section's heading
      String next = keys.keySet().stream().filter(k -> k.compareTo(key) > 0).findFirst().orElse(null);
      if (next == null || !next.startsWith(section + ".")) {
        b.append("\n");
      }
    }
    b.append(journalWrites());
    return b.toString();
  }

  /** The journal's write batching: pekko-persistence-jdbc keys that the includable store files set (or leave). */
  static final List<String> JOURNAL_KEYS = List.of("jdbc-journal.parallelism", "jdbc-journal.batchSize", "jdbc-journal.bufferSize");

  /**
   * A section on the journal's group commit, from almanac-h2.conf and almanac-postgres.conf (their
   * values and comments) and, for a key a file leaves, the plugin's own reference.conf.
   */
  static String journalWrites() {
    ClassLoader loader = ConfigurationReferenceTest.class.getClassLoader();
    Config reference = ConfigFactory.parseResources(loader, "reference.conf");
    StringBuilder b = new StringBuilder();
    b.append("## Journal writes (`jdbc-journal.*`, set by `almanac-h2.conf` and `almanac-postgres.conf`)\n\n");
    b.append("Not `almanac.*` keys: pekko-persistence-jdbc's own, set after the include to change them. Its journal queues\n");
    b.append("every persist (`bufferSize` rows at most) and writes what is queued in one transaction (`batchSize` rows at most),\n");
    b.append("with at most `parallelism` transactions at once: with fewer transactions at once, the events of many tasks wait\n");
    b.append("for the running commit and go in the next one together (group commit; no delay is added). Below: the value\n");
    b.append("each file sets, or the plugin's default where it sets none, and why.\n\n");
    b.append("| key | file | value | what |\n| --- | --- | --- | --- |\n");
    for (String file : List.of("almanac-h2.conf", "almanac-postgres.conf")) {
      Config c = ConfigFactory.parseResources(loader, file);
      for (String key : JOURNAL_KEYS) {
        boolean set = c.hasPath(key);
        ConfigValue v = set ? c.getValue(key) : reference.getValue(key);
        String comment = String.join(" ", v.origin().comments()).trim().replaceAll("\\s+", " ");
        b.append("| `").append(key).append("` | `").append(file).append("` | `")
            .append(v.render(ConfigRenderOptions.concise())).append("`").append(set ? "" : " (the plugin's default)").append(" | ")
            .append(comment.replace("|", "\\|")).append(" |\n");
      }
    }
    b.append("\n");
    return b.toString();
  }

  @Test
  @DisplayName("docs/configuration.md lists every almanac.* key of the reference.conf files with its default and comment")
  void referenceIsCurrent() throws Exception {
    Map<String, String[]> keys = keys();
    List<String> uncommented = new ArrayList<>();
    keys.forEach((k, v) -> {
      if (v[1].isEmpty()) {
        uncommented.add(k);
      }
    });
    assertTrue(uncommented.isEmpty(), "keys without a comment in their reference.conf: " + uncommented);
    assertTrue(keys.size() > 40, "only " + keys.size() + " keys found: " + keys.keySet());
    String doc = render(keys);
    if (Boolean.getBoolean("almanac.writeDocs")) {
      Files.writeString(DOC, doc, StandardCharsets.UTF_8);
      return;
    }
    assertTrue(Files.exists(DOC), "missing " + DOC.toAbsolutePath().normalize() + ": regenerate with -Dalmanac.writeDocs=true");
    assertEquals(doc, Files.readString(DOC, StandardCharsets.UTF_8),
        "docs/configuration.md differs from the reference.conf files: regenerate it with -Dalmanac.writeDocs=true");
  }
}

package io.almanac.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * Reads a persisted spec written before retries and catch-up were separate policies (version 1) as
 * today's {@link SpecRecord} (version 2), with the same behaviour. (Until the journal had its own
 * {@code SpecRecord} it persisted {@link io.almanac.TaskSpec} itself, in the same JSON.)
 *
 * <p>Version 1 held one {@code backfill} object ({@code mode} NONE, IMMEDIATE, DELAYED or WINDOWED,
 * {@code delays}, {@code initialDelay}, {@code multiplier}, {@code maxDelay}, {@code jitter}, {@code
 * span}) that decided both whether a failed window was retried and whether a missed window was caught
 * up, {@code retry} held only {@code maxRetries} (in effect only when the mode was not NONE), and
 * {@code catchUp} only the {@code horizon}. Version 2 moves the back-off into {@code retry} and the
 * decision to run missed windows into {@code catchUp}:
 *
 * <table>
 *   <caption>version 1 to version 2</caption>
 *   <tr><th>backfill mode</th><th>retry</th><th>catchUp</th></tr>
 *   <tr><td>NONE (or absent)</td><td>maxRetries 0 (none)</td><td>mode NONE, same horizon</td></tr>
 *   <tr><td>IMMEDIATE</td><td>maxRetries kept, back-off IMMEDIATE</td><td>mode ALL, same horizon</td></tr>
 *   <tr><td>DELAYED with delays</td><td>maxRetries kept, back-off DELAYS, same delays</td><td>mode ALL, same horizon</td></tr>
 *   <tr><td>DELAYED without delays</td><td>maxRetries kept, back-off EXPONENTIAL, same initial
 *       delay, multiplier, cap and jitter</td><td>mode ALL, same horizon</td></tr>
 *   <tr><td>WINDOWED</td><td>maxRetries kept, back-off IMMEDIATE, same span</td><td>mode ALL, same horizon, same span</td></tr>
 * </table>
 *
 * A missing {@code retry} reads as version 1's default of 3 retries, a missing {@code catchUp} as
 * the horizon of 24 hours, as version 1's spec did. A spec already in the version 2 shape is left as
 * it is.
 *
 * <p>Configured in {@code pekko.serialization.jackson.migrations} (the runtime's reference.conf) for
 * every persisted type that holds specs: the task journal's {@code SpecDefined} and {@code State}
 * (field {@code spec}), and the trigger's {@code TasksRegistered} ({@code specs}, a list) and {@code
 * State} ({@code tasks}, a map by task id). {@link JournalRenames}, which reads the task journal's
 * types under their older class names, applies it as well.
 */
public final class TaskSpecMigration extends JacksonMigration {

  /** The version of the persisted spec's shape written today. */
  public static final int VERSION = 2;

  @Override
  public int currentVersion() {
    return VERSION;
  }

  @Override
  public JsonNode transform(int fromVersion, JsonNode json) {
    return fromVersion < VERSION ? upgradeSpecsIn(json) : json;
  }

  /**
   * Upgrades every spec a persisted event or snapshot holds, in place.
   *
   * @param json an event or snapshot of version 1
   * @return the same node
   */
  static JsonNode upgradeSpecsIn(JsonNode json) {
    if (!(json instanceof ObjectNode o)) {
      return json;
    }
    if (o.get("spec") instanceof ObjectNode spec) {
      upgradeSpec(spec); // TaskJournal.SpecDefined, TaskJournal.State
    }
    if (o.get("specs") instanceof ArrayNode specs) {
      for (JsonNode spec : specs) { // TriggerJournal.TasksRegistered
        if (spec instanceof ObjectNode s) {
          upgradeSpec(s);
        }
      }
    }
    if (o.get("tasks") instanceof ObjectNode tasks) {
      for (Iterator<Map.Entry<String, JsonNode>> it = tasks.fields(); it.hasNext(); ) { // TriggerJournal.State
        if (it.next().getValue() instanceof ObjectNode s) {
          upgradeSpec(s);
        }
      }
    }
    return json;
  }

  /**
   * Rewrites one spec of version 1 to version 2, in place.
   *
   * @param spec a spec as version 1 wrote it
   * @throws IllegalArgumentException if its backfill mode is not one version 1 could write
   */
  static void upgradeSpec(ObjectNode spec) {
    JsonNode oldRetry = spec.get("retry");
    if (!spec.has("backfill") && oldRetry != null && oldRetry.has("backoff")) {
      return; // already version 2
    }
    JsonNode backfill = spec.remove("backfill");
    String mode = backfill == null || backfill.get("mode") == null || backfill.get("mode").isNull()
        ? "NONE" : backfill.get("mode").asText();
    int cap = oldRetry != null && oldRetry.hasNonNull("maxRetries") ? oldRetry.get("maxRetries").asInt() : 3;
    JsonNode oldCatchUp = spec.get("catchUp");
    JsonNode horizon = oldCatchUp != null && oldCatchUp.hasNonNull("horizon")
        ? oldCatchUp.get("horizon") : text("PT24H");

    ObjectNode retry = neutralRetry();
    ObjectNode catchUp = JsonNodeFactory.instance.objectNode();
    catchUp.put("mode", "ALL");
    catchUp.set("horizon", horizon);
    catchUp.put("span", "PT0S");
    switch (mode) {
      case "NONE" -> {
        retry.put("maxRetries", 0);
        catchUp.put("mode", "NONE");
      }
      case "IMMEDIATE" -> retry.put("maxRetries", cap);
      case "DELAYED" -> {
        retry.put("maxRetries", cap);
        JsonNode delays = backfill.get("delays");
        if (delays != null && delays.isArray() && !delays.isEmpty()) {
          retry.put("backoff", "DELAYS");
          retry.set("delays", delays);
        } else {
          retry.put("backoff", "EXPONENTIAL");
          retry.set("initialDelay", backfill.get("initialDelay"));
          retry.set("multiplier", backfill.get("multiplier"));
          retry.set("maxDelay", backfill.get("maxDelay"));
          retry.set("jitter", backfill.get("jitter"));
        }
      }
      case "WINDOWED" -> {
        retry.put("maxRetries", cap);
        retry.set("span", backfill.get("span"));
        catchUp.set("span", backfill.get("span"));
      }
      default -> throw new IllegalArgumentException(
          "spec '" + spec.path("id").asText() + "': backfill mode '" + mode + "' is not one of NONE, IMMEDIATE,"
              + " DELAYED, WINDOWED");
    }
    spec.set("retry", retry);
    spec.set("catchUp", catchUp);
  }

  private static ObjectNode neutralRetry() {
    ObjectNode retry = JsonNodeFactory.instance.objectNode();
    retry.put("maxRetries", 0);
    retry.put("backoff", "IMMEDIATE");
    retry.putArray("delays");
    retry.put("initialDelay", "PT0S");
    retry.put("multiplier", 1.0);
    retry.put("maxDelay", "PT0S");
    retry.put("jitter", 0.0);
    retry.put("span", "PT0S");
    return retry;
  }

  private static JsonNode text(String value) {
    return JsonNodeFactory.instance.textNode(value);
  }
}

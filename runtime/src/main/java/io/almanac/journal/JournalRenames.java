package io.almanac.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * Reads journals written before the journal's types moved out of the runtime's internals: the
 * task's events and snapshot were {@code io.almanac.internal.TaskEntity$<Name>} and are {@code
 * io.almanac.journal.TaskJournal$<Name>}; the trigger's were {@code
 * io.almanac.internal.TriggerActor$<Name>} and are {@code io.almanac.journal.TriggerJournal$<Name>}.
 * The JSON is the same but for the specs held by {@code SpecDefined}, the task's {@code State},
 * {@code TasksRegistered} and the trigger's {@code State}, which are read through {@link
 * TaskSpecMigration} (every journal written under the old names predates the version 2 spec).
 * Configured for each old class name in {@code pekko.serialization.jackson.migrations} (the
 * runtime's reference.conf).
 */
public final class JournalRenames extends JacksonMigration {

  /** Old class-name prefix to new one, one entry per moved journal type's enclosing class. */
  static final Map<String, String> MOVED = Map.of(
      "io.almanac.internal.TaskEntity$", "io.almanac.journal.TaskJournal$",
      "io.almanac.internal.TriggerActor$", "io.almanac.journal.TriggerJournal$");

  @Override
  public int currentVersion() {
    return 2;
  }

  @Override
  public String transformClassName(int fromVersion, String className) {
    for (Map.Entry<String, String> move : MOVED.entrySet()) {
      if (className.startsWith(move.getKey())) {
        return move.getValue() + className.substring(move.getKey().length());
      }
    }
    return className;
  }

  @Override
  public JsonNode transform(int fromVersion, JsonNode json) {
    // The same components, except that journals this old hold specs of the shape before retries
    // and catch-up were separate policies (SpecDefined and State): TaskSpecMigration reads them.
    return TaskSpecMigration.upgradeSpecsIn(json);
  }
}

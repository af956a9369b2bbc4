package io.almanac.journal;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * Reads journals written before the journal's types moved out of the runtime's internals: the
 * task's events and snapshot were {@code io.almanac.internal.TaskEntity$<Name>} and are {@code
 * io.almanac.journal.TaskJournal$<Name>}, with the same JSON but for the spec held by {@code
 * SpecDefined} and {@code State}, which is read through {@link TaskSpecMigration} (every journal
 * written under the old names predates the version 2 spec). Configured for each old class name in
 * {@code pekko.serialization.jackson.migrations} (the runtime's reference.conf).
 */
public final class JournalRenames extends JacksonMigration {

  static final String OLD_PREFIX = "io.almanac.internal.TaskEntity$";
  static final String NEW_PREFIX = "io.almanac.journal.TaskJournal$";

  @Override
  public int currentVersion() {
    return 2;
  }

  @Override
  public String transformClassName(int fromVersion, String className) {
    return className.startsWith(OLD_PREFIX) ? NEW_PREFIX + className.substring(OLD_PREFIX.length()) : className;
  }

  @Override
  public JsonNode transform(int fromVersion, JsonNode json) {
    // The same components, except that journals this old hold specs of the shape before retries
    // and catch-up were separate policies (SpecDefined and State): TaskSpecMigration reads them.
    return TaskSpecMigration.upgradeSpecsIn(json);
  }
}

package io.almanac.persistence.instances;

import java.nio.file.Path;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The instance table's missed deadlines and pool waits on a real H2 file ({@link DeadlinePoolRowsScenarios}). */
@ExtendWith(LogCapturingExtension.class)
class DeadlinePoolRowsH2Test {

  @TempDir Path dir;

  @Test
  void deadlinesAndPoolWaitsLiveThenRebuildAndAddedColumns() throws Exception {
    DeadlinePoolRowsScenarios.run("deadline-pool-rows-h2", InstanceTableH2Test.h2(dir.resolve("almanac"), ""));
  }
}

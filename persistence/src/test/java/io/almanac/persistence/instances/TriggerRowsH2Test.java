package io.almanac.persistence.instances;

import java.nio.file.Path;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The instance table with WAITING windows and coalesced events on a real H2 file ({@link TriggerRowsScenarios}). */
@ExtendWith(LogCapturingExtension.class)
class TriggerRowsH2Test {

  @TempDir Path dir;

  @Test
  void waitingWindowsAndEventTalliesLiveThenRebuildAndAddedColumns() throws Exception {
    TriggerRowsScenarios.run("trigger-rows-h2", InstanceTableH2Test.h2(dir.resolve("almanac"), ""));
  }
}

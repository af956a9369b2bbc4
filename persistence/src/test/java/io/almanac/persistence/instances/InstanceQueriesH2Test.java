package io.almanac.persistence.instances;

import java.nio.file.Path;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Queries and retention on a real H2 file. */
@ExtendWith(LogCapturingExtension.class)
class InstanceQueriesH2Test {

  @TempDir Path dir;

  @Test
  void pagesAgreeWithTheSelectionAndRetentionMovesDoneRows() throws Exception {
    ActorTestKit kit = ActorTestKit.create("queries-h2", InstanceTableH2Test.h2(dir.resolve("almanac"), ""));
    try {
      InstanceQueriesScenarios.queriesAndRetention(kit.system());
    } finally {
      kit.shutdownTestKit();
    }
  }
}

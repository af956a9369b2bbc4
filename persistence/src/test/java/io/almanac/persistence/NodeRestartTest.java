package io.almanac.persistence;

import com.typesafe.config.Config;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The node restart scenarios on an H2 file, a new one for each test. */
class NodeRestartTest extends NodeRestartScenarios {

  @TempDir Path dir;

  @Override
  protected Config nodeConfig(String extra) {
    // The H2 journal does not stamp writers by default (one process holds the file); these scenarios
    // also check I5 on a restarted node's journal, so they opt in, as almanac-h2.conf shows.
    return H2TestConfig.at(dir.resolve("almanac"), H2TestConfig.STAMP_WRITERS + extra);
  }
}

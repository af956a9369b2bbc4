package io.almanac.persistence;

import com.typesafe.config.Config;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The node restart scenarios on an H2 file, a new one for each test. */
class NodeRestartTest extends NodeRestartScenarios {

  @TempDir Path dir;

  @Override
  protected Config nodeConfig(String extra) {
    return H2TestConfig.at(dir.resolve("almanac"), extra);
  }
}

package io.almanac.persistence.instances;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.nio.file.Path;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The instance table's scenario on a real H2 file. */
@ExtendWith(LogCapturingExtension.class)
class InstanceTableH2Test {

  @TempDir Path dir;

  static Config h2(Path db, String extra) {
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-h2.conf\"\n"
            + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.toString()) + "\n"
            + extra));
  }

  @Test
  void liveProjectionThenRebuildGiveTheSameTable() throws Exception {
    InstanceTableScenarios.liveThenRebuild("instances-h2", h2(dir.resolve("almanac"), InstanceTableScenarios.FAST));
  }
}

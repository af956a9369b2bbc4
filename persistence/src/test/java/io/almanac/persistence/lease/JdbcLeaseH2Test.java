package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The lease's contract on a real H2 file in a temporary folder, through almanac-h2.conf. */
class JdbcLeaseH2Test extends LeaseScenarios {

  @TempDir Path dir;

  @Override
  Config config() {
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-h2.conf\"\n"
            + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("db").toString()) + "\n"));
  }
}

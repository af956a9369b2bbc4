package io.almanac.persistence.pools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.BeforeEach;

/** The JDBC pool store on an H2 file database, as almanac-h2.conf opens it. */
class H2PoolStoreTest extends PoolStoreScenarios {

  private String url;

  @BeforeEach
  void freshFile() throws Exception {
    Path dir = Files.createTempDirectory("almanac-pools");
    url = "jdbc:h2:async:" + dir.resolve("db") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;DATABASE_TO_UPPER=false";
  }

  @Override
  String url() {
    return url;
  }

  @Override
  Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", "sa");
    p.setProperty("password", "");
    return p;
  }

  @Override
  String label() {
    return "H2 file";
  }
}

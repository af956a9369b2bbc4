package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The URL almanac-h2.conf builds, checked against H2 itself. */
@ExtendWith(LogCapturingExtension.class)
class H2UrlTest {

  @TempDir Path dir;

  private static String url(Config config) {
    return config.getString(H2TestConfig.SLICK_DB + ".url");
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = ?")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  @Test
  void defaultUrlIsAnAsyncFileWithoutWriteDelay() {
    Config config = ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\""));
    assertEquals("jdbc:h2:async:./data/almanac;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;DATABASE_TO_UPPER=false;MAX_COMPACT_TIME=0",
        url(config));
  }

  @Test
  void h2AcceptsTheConfiguredUrlAndWritesWithoutDelay() throws SQLException {
    Path db = dir.resolve("sub folder").resolve("almanac");
    Config config = H2TestConfig.at(db);
    String url = url(config);
    assertTrue(url.startsWith("jdbc:h2:async:" + db + ";"), url);
    assertTrue(url.contains(";WRITE_DELAY=0"), url);
    assertTrue(url.contains(";DB_CLOSE_ON_EXIT=FALSE"), url);
    assertFalse(url.contains("AUTO_SERVER"), url);
    try (Connection c = H2TestConfig.connect(config)) {
      assertEquals("0", setting(c, "WRITE_DELAY"));
      assertEquals("REGULAR", setting(c, "MODE"));
      assertEquals("false", setting(c, "DATABASE_TO_UPPER"));
      assertEquals("0", setting(c, "MAX_COMPACT_TIME"), "no compaction on close: the node compacts (H2Compaction)");
      assertEquals("jdbc:h2:async:" + db, c.getMetaData().getURL());
    }
    assertTrue(Files.exists(dir.resolve("sub folder").resolve("almanac.mv.db")), "a file database, folders created");
  }

  @Test
  void overrideWorksBeforeOrAfterTheInclude() {
    Config before = ConfigFactory.load(ConfigFactory.parseString(
        "almanac.persistence.h2.path = \"/var/lib/almanac/db\"\ninclude \"almanac-h2.conf\""));
    Config after = ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-h2.conf\"\nalmanac.persistence.h2.path = \"/var/lib/almanac/db\""));
    assertTrue(url(before).startsWith("jdbc:h2:async:/var/lib/almanac/db;"), url(before));
    assertEquals(url(before), url(after));
  }

  @Test
  void oneSmallPoolSharedByJournalSnapshotsAndReadJournal() {
    Config config = H2TestConfig.at(dir.resolve("db"), "almanac.persistence.h2.pool-size = 6");
    assertEquals("jdbc-journal", config.getString("pekko.persistence.journal.plugin"));
    assertEquals("jdbc-snapshot-store", config.getString("pekko.persistence.snapshot-store.plugin"));
    for (String plugin : new String[] {"jdbc-journal", "jdbc-snapshot-store", "jdbc-read-journal"}) {
      assertEquals("slick", config.getString(plugin + ".use-shared-db"), plugin);
    }
    assertEquals("slick.jdbc.H2Profile$", config.getString("pekko-persistence-jdbc.shared-databases.slick.profile"));
    for (String key : new String[] {"numThreads", "maxConnections", "minConnections"}) {
      assertEquals(6, config.getInt(H2TestConfig.SLICK_DB + "." + key), key);
    }
    assertEquals(4, H2TestConfig.at(dir.resolve("db")).getInt(H2TestConfig.SLICK_DB + ".maxConnections"), "default");
  }

  @Test
  void interruptingAWriterDoesNotCloseTheDatabase() throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"));
    try (Connection keep = H2TestConfig.connect(config); Statement s = keep.createStatement()) {
      s.execute("CREATE TABLE T(ID INT AUTO_INCREMENT PRIMARY KEY, V VARCHAR)");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger written = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer = new Thread(() -> {
        try (Connection c = H2TestConfig.connect(config); PreparedStatement p = c.prepareStatement("INSERT INTO T(V) VALUES (?)")) {
          while (!stop.get()) {
            p.setString(1, "row " + written.get());
            p.executeUpdate(); // auto-commit: every row is written to the file (WRITE_DELAY=0)
            written.incrementAndGet();
            Thread.interrupted(); // clear the flag, as a job's thread pool would, and write again
          }
        } catch (Throwable t) {
          failure.set(t);
        }
      }, "interrupted-writer");
      writer.start();
      int interrupts = 0;
      while (written.get() < 500 && writer.isAlive()) {
        writer.interrupt(); // H2's default file store would close the database here
        interrupts++;
      }
      stop.set(true);
      writer.join(10_000);
      assertNull(failure.get(), () -> "writer failed: " + failure.get());
      assertTrue(interrupts > 500, "interrupts: " + interrupts);
      try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM T")) {
        rs.next();
        assertEquals(written.get(), rs.getInt(1));
      }
      s.execute("INSERT INTO T(V) VALUES ('still open')");
    }
  }
}

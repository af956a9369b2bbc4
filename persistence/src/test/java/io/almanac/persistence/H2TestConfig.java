package io.almanac.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** Configuration as a user writes it: {@code include "almanac-h2.conf"} plus overrides. */
public final class H2TestConfig {

  static final String SLICK_DB = "pekko-persistence-jdbc.shared-databases.slick.db";

  private H2TestConfig() {}

  /**
   * @param db the database path (without .mv.db)
   * @param extra further HOCON lines
   * @return the resolved configuration, with every library's reference.conf behind it
   */
  /** The line that makes the H2 journal stamp each event with its writer (off in almanac-h2.conf). */
  public static final String STAMP_WRITERS = "jdbc-journal.class = \"io.almanac.persistence.WriterStampingJournal\"\n";

  static Config at(Path db, String extra) {
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-h2.conf\"\n"
            + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.toString()) + "\n"
            + extra));
  }

  static Config at(Path db) {
    return at(db, "");
  }

  /** A plain JDBC connection with the configured URL, user and password. */
  static Connection connect(Config config) throws SQLException {
    return DriverManager.getConnection(
        config.getString(SLICK_DB + ".url"), config.getString(SLICK_DB + ".user"), config.getString(SLICK_DB + ".password"));
  }
}

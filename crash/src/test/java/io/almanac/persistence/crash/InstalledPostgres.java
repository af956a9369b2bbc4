package io.almanac.persistence.crash;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@link PrivatePostgres} from the binaries of the installed PostgreSQL: {@code initdb} into a
 * temporary folder, then {@code pg_ctl start} / {@code pg_ctl stop -m fast} on a free port of
 * 127.0.0.1. The binaries are ALMANAC_TEST_PG_BIN, else {@code /usr/lib/postgresql/<version>/bin}
 * (the newest); PostgreSQL refuses to run as root, so as root the commands run as the
 * {@code postgres} user ({@code runuser}).
 */
final class InstalledPostgres implements PrivatePostgres {

  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgres;
  private volatile boolean running;
  /** Stops the server if this JVM exits while it runs (a killed or timed-out test run). */
  private final Thread reaper = new Thread(this::stopQuietly, "private-postgres-reaper");

  private InstalledPostgres(Path bin, Path dir, int port, boolean asPostgres) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgres = asPostgres;
  }

  /**
   * Creates and starts a server.
   *
   * @return the running server
   */
  static InstalledPostgres start(Path bin) throws IOException, InterruptedException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "almanac-pg-");
    if (root) {
      UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
      UserPrincipal postgres = users.lookupPrincipalByName("postgres");
      Files.setOwner(dir, postgres);
    }
    InstalledPostgres pg = new InstalledPostgres(bin, dir, freePort(), root);
    pg.run(List.of(bin.resolve("initdb").toString(), "-D", pg.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
        "--no-sync"), 120);
    Runtime.getRuntime().addShutdownHook(pg.reaper);
    pg.startServer();
    return pg;
  }

  /** @return ALMANAC_TEST_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else null */
  static Path findBin() {
    String env = System.getenv("ALMANAC_TEST_PG_BIN");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    Path base = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(base)) {
      try (Stream<Path> versions = Files.list(base)) {
        Path best = versions.filter(p -> Files.isExecutable(p.resolve("bin/pg_ctl")) && Files.isExecutable(p.resolve("bin/initdb")))
            .max(Comparator.comparingInt(p -> {
              try {
                return Integer.parseInt(p.getFileName().toString().replaceAll("\\..*", ""));
              } catch (NumberFormatException e) {
                return 0;
              }
            })).orElse(null);
        if (best != null) {
          return best.resolve("bin");
        }
      } catch (IOException e) {
        // fall through
      }
    }
    return null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private String data() {
    return dir.resolve("data").toString();
  }

  @Override
  public Path log() {
    return dir.resolve("postgres.log");
  }

  @Override
  public Pg pg() {
    return new Pg("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
  }

  @Override
  public String kind() {
    return "installed binaries " + bin + (asPostgres ? ", run as user postgres" : "");
  }

  @Override
  public int port() {
    return port;
  }

  /** {@code pg_ctl start}, waiting until it accepts connections. */
  @Override
  public void startServer() throws IOException, InterruptedException {
    run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-l", log().toString(), "-w", "-t", "60",
        "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1", "start"), 90);
    running = true;
  }

  /** {@code pg_ctl stop -m fast}: open connections are closed, the server is gone until started again. */
  @Override
  public void stopServer() throws IOException, InterruptedException {
    run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-m", "fast", "-w", "-t", "60", "stop"), 90);
    running = false;
  }

  private void run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (asPostgres) {
      cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    cmd.addAll(command);
    Path out = Files.createTempFile("almanac-pg-cmd-", ".txt");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within " + timeoutSeconds + " s: "
            + Files.readString(out, StandardCharsets.UTF_8));
      }
      if (p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + " failed with exit code " + p.exitValue() + ": "
            + Files.readString(out, StandardCharsets.UTF_8) + (Files.exists(log()) ? "\nserver log:\n"
            + Files.readString(log(), StandardCharsets.UTF_8) : ""));
      }
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private void stopQuietly() {
    if (running) {
      try {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-m", "immediate", "-w", "-t", "30", "stop"), 40);
      } catch (IOException | InterruptedException e) {
        // the JVM is exiting: nothing more to do
      }
    }
  }

  /** Stops the server if it runs and deletes its folder. */
  @Override
  public void close() throws IOException, InterruptedException {
    try {
      if (running) {
        stopServer();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException exiting) {
        // the JVM is shutting down already
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}

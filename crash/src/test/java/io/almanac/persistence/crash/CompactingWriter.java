package io.almanac.persistence.crash;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.persistence.H2Compaction;
import io.almanac.persistence.SchemaBootstrap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The child JVM of {@link H2CompactionCrashTest}: a node on an H2 file (almanac-h2.conf as shipped)
 * whose compaction runs nearly all the time ({@link #COMPACTION}), and a writer that commits as fast
 * as it can beside it, until the test kills it with SIGKILL (or for a minute at most).
 *
 * <p>Each commit {@code i} inserts row {@code i} of the table {@code acked} (a 300-byte payload),
 * deletes row {@code i - }{@value #KEPT} and sets the one row of {@code head} to {@code i}, so the
 * file is full of dead pages to compact. After the commit returns it appends {@code A <i>} to
 * {@code <path>.acks}: the commit is acknowledged (the page cache keeps the line across a kill). It
 * prints {@code STARTING} before the schema bootstrap (which first compacts the closed file offline
 * when it is over the bounds: with these settings, whenever a kill left garbage in it), {@code
 * READY} once it writes, and {@code C <n> <ms> <ms>} when it sees that the n-th compaction has
 * ended, with the time spent compacting so far and the time since READY. It continues after the
 * file's head.
 *
 * <p>Usage: {@code CompactingWriter <h2 path without .mv.db>}.
 */
public final class CompactingWriter {

  /** Rows kept (1.5 MB, so that the offline compaction at the start takes a while): commit i deletes row i - KEPT. */
  static final int KEPT = 5000;

  /** Looks every 20 ms, and compacts at every look (a file is always larger than its live data), for up to 50 ms. */
  static final String COMPACTION = "almanac.persistence.h2.compaction { interval = 20ms, max-ratio = 1.0, "
      + "min-file-size = 0, max-time = 50ms }";

  private CompactingWriter() {}

  static Config config(Path db) {
    return ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\"\n"
        + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.toString()) + "\n"
        + COMPACTION + "\n"
        + "pekko.loglevel = INFO\n"));
  }

  /** @return the last commit the writer acknowledged on the database at db, or -1 */
  static long lastAcknowledged(Path db) throws IOException {
    Path acks = Path.of(db + ".acks");
    if (!Files.exists(acks)) {
      return -1;
    }
    List<String> lines = Files.readAllLines(acks, StandardCharsets.US_ASCII);
    for (int n = lines.size() - 1; n >= 0; n--) {
      String line = lines.get(n);
      if (line.startsWith("A ") && line.length() > 2) {
        return Long.parseLong(line.substring(2).trim());
      }
    }
    return -1;
  }

  /**
   * @param args the H2 path
   * @throws Exception when it cannot start (it is killed while it runs)
   */
  public static void main(String[] args) throws Exception {
    Path db = Path.of(args[0]);
    Config config = config(db);
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "compacting-writer", config);
    System.out.println("STARTING");
    SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
    String key = "pekko-persistence-jdbc.shared-databases.slick.db.";
    try (Connection c = DriverManager.getConnection(config.getString(key + "url"), config.getString(key + "user"),
        config.getString(key + "password")); Statement s = c.createStatement();
        FileChannel acks = FileChannel.open(Path.of(db + ".acks"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      s.execute("CREATE TABLE IF NOT EXISTS acked (i BIGINT PRIMARY KEY, payload VARBINARY(300))");
      s.execute("CREATE TABLE IF NOT EXISTS head (id INT PRIMARY KEY, i BIGINT)");
      s.execute("INSERT INTO head SELECT 1, -1 WHERE NOT EXISTS (SELECT * FROM head)");
      long i;
      try (ResultSet rs = s.executeQuery("SELECT i FROM head")) {
        rs.next();
        i = rs.getLong(1) + 1;
      }
      c.setAutoCommit(false);
      PreparedStatement insert = c.prepareStatement("INSERT INTO acked VALUES (?, ?)");
      PreparedStatement delete = c.prepareStatement("DELETE FROM acked WHERE i = ?");
      PreparedStatement head = c.prepareStatement("UPDATE head SET i = ? WHERE id = 1");
      Random random = new Random();
      byte[] payload = new byte[300];
      long compactions = 0;
      long started = System.nanoTime();
      System.out.println("READY " + i);
      // bounded, whatever the parent does: a minute of writing at most
      for (long stopAt = started + TimeUnit.SECONDS.toNanos(60); System.nanoTime() - stopAt < 0; i++) {
        random.nextBytes(payload);
        insert.setLong(1, i);
        insert.setBytes(2, payload);
        insert.executeUpdate();
        delete.setLong(1, i - KEPT);
        delete.executeUpdate();
        head.setLong(1, i);
        head.executeUpdate();
        c.commit();
        acks.write(ByteBuffer.wrap(("A " + i + "\n").getBytes(StandardCharsets.US_ASCII)));
        H2Compaction.Status status = H2Compaction.get(system).status();
        if (status.compactions() != compactions) {
          compactions = status.compactions();
          System.out.println("C " + compactions + " " + status.compactionTime().toMillis() + " "
              + (System.nanoTime() - started) / 1_000_000);
        }
      }
    }
    System.out.println("ENOUGH");
    Runtime.getRuntime().halt(4);
  }
}

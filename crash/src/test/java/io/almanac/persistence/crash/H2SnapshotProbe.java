package io.almanac.persistence.crash;

import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Many kill states of H2CompactionCrashTest's writer, cheaply: it freezes the {@link
 * CompactingWriter} child (SIGSTOP, then waits until every thread is stopped), copies its file (the
 * state a SIGKILL at that moment leaves, with the last acknowledged commit), resumes it, 100 times a
 * run; then opens each copy twice in two ways: with plain H2 (open, close, open), and as the node
 * does (H2Compaction.beforeOpen first, which settles a file that was not closed cleanly). Only the
 * node's way is asserted; the plain way's failures are printed (H2 2.3.232 loses commits there: about
 * 2 in 100 copies on a loaded 2-core machine, see H2FileStore#settleRecovered). A diagnostic, out of
 * the default build: {@code -Dalmanac.crash.h2-snapshots=<runs>} (about 40 s a run). Bad copies stay
 * in target/crash/h2-snap-*.
 */
@EnabledIfSystemProperty(named = "almanac.crash.h2-snapshots", matches = "\\d+",
    disabledReason = "a diagnostic of many kill states (minutes): -Dalmanac.crash.h2-snapshots=<runs>")
class H2SnapshotProbe {

  @Test
  void probe() throws Exception {
    int runs = Integer.getInteger("almanac.crash.h2-snapshots");
    int perRun = Integer.getInteger("almanac.crash.h2-snapshots-per-run", 100);
    Random random = new Random();
    Path root = Path.of("target", "crash", "h2-snap-" + System.currentTimeMillis()).toAbsolutePath();
    int total = 0;
    int[] badPlain = {0};
    int[] badNode = {0};
    List<String> bad = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      Path dir = root.resolve("run" + run);
      Files.createDirectories(dir);
      Path db = dir.resolve("almanac");
      Config config = CompactingWriter.config(db);
      String url = config.getString("pekko-persistence-jdbc.shared-databases.slick.db.url");
      List<Long> acks = new ArrayList<>();
      try (ChildJvm node = ChildJvm.start("writer", dir, CompactingWriter.class,
          List.of("-Dlogback.configurationFile=" + ChildJvm.resource("crash-node-logback.xml"), "-Dcrash.log=" + dir.resolve("writer.log")),
          List.of(db.toString()))) {
        node.await(node.nextLine(l -> l.startsWith("READY")), Duration.ofSeconds(120));
        for (int s = 0; s < perRun; s++) {
          TimeUnit.MICROSECONDS.sleep(random.nextInt(30_000));
          node.freeze();
          try {
            awaitStopped(node.pid());
            acks.add(CompactingWriter.lastAcknowledged(db));
            Files.copy(dir.resolve("almanac.mv.db"), dir.resolve("s" + s + ".mv.db"), StandardCopyOption.REPLACE_EXISTING);
          } finally {
            node.resume();
          }
        }
        node.kill9();
      }
      for (int s = 0; s < acks.size(); s++) {
        Path snap = dir.resolve("s" + s + ".mv.db");
        long acked = acks.get(s);
        boolean keep = false;
        for (String mode : new String[] {"plain", "node"}) {
          total++;
          Path work = dir.resolve(mode + s + ".mv.db");
          Files.copy(snap, work, StandardCopyOption.REPLACE_EXISTING);
          String u = url.replace(db.toString(), dir.resolve(mode + s).toString());
          if (mode.equals("node")) {
            java.lang.reflect.Method m = Class.forName("io.almanac.persistence.H2Compaction")
                .getDeclaredMethod("beforeOpen", String.class, io.almanac.persistence.PersistenceSettings.class);
            m.setAccessible(true);
            m.invoke(null, u, io.almanac.persistence.PersistenceSettings.from(config));
          }
          String h1 = head(u);
          String h2 = head(u);
          boolean ok = h1.equals(h2) && (h1.equals(String.valueOf(acked)) || h1.equals(String.valueOf(acked + 1)));
          String line = mode + " run " + run + " snapshot " + s + ": acked " + acked + ", first " + h1 + ", second " + h2;
          if (!ok) {
            System.out.println("BAD " + line);
            bad.add(line);
            (mode.equals("plain") ? badPlain : badNode)[0]++;
            keep = true;
          }
          Files.delete(work);
        }
        if (!keep) {
          Files.delete(snap);
        }
      }
      System.out.println("run " + run + ": " + acks.size() + " snapshots, last acked " + acks.get(acks.size() - 1) + "; bad so far " + bad.size());
    }
    System.out.println("SNAPSHOTS: " + total / 2 + " snapshots; plain open/close/open bad " + badPlain[0] + ", node pre-open then open/close/open bad " + badNode[0] + ": " + bad);
    org.junit.jupiter.api.Assertions.assertEquals(0, badNode[0], "copies that lost commits the node's way: " + bad);
  }

  /** SIGSTOP is asynchronous: waits until every thread of the process is stopped. */
  private static void awaitStopped(long pid) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() - deadline < 0) {
      boolean all = true;
      try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
        for (Path t : tasks.toList()) {
          String stat;
          try {
            stat = Files.readString(t.resolve("stat"));
          } catch (java.io.IOException gone) {
            continue;
          }
          char state = stat.charAt(stat.lastIndexOf(')') + 2);
          if (state != 'T' && state != 't') {
            all = false;
            break;
          }
        }
      }
      if (all) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new IllegalStateException("pid " + pid + " did not stop");
  }

  private static String head(String url) {
    try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT i FROM head")) {
      return rs.next() ? String.valueOf(rs.getLong(1)) : "missing";
    } catch (Exception e) {
      return "error " + e.toString().replace('\n', ' ');
    }
  }
}

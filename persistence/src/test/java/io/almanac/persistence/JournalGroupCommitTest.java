package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The journal's group commit: both store files let one batched write (one transaction) run at a
 * time, so the events of many tasks queued meanwhile go in the next transaction together (measured:
 * a burst of 10,000 windows on PostgreSQL, 4.1 rows per transaction with the plugin's 8 writes at
 * once, 21.5 with one; bench/results/2026-12-05-write-path.txt), and queue enough rows for a burst.
 */
class JournalGroupCommitTest {

  private static Config resolved(String file) {
    // the file over the plugin's reference.conf, as a node loads it (the plugin's defaults for what the file leaves)
    return ConfigFactory.parseResources(file).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  @DisplayName("almanac-h2.conf and almanac-postgres.conf: one journal write at a time, batches up to 400 rows, 20,000 queued")
  void oneWriteAtATime() {
    for (String file : new String[] {"almanac-h2.conf", "almanac-postgres.conf"}) {
      Config c = resolved(file);
      assertEquals(1, c.getInt("jdbc-journal.parallelism"), file + ": jdbc-journal.parallelism");
      assertEquals(400, c.getInt("jdbc-journal.batchSize"), file + ": jdbc-journal.batchSize (the plugin's)");
      assertEquals(20000, c.getInt("jdbc-journal.bufferSize"), file + ": jdbc-journal.bufferSize");
    }
  }
}

package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.persistence.H2FileStore.Compacted;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which JDBC URLs name an embedded H2 file that the node may compact before it opens it, and what it
 * does to a closed file before it opens it.
 */
class H2FileStoreTest {

  @Test
  void fileOfTheShippedUrlKeepsH2sFileSystemPrefix() {
    assertEquals(Optional.of("async:./data/almanac.mv.db"), H2FileStore.fileOf(
        "jdbc:h2:async:./data/almanac;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;DATABASE_TO_UPPER=false;MAX_COMPACT_TIME=0"));
    assertEquals(Optional.of("/var/lib/almanac/db.mv.db"), H2FileStore.fileOf("jdbc:h2:/var/lib/almanac/db"));
    assertEquals(Optional.of("file:~/db.mv.db"), H2FileStore.fileOf("jdbc:h2:file:~/db;MODE=PostgreSQL"));
  }

  @Test
  void noFileForInMemoryServerOrOtherDatabases() {
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:tcp://127.0.0.1:9092/async:/data/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:ssl://db.example.com/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:postgresql://127.0.0.1:5432/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf(""));
  }

  @Test
  void aFileNotClosedCleanlyIsSettledWithItsLastCommitAndNotCopied(@TempDir Path dir) throws Exception {
    String file = dir.resolve("db.mv.db").toString();
    MVStore killed = new MVStore.Builder().fileName(file).autoCommitDisabled().open();
    MVMap<Integer, String> data = killed.openMap("data");
    for (int i = 0; i < 200; i++) {
      data.put(i % 20, "v" + i); // rewrites: dead chunks for the settling to drop
      killed.commit();
    }
    killed.closeImmediately(); // as a kill leaves it: the header is not the clean one
    assertFalse(clean(file), "a file closed without H2's clean header");

    Optional<Compacted> settled = H2FileStore.compactClosed(file, size -> true, System::nanoTime);

    assertTrue(settled.isPresent(), "settled");
    assertFalse(settled.get().closedCleanly(), "reported as not closed cleanly");
    assertFalse(Files.exists(Path.of(file + ".tempFile")), "not copied: H2's copy of a killed file is not always readable");
    assertTrue(clean(file), "closed cleanly by the settling");
    try (MVStore reopened = new MVStore.Builder().fileName(file).readOnly().open()) {
      MVMap<Integer, String> after = reopened.openMap("data");
      assertEquals("v199", after.get(19), "the last commit");
      assertEquals(20, after.size());
    }
  }

  @Test
  void aCleanFileIsCopiedOnlyWhenOverItsBounds(@TempDir Path dir) {
    String file = dir.resolve("db.mv.db").toString();
    try (MVStore store = new MVStore.Builder().fileName(file).open()) {
      store.<Integer, String>openMap("data").put(1, "one");
    }
    assertTrue(clean(file));

    assertEquals(Optional.empty(), H2FileStore.compactClosed(file, size -> false, System::nanoTime), "in bounds: untouched");
    Optional<Compacted> copied = H2FileStore.compactClosed(file, size -> true, System::nanoTime);
    assertTrue(copied.isPresent() && copied.get().closedCleanly(), "over its bounds: copied");
    try (MVStore reopened = new MVStore.Builder().fileName(file).readOnly().open()) {
      assertEquals("one", reopened.<Integer, String>openMap("data").get(1));
    }
  }

  private static boolean clean(String file) {
    try (MVStore s = new MVStore.Builder().fileName(file).readOnly().open()) {
      return "1".equals(String.valueOf(s.getFileStore().getStoreHeader().get("clean")));
    }
  }
}

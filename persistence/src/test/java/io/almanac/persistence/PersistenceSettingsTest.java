package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** One test per validation rule of {@code almanac.persistence}: bad values are refused naming the full key. */
@ExtendWith(LogCapturingExtension.class)
class PersistenceSettingsTest {

  private static PersistenceSettings with(String hocon) {
    return PersistenceSettings.from(ConfigFactory.parseString(hocon).withFallback(ConfigFactory.load()).resolve());
  }

  private static InvalidSpecException refused(String hocon, String key) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> with(hocon));
    assertEquals(key, e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith(key + " '"), e.getMessage());
    return e;
  }

  @Test
  void defaultsComeFromReferenceConf() {
    PersistenceSettings s = PersistenceSettings.from(ConfigFactory.load());
    assertTrue(s.autoCreateSchema());
    assertEquals("./data/almanac", s.h2().path());
    assertEquals(4, s.h2().poolSize());
    assertEquals(new PersistenceSettings.Compaction(true, Duration.ofMillis(250), 2.0, 4_000_000, Duration.ofMillis(200)),
        s.h2().compaction());
    assertEquals("jdbc:postgresql://127.0.0.1:5432/almanac", s.postgres().url());
    assertEquals("almanac", s.postgres().user());
    assertEquals("", s.postgres().password());
    assertEquals(10, s.postgres().poolSize());
    assertEquals(Optional.empty(), s.postgres().schema());
  }

  private static final String PG = "almanac.persistence.postgres.";

  @Test
  void acceptsPostgresValues() {
    PersistenceSettings.Postgres pg = with(PG + "url = \"jdbc:postgresql://db.example.com:6432/prod?sslmode=verify-full\"\n"
        + PG + "user = scheduler\n" + PG + "password = \"s3cret\"\n" + PG + "pool-size = 64\n" + PG + "schema = almanac_2\n").postgres();
    assertEquals("jdbc:postgresql://db.example.com:6432/prod?sslmode=verify-full", pg.url());
    assertEquals("scheduler", pg.user());
    assertEquals("s3cret", pg.password());
    assertEquals(64, pg.poolSize());
    assertEquals(Optional.of("almanac_2"), pg.schema());
    assertFalse(pg.toString().contains("s3cret"), pg.toString());
    assertEquals(Optional.of("a"), with(PG + "schema = a\n" + PG + "url = \"jdbc:postgresql://h/d?currentSchema=a\"").postgres().schema());
  }

  @Test
  void refusesPostgresUrlThatIsNotPostgres() {
    refused(PG + "url = \"jdbc:h2:./db\"", PG + "url");
    refused(PG + "url = \"\"", PG + "url");
    refused(PG + "url = \" jdbc:postgresql://h/d\"", PG + "url");
    InvalidSpecException e = refused(PG + "url = \"jdbc:postgresql://host:notaport/db\"", PG + "url");
    assertTrue(e.getMessage().contains("pgJDBC cannot parse it"), e.getMessage());
  }

  @Test
  void refusesEmptyPostgresUser() {
    refused(PG + "user = \"\"", PG + "user");
  }

  @Test
  void refusesPostgresPoolSizeOutOfRange() {
    InvalidSpecException e = refused(PG + "pool-size = 0", PG + "pool-size");
    assertEquals("almanac.persistence.postgres.pool-size '0' is invalid: must be between 1 and 64", e.getMessage());
    refused(PG + "pool-size = 65", PG + "pool-size");
    refused(PG + "pool-size = ten", PG + "pool-size");
  }

  @Test
  void refusesPostgresSchemaThatIsNotAPlainLowerCaseName() {
    for (String bad : new String[] {"\"\"", "Almanac", "\"my schema\"", "\"a;DROP TABLE x\"", "1st", "\"a-b\"",
        "a234567890123456789012345678901234567890123456789012345678901234"}) {
      refused(PG + "schema = " + bad, PG + "schema");
    }
    InvalidSpecException e = refused(PG + "schema = pg_almanac", PG + "schema");
    assertTrue(e.getMessage().contains("reserved"), e.getMessage());
  }

  @Test
  void refusesSchemaThatDiffersFromTheUrlsCurrentSchema() {
    InvalidSpecException e = refused(PG + "schema = a\n" + PG + "url = \"jdbc:postgresql://h/d?currentSchema=b\"", PG + "url");
    assertTrue(e.getMessage().contains("currentSchema=b") && e.getMessage().contains("set the schema in one place"), e.getMessage());
  }

  @Test
  void wronglyTypedPasswordIsNotEchoed() {
    InvalidSpecException e = refused(PG + "password = [\"s3cret\"]", PG + "password");
    assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
  }

  @Test
  void acceptsAbsoluteAndExplicitlyRelativePaths() {
    for (String path : new String[] {"/var/lib/almanac/db", "./db", "../almanac/db", "~/almanac/db"}) {
      assertEquals(path, with("almanac.persistence.h2.path = \"" + path + "\"").h2().path());
    }
  }

  @Test
  void refusesEmptyPath() {
    InvalidSpecException e = refused("almanac.persistence.h2.path = \"\"", "almanac.persistence.h2.path");
    assertEquals("", e.value());
    assertTrue(e.getMessage().contains("must not be empty"), e.getMessage());
    refused("almanac.persistence.h2.path = \"   \"", "almanac.persistence.h2.path");
  }

  @Test
  void refusesPathImplicitlyRelativeToWorkingDirectory() {
    InvalidSpecException e = refused("almanac.persistence.h2.path = \"data/almanac\"", "almanac.persistence.h2.path");
    assertEquals("data/almanac", e.value());
    assertTrue(e.getMessage().contains("./"), e.getMessage());
  }

  @Test
  void refusesPathWithUrlSettings() {
    InvalidSpecException e = refused("almanac.persistence.h2.path = \"./db;AUTO_SERVER=TRUE\"", "almanac.persistence.h2.path");
    assertTrue(e.getMessage().contains("';'"), e.getMessage());
  }

  @Test
  void refusesPathWithMvDbSuffix() {
    refused("almanac.persistence.h2.path = \"./data/almanac.mv.db\"", "almanac.persistence.h2.path");
  }

  @Test
  void refusesPoolSizeBelowOne() {
    InvalidSpecException e = refused("almanac.persistence.h2.pool-size = -1", "almanac.persistence.h2.pool-size");
    assertEquals("-1", e.value());
    assertEquals("almanac.persistence.h2.pool-size '-1' is invalid: must be between 1 and 64", e.getMessage());
    refused("almanac.persistence.h2.pool-size = 0", "almanac.persistence.h2.pool-size");
  }

  @Test
  void refusesPoolSizeAboveMaximum() {
    refused("almanac.persistence.h2.pool-size = 65", "almanac.persistence.h2.pool-size");
  }

  @Test
  void refusesPoolSizeThatIsNotAnInteger() {
    InvalidSpecException e = refused("almanac.persistence.h2.pool-size = four", "almanac.persistence.h2.pool-size");
    assertEquals("four", e.value());
    assertTrue(e.getMessage().contains("must be an integer"), e.getMessage());
  }

  private static final String COMPACTION = "almanac.persistence.h2.compaction.";

  @Test
  void acceptsCompactionValues() {
    PersistenceSettings.Compaction c = with(COMPACTION + "enabled = off\n" + COMPACTION + "interval = 250ms\n"
        + COMPACTION + "max-ratio = 1.0\n" + COMPACTION + "min-file-size = 0\n" + COMPACTION + "max-time = 2s\n").h2().compaction();
    assertEquals(new PersistenceSettings.Compaction(false, Duration.ofMillis(250), 1.0, 0, Duration.ofSeconds(2)), c);
    assertEquals(512_000, with(COMPACTION + "min-file-size = 512kB").h2().compaction().minFileSize());
  }

  @Test
  void refusesCompactionIntervalThatIsNotPositive() {
    refused(COMPACTION + "interval = 0s", COMPACTION + "interval");
    refused(COMPACTION + "interval = -1s", COMPACTION + "interval");
    refused(COMPACTION + "interval = often", COMPACTION + "interval");
  }

  @Test
  void refusesCompactionMaxRatioBelowOne() {
    InvalidSpecException e = refused(COMPACTION + "max-ratio = 0.5", COMPACTION + "max-ratio");
    assertTrue(e.getMessage().contains("at least 1.0"), e.getMessage());
    refused(COMPACTION + "max-ratio = twice", COMPACTION + "max-ratio");
  }

  @Test
  void refusesCompactionMinFileSizeThatIsNotASize() {
    refused(COMPACTION + "min-file-size = -1", COMPACTION + "min-file-size");
    InvalidSpecException e = refused(COMPACTION + "min-file-size = large", COMPACTION + "min-file-size");
    assertTrue(e.getMessage().contains("size in bytes"), e.getMessage());
  }

  @Test
  void refusesCompactionMaxTimeThatIsNotPositive() {
    refused(COMPACTION + "max-time = 0ms", COMPACTION + "max-time");
  }

  @Test
  void refusesCompactionEnabledThatIsNotABoolean() {
    refused(COMPACTION + "enabled = sometimes", COMPACTION + "enabled");
  }

  @Test
  void refusesAutoCreateThatIsNotABoolean() {
    InvalidSpecException e = refused("almanac.persistence.schema.auto-create = maybe", "almanac.persistence.schema.auto-create");
    assertTrue(e.getMessage().contains("must be on or off"), e.getMessage());
  }

  @Test
  void refusesMissingKey() {
    Config noPath = ConfigFactory.load().withoutPath("almanac.persistence.h2.path");
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> PersistenceSettings.from(noPath));
    assertEquals("almanac.persistence.h2.path", e.field());
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());
  }

  @Test
  void schemaBootstrapRefusesBadValueBeforeOpeningTheDatabase(@TempDir Path dir) throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"), "almanac.persistence.h2.pool-size = 0");
    ActorTestKit kit = ActorTestKit.create("bad-settings", config);
    try {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> SchemaBootstrap.ensureSchema(kit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS));
      InvalidSpecException cause = assertInstanceOf(InvalidSpecException.class, e.getCause());
      assertEquals("almanac.persistence.h2.pool-size", cause.field());
      InvalidSpecException blocking = assertThrows(InvalidSpecException.class,
          () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(10)));
      assertEquals("almanac.persistence.h2.pool-size", blocking.field());
    } finally {
      kit.shutdownTestKit();
    }
    assertFalse(Files.exists(dir.resolve("db.mv.db")), "nothing was created");
  }
}

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

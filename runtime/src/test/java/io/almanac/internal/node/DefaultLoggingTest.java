package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * Almanac's default logging: INFO to the console for an embedder without a logback configuration,
 * and nothing at all when the embedder has one (it replaces the default).
 */
class DefaultLoggingTest {

  /** A class loader that finds no resource: an application without logback.xml. */
  private static final ClassLoader NO_FILES = new URLClassLoader(new URL[0], null);

  @Test
  @DisplayName("without a logback configuration: INFO and above to the console, no DEBUG flood")
  void defaultWithoutConfiguration() {
    LoggerContext context = new LoggerContext();
    DefaultLogging logging = new DefaultLogging();
    logging.setContext(context);
    assertEquals(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, logging.configure(context, NO_FILES, null));
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertEquals(Level.INFO, root.getLevel());
    assertNotNull(root.getAppender("almanac-console"));
    assertFalse(context.getLogger("org.apache.pekko.cluster").isDebugEnabled(), "DEBUG is off by default");
    assertTrue(context.getLogger("io.almanac.internal.executor.Executor").isInfoEnabled());
  }

  @Test
  @DisplayName("an embedder's logback.xml, logback-test.xml or -Dlogback.configurationFile replaces the default")
  void embedderConfigurationWins() {
    LoggerContext context = new LoggerContext();
    DefaultLogging logging = new DefaultLogging();
    logging.setContext(context);
    // this module's test class path has a logback-test.xml
    assertNotNull(getClass().getClassLoader().getResource("logback-test.xml"));
    assertEquals(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY, logging.configure(context, getClass().getClassLoader(), null));
    assertEquals(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY, logging.configure(context, NO_FILES, "/etc/app/logback.xml"));
    assertNull(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("almanac-console"), "nothing configured");
  }

  @Test
  @DisplayName("logback finds the default through META-INF/services")
  void registeredAsService() {
    assertTrue(StreamSupport.stream(ServiceLoader.load(Configurator.class).spliterator(), false)
        .anyMatch(c -> c instanceof DefaultLogging));
  }
}

package io.almanac.internal.node;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * Almanac's default logging for an embedder who uses logback without a configuration of its own:
 * INFO and above to the console, one line per event, instead of logback's fallback (everything at
 * DEBUG, thousands of lines a minute from Pekko and the JDBC pool). Found by logback through {@code
 * META-INF/services/ch.qos.logback.classic.spi.Configurator}, before logback looks for its files:
 * it steps aside (and logback reads the file) when a {@code logback-test.xml} or {@code logback.xml}
 * is on the class path or {@code -Dlogback.configurationFile} is set, so an embedder's own
 * configuration always replaces it. INTERNAL API.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_LOW_PRIORITY)
public final class DefaultLogging extends ContextAwareBase implements Configurator {

  /** The console line: time, level, logger, message (the MDC keys are for structured encoders). */
  static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{36} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return configure(context, loader != null ? loader : DefaultLogging.class.getClassLoader(),
        System.getProperty("logback.configurationFile"));
  }

  /**
   * @param context the logger context to configure
   * @param loader where the embedder's configuration files would be
   * @param configurationFile the value of {@code logback.configurationFile}, or null
   * @return whether logback's own configurators run after this one
   */
  ExecutionStatus configure(LoggerContext context, ClassLoader loader, String configurationFile) {
    if (configurationFile != null || loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("almanac-console");
    console.setEncoder(encoder);
    console.start();
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}

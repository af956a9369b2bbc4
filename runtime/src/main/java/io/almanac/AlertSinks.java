package io.almanac;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ready-made {@link AlertSink}s. */
public final class AlertSinks {
  private static final Logger LOG = LoggerFactory.getLogger("io.almanac.alerts");

  private AlertSinks() {}

  /**
   * The default sink: logs each alert through SLF4J on the {@code io.almanac.alerts} logger, final
   * failures and a stalled trigger at ERROR, the rest at WARN.
   *
   * @return the logging sink
   */
  public static AlertSink logging() {
    return alert -> {
      String line = "ALERT " + alert.kind() + (alert.taskId() == null ? "" : " task '" + alert.taskId() + "'")
          + (alert.window() == null ? "" : " window '" + alert.window() + "'") + ": " + alert.message();
      if (alert.kind() == Alert.Kind.FINAL_FAILED || alert.kind() == Alert.Kind.TRIGGER_STALLED) {
        LOG.error(line);
      } else {
        LOG.warn(line);
      }
    };
  }
}

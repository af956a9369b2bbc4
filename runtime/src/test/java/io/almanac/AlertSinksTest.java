package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class AlertSinksTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger("io.almanac.alerts");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @BeforeEach
  void attach() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(lines);
  }

  private static Alert skips(String task) {
    return new Alert(Alert.Kind.REPEATED_SKIPS, task, "2026-12-01T00:00:00Z", "task '" + task + "' skipped 3 windows in a row",
        Instant.parse("2026-12-01T00:00:00Z"));
  }

  private List<String> messages() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  @DisplayName("R32: under overload the logging sink writes one REPEATED_SKIPS line per interval and says how many it folded")
  void repeatedSkipsAreLoggedOncePerInterval() {
    AlertSink sink = AlertSinks.logging(Duration.ofSeconds(5), nanos::get);
    for (int i = 0; i < 1000; i++) {
      sink.alert(skips("t" + i));
    }
    assertEquals(1, lines.list.size(), "the first alert of the interval is logged, the other 999 are folded: " + messages());
    assertTrue(messages().get(0).contains("task 't0'"), messages().get(0));
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    sink.alert(skips("t1000"));
    assertEquals(1, lines.list.size(), "still within 5 s of the last line");
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    sink.alert(skips("t1001"));
    assertEquals(2, lines.list.size());
    assertTrue(messages().get(1).contains("task 't1001'") && messages().get(1).contains("and 1000 more REPEATED_SKIPS alerts"),
        messages().get(1));
  }

  @Test
  @DisplayName("R32: final failures and stalls are never folded; a zero interval logs every alert")
  void otherAlertsAreNeverFolded() {
    AlertSink sink = AlertSinks.logging(Duration.ofSeconds(5), nanos::get);
    for (int i = 0; i < 10; i++) {
      sink.alert(new Alert(Alert.Kind.FINAL_FAILED, "t" + i, "w", "failed for good", Instant.EPOCH));
    }
    assertEquals(10, lines.list.size());
    AlertSink each = AlertSinks.logging(Duration.ZERO, nanos::get);
    for (int i = 0; i < 10; i++) {
      each.alert(skips("u" + i));
    }
    assertEquals(20, lines.list.size(), messages().toString());
  }
}

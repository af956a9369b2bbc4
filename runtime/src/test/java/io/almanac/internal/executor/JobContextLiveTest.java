package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.WindowView;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import io.almanac.journal.LogLine;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A job's context: {@code progress} refuses a fraction outside 0..1 naming it; live reports reach the
 * task at most once per live-interval (the first at once, later ones in one trailing send carrying
 * the latest), and none after the attempt ended; the attempt's log is what {@code end} returns.
 */
class JobContextLiveTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  /** Records what the context sends; a trailing send is run when the test says. */
  private static final class RecordingPort extends QuietJobPort {
    final List<WindowView.Progress> sent = new ArrayList<>();
    final List<Runnable> later = new ArrayList<>();
    final List<Duration> delays = new ArrayList<>();

    @Override
    public void live(AttemptItem item, int attempt, WindowView.Progress progress) {
      sent.add(progress);
    }

    @Override
    public void later(Duration delay, Runnable task) {
      delays.add(delay);
      later.add(task);
    }
  }

  private final SettableClock clock = new SettableClock(T0);
  private final RecordingPort port = new RecordingPort();
  private final JobContextImpl ctx = new JobContextImpl(port,
      new RunningAttempt(new AttemptItem("t", "w", "j", RunKind.FIRST, "UTC"), 1, T0, T0.plusSeconds(60)),
      new TaskProtocol.AttemptGrant("t", "w", 1, RunKind.FIRST, T0.plusSeconds(60), T0, T0, T0, Map.of(), List.of(), "e"),
      "UTC", clock, JobLogSettings.DEFAULT);

  @Test
  @DisplayName("progress refuses a fraction below 0, above 1 or NaN, naming the field and the value")
  void fractionIsValidated() {
    for (double bad : new double[] {-0.1, 1.01, Double.NaN}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ctx.progress(bad, "x"));
      assertTrue(e.getMessage().startsWith("fraction '" + bad + "' is invalid: must be a number from 0 to 1"),
          e.getMessage());
    }
    ctx.progress(0, null);
    ctx.progress(1, "done");
  }

  @Test
  @DisplayName("the first report goes at once; changes within the interval go in one trailing send with the latest; "
      + "nothing after the end")
  void liveReportsAreThrottled() {
    ctx.progress(0.1, "gathering");
    assertEquals(1, port.sent.size());
    assertEquals(0.1, port.sent.get(0).fraction());
    ctx.log().info("gathered {}", 3);
    ctx.progress(0.5, "drafting");
    ctx.progress(0.6, "drafting more");
    assertEquals(1, port.sent.size(), "held within the interval");
    assertEquals(List.of(Duration.ofSeconds(1)), port.delays, "one trailing send");
    clock.set(T0.plusSeconds(1));
    port.later.get(0).run();
    assertEquals(2, port.sent.size());
    WindowView.Progress p = port.sent.get(1);
    assertEquals(0.6, p.fraction());
    assertEquals("drafting more", p.text());
    assertEquals(List.of("gathered 3"), p.latest().stream().map(LogLine::text).toList());

    AttemptLog log = ctx.end(new IllegalStateException("boom"));
    assertEquals(List.of("gathered 3"), log.lines().stream().map(LogLine::text).toList());
    assertTrue(log.stackTrace().startsWith("java.lang.IllegalStateException: boom"), log.stackTrace());
    clock.set(T0.plusSeconds(5));
    ctx.progress(0.9, "after the end");
    assertEquals(2, port.sent.size(), "nothing is sent once the attempt ended");
    assertNull(ctx.end(null).stackTrace());
  }

  @Test
  @DisplayName("each line is also logged to SLF4J (logger io.almanac.job) with the task, window and attempt in the MDC; "
      + "the caller's MDC is kept")
  void linesGoToSlf4jWithTheAttemptsMdc() {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(io.almanac.JobLog.LOGGER);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
        new ch.qos.logback.core.read.ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    org.slf4j.MDC.put("request", "r-1");
    try {
      ctx.log().warn("model answered {}", 429);
      ch.qos.logback.classic.spi.ILoggingEvent e = appender.list.get(0);
      assertEquals("model answered 429", e.getFormattedMessage());
      assertEquals(ch.qos.logback.classic.Level.WARN, e.getLevel());
      assertEquals("t", e.getMDCPropertyMap().get("almanac.task"));
      assertEquals("w", e.getMDCPropertyMap().get("almanac.window"));
      assertEquals("1", e.getMDCPropertyMap().get("almanac.attempt"));
      assertEquals("r-1", org.slf4j.MDC.get("request"), "the caller's MDC is kept");
      assertNull(org.slf4j.MDC.get("almanac.task"), "and not added to");
    } finally {
      org.slf4j.MDC.clear();
      logger.detachAppender(appender);
    }
  }
}

package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.JobLog;
import io.almanac.journal.AttemptLog;
import io.almanac.journal.LogLine;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The bounds of what an attempt leaves: lines, bytes, line length, stack trace; the live tail. */
class JobLogBufferTest {

  private static final Instant T = Instant.parse("2026-11-29T00:00:00Z");

  private static JobLogSettings bounds(int lines, int bytes, int lineLength, int stack) {
    return new JobLogSettings(lines, bytes, lineLength, stack, Duration.ofSeconds(1), 2);
  }

  private static List<String> texts(AttemptLog log) {
    return log.lines().stream().map(LogLine::text).toList();
  }

  @Test
  @DisplayName("Past max-lines the lines are counted, not kept: the kept ones are the first, and one count says how many went")
  void keepsTheFirstLinesAndCountsTheRest() {
    JobLogBuffer b = new JobLogBuffer(bounds(2, 10_000, 100, 100));
    for (int i = 1; i <= 5; i++) {
      b.add(T, JobLog.Level.INFO, "line " + i);
    }
    AttemptLog log = b.snapshot(null);
    assertEquals(List.of("line 1", "line 2"), texts(log));
    assertEquals(3, log.droppedLines());
    assertEquals("3 lines dropped (past almanac.executor.job-log.max-lines or max-bytes)", AttemptLog.droppedMarker(3));
  }

  @Test
  @DisplayName("Past max-bytes (UTF-8) the lines are dropped too, and once one is dropped every later one is")
  void boundsTheBytes() {
    JobLogBuffer b = new JobLogBuffer(bounds(100, 10, 100, 100));
    b.add(T, JobLog.Level.INFO, "ééé"); // 6 bytes
    b.add(T, JobLog.Level.INFO, "abcde"); // 11 > 10: dropped
    b.add(T, JobLog.Level.INFO, "a"); // would fit, but the kept lines stay a prefix
    AttemptLog log = b.snapshot(null);
    assertEquals(List.of("ééé"), texts(log));
    assertEquals(2, log.droppedLines());
  }

  @Test
  @DisplayName("A line longer than max-line-length is cut, saying from how long")
  void cutsLongLines() {
    JobLogBuffer b = new JobLogBuffer(bounds(10, 10_000, 40, 100));
    b.add(T, JobLog.Level.ERROR, "x".repeat(100));
    String kept = b.snapshot(null).lines().get(0).text();
    assertEquals(40, kept.length());
    assertTrue(kept.endsWith("...[cut from 100 characters]"), kept);
  }

  @Test
  @DisplayName("A stack trace keeps the exception's class, message, frames and causes, cut to max-stack-trace; none for no error or a bound of 0")
  void boundsTheStackTrace() {
    Exception e = new IllegalStateException("tool failed", new java.io.IOException("connection reset"));
    String full = JobLogBuffer.stackTrace(e, 100_000);
    assertTrue(full.startsWith("java.lang.IllegalStateException: tool failed\n\tat "), full);
    assertTrue(full.contains("Caused by: java.io.IOException: connection reset"), full);
    String cut = JobLogBuffer.stackTrace(e, 200);
    assertEquals(200, cut.length());
    assertEquals("java.lang.IllegalStateException: tool failed", AttemptLog.firstLine(cut));
    assertNull(JobLogBuffer.stackTrace(null, 100));
    assertNull(JobLogBuffer.stackTrace(e, 0));
  }

  @Test
  @DisplayName("The live tail holds the latest live-lines lines, kept or dropped")
  void liveTailIsTheLatestLines() {
    JobLogBuffer b = new JobLogBuffer(bounds(1, 10_000, 100, 100));
    for (int i = 1; i <= 4; i++) {
      b.add(T, JobLog.Level.INFO, "line " + i);
    }
    assertEquals(List.of("line 3", "line 4"), b.latest().stream().map(LogLine::text).toList());
  }

  @Test
  @DisplayName("An attempt that logged nothing and did not throw leaves an empty log (nothing is written)")
  void nothingLoggedIsEmpty() {
    assertTrue(new JobLogBuffer(JobLogSettings.DEFAULT).snapshot(null).isEmpty());
  }

  @Test
  @DisplayName("Each bound is refused below its minimum, naming the key and the value")
  void boundsAreValidated() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> bounds(-1, 1, 100, 1));
    assertTrue(e.getMessage().contains("almanac.executor.job-log.max-lines"), e.getMessage());
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    e = assertThrows(InvalidSpecException.class, () -> new JobLogSettings(1, 1, 100, 1, Duration.ZERO, 1));
    assertTrue(e.getMessage().contains("almanac.executor.job-log.live-interval"), e.getMessage());
    assertEquals(JobLogSettings.DEFAULT, JobLogSettings.from(ConfigFactory.load()), "reference.conf's are the defaults");
  }
}

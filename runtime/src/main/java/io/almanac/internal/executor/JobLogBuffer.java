package io.almanac.internal.executor;

import io.almanac.JobLog;
import io.almanac.journal.AttemptLog;
import io.almanac.journal.LogLine;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One attempt's own log lines, bounded ({@link JobLogSettings}): the first lines are kept until
 * {@code maxLines} lines or {@code maxBytes} bytes of text; every line past that is counted, not
 * kept, and shown as one "N lines dropped" marker. A line longer than {@code maxLineLength} is cut,
 * visibly. Thread-safe (a job may log from any thread). INTERNAL API.
 */
final class JobLogBuffer {

  private final JobLogSettings bounds;
  private final List<LogLine> lines = new ArrayList<>();
  private long bytes;
  private int dropped;
  /** The latest lines logged, kept or not, at most {@code liveLines}: what a running attempt shows. */
  private final java.util.ArrayDeque<LogLine> recent = new java.util.ArrayDeque<>();

  JobLogBuffer(JobLogSettings bounds) {
    this.bounds = bounds;
  }

  /**
   * Keeps a line, or counts it dropped when the bound is reached.
   *
   * @return the line as kept (cut if it was too long)
   */
  synchronized LogLine add(Instant at, JobLog.Level level, String text) {
    LogLine line = new LogLine(at, level, cut(text == null ? "null" : text, bounds.maxLineLength()));
    if (bounds.liveLines() > 0) {
      if (recent.size() >= bounds.liveLines()) {
        recent.removeFirst();
      }
      recent.addLast(line);
    }
    long size = line.text().getBytes(StandardCharsets.UTF_8).length;
    if (dropped > 0 || lines.size() >= bounds.maxLines() || bytes + size > bounds.maxBytes()) {
      dropped++; // once one line is dropped, later ones are too: the kept lines stay a prefix of what was logged
      return line;
    }
    lines.add(line);
    bytes += size;
    return line;
  }

  /** @return the latest lines logged (kept or not, at most {@code liveLines}), oldest first */
  synchronized List<LogLine> latest() {
    return List.copyOf(recent);
  }

  /**
   * @param stackTrace the failure's stack trace (already bounded), or null
   * @return what the attempt leaves: the kept lines, the dropped count and the stack trace
   */
  synchronized AttemptLog snapshot(String stackTrace) {
    return new AttemptLog(lines, dropped, stackTrace);
  }

  /**
   * @param error what the job threw, or null
   * @param maxChars the most characters kept
   * @return its stack trace (with causes), cut to {@code maxChars}, or null without an error or with a bound of 0
   */
  static String stackTrace(Throwable error, int maxChars) {
    if (error == null || maxChars <= 0) {
      return null;
    }
    StringWriter out = new StringWriter();
    error.printStackTrace(new PrintWriter(out));
    return cut(out.toString().stripTrailing(), maxChars);
  }

  /** The text cut to {@code max} characters, saying it was. */
  static String cut(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    String marker = " ...[cut from " + text.length() + " characters]";
    return text.substring(0, Math.max(0, max - marker.length())) + marker;
  }
}

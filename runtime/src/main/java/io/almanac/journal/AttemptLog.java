package io.almanac.journal;

import java.util.List;

/**
 * What one attempt left to be read later: its own log lines (bounded), how many lines past the bound
 * were dropped, and the stack trace of the exception its job threw or its stage failed with (bounded),
 * or null. Carried from the executor with the attempt's result and written, when not {@link
 * #isEmpty() empty}, as {@link TaskJournal.AttemptLogged} in the same write as the attempt's end.
 *
 * @param lines the kept lines, in order
 * @param droppedLines how many lines were logged past the bound and not kept
 * @param stackTrace the failure's stack trace, or null
 */
public record AttemptLog(List<LogLine> lines, int droppedLines, String stackTrace) {

  /** An attempt that logged nothing and did not throw. */
  public static final AttemptLog EMPTY = new AttemptLog(List.of(), 0, null);

  /** Keeps a copy of the lines; null lines read as none. */
  public AttemptLog {
    lines = lines == null ? List.of() : List.copyOf(lines);
    droppedLines = Math.max(0, droppedLines);
  }

  /** @return whether there is nothing to keep (no line, none dropped, no stack trace) */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isEmpty() {
    return lines.isEmpty() && droppedLines == 0 && stackTrace == null;
  }

  /** @return the first line of the stack trace (the exception's class and message), or null */
  public String firstStackLine() {
    return firstLine(stackTrace);
  }

  /**
   * @param stackTrace a stack trace, or null
   * @return its first line, or null
   */
  public static String firstLine(String stackTrace) {
    if (stackTrace == null) {
      return null;
    }
    int nl = stackTrace.indexOf('\n');
    return (nl < 0 ? stackTrace : stackTrace.substring(0, nl)).strip();
  }

  /**
   * @param dropped how many lines were dropped
   * @return the marker shown in place of the dropped lines
   */
  public static String droppedMarker(int dropped) {
    return dropped + (dropped == 1 ? " line" : " lines") + " dropped (past almanac.executor.job-log.max-lines or max-bytes)";
  }
}

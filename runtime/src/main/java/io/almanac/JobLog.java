package io.almanac;

/**
 * The log of one running attempt ({@link JobContext#log()}): what the job says it did, kept with the
 * attempt in the window's history and shown by the dashboard's window page, {@code almanac logs} and
 * {@code GET /api/tasks/{task}/windows/{window}/logs}. Each line is also logged through SLF4J (logger
 * {@value #LOGGER}) with the task, window and attempt in the MDC ({@code almanac.task}, {@code
 * almanac.window}, {@code almanac.attempt}).
 *
 * <p>Bounded per attempt: at most {@code almanac.executor.job-log.max-lines} lines and {@code
 * max-bytes} bytes of text are kept (each line cut to {@code max-line-length} characters); the lines
 * past the bound are counted, and shown as one "N lines dropped" marker. Thread-safe: a job may log
 * from any thread. Formatting follows SLF4J: each {@code {}} in the format takes the next argument.
 *
 * <pre>{@code
 * ctx.log().info("fetched {} articles from {}", articles.size(), source);
 * }</pre>
 */
public interface JobLog {

  /** The SLF4J logger every line is also logged to. */
  String LOGGER = "io.almanac.job";

  /** A line's level. Persisted by name: never renamed. */
  enum Level {
    /** What the job did. */
    INFO,
    /** Something the job worked around. */
    WARN,
    /** Something that failed. */
    ERROR
  }

  /**
   * Logs a line at {@link Level#INFO}.
   *
   * @param format the text, with a {@code {}} for each argument
   * @param args the arguments; a last {@link Throwable} without its {@code {}} is logged with its stack to
   *     SLF4J, and its class and message kept in the attempt's log
   */
  void info(String format, Object... args);

  /**
   * Logs a line at {@link Level#WARN}.
   *
   * @param format the text, with a {@code {}} for each argument
   * @param args the arguments (as {@link #info})
   */
  void warn(String format, Object... args);

  /**
   * Logs a line at {@link Level#ERROR}.
   *
   * @param format the text, with a {@code {}} for each argument
   * @param args the arguments (as {@link #info})
   */
  void error(String format, Object... args);
}

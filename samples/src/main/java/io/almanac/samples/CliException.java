package io.almanac.samples;

/**
 * Ends an {@code almanac} command with an exit code and a message for stderr (see {@link AlmanacCli}
 * for the codes).
 */
final class CliException extends RuntimeException {
  private final int exitCode;

  /**
   * @param exitCode the process's exit code
   * @param message what to print on stderr, one or a few lines
   */
  CliException(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  /** @return the exit code */
  int exitCode() {
    return exitCode;
  }
}

package io.almanac;

/**
 * A durable step's recorded result cannot be read as the type the job now asks for: the step's
 * result type changed between the attempt that recorded it and this one (a deploy between a failure
 * and its retry). The step is not run again; the attempt fails with this exception unless the job
 * handles it (e.g. by a step of a new name, which runs).
 */
public class StepTypeMismatchException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String step;
  private final String recordedType;
  private final String askedType;

  /**
   * @param taskId the task
   * @param window the window
   * @param step the step's name
   * @param recordedAttempt the attempt that recorded the result
   * @param recordedType the type the result was recorded as (its Java type's name then), or null when unknown
   * @param askedType the type asked for now
   * @param cause why the recorded JSON does not read as the asked type
   */
  public StepTypeMismatchException(String taskId, String window, String step, int recordedAttempt, String recordedType,
      String askedType, Throwable cause) {
    super("task '" + taskId + "' window '" + window + "': step '" + step + "' was recorded by attempt " + recordedAttempt
        + " as " + (recordedType == null ? "a result of unknown type" : recordedType) + " and cannot be read as "
        + askedType + " (" + firstLine(cause) + "); the step is not run again: give a step whose result type "
        + "changed a new name", cause);
    this.step = step;
    this.recordedType = recordedType;
    this.askedType = askedType;
  }

  private static String firstLine(Throwable cause) {
    String m = cause == null || cause.getMessage() == null ? "unreadable" : cause.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** @return the step's name */
  public String step() {
    return step;
  }

  /** @return the type the result was recorded as, or null when unknown */
  public String recordedType() {
    return recordedType;
  }

  /** @return the type the job asked for */
  public String askedType() {
    return askedType;
  }
}

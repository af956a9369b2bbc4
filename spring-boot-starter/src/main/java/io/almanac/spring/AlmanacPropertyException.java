package io.almanac.spring;

/**
 * A property of the node's configuration that the node refused at start, with where it was set: the
 * message names the Spring property (or the Typesafe key, when it was not set in Spring), the value
 * and why, e.g. {@code Spring property 'almanac.executor.max-concurrent' (class path resource
 * [application.yml] - 4:21): almanac.executor.max-concurrent 'lots' is invalid: must be an integer}.
 */
public class AlmanacPropertyException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  /** The Typesafe key, or null when the error names none. */
  private final String key;

  /** Where the property was set, or null when it was not set in Spring. */
  private final String origin;

  /**
   * @param key the Typesafe key refused, or null
   * @param origin the Spring property and where it was set, or null
   * @param message why, naming the key and the value
   * @param cause the node's refusal
   */
  public AlmanacPropertyException(String key, String origin, String message, Throwable cause) {
    super(origin == null ? message : origin + ": " + message, cause);
    this.key = key;
    this.origin = origin;
  }

  /** @return the Typesafe key refused ({@code almanac.executor.max-concurrent}), or null */
  public String key() {
    return key;
  }

  /** @return the Spring property it came from and where that was set, or null */
  public String origin() {
    return origin;
  }
}

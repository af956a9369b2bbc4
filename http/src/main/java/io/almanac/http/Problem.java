package io.almanac.http;

/**
 * One error answer of the HTTP API, as {@code application/problem+json} (RFC 9457): see
 * docs/http-api.md. Thrown as {@link Problem.Raised} by the parsing code; answered by {@link Problems}.
 *
 * @param status the HTTP status
 * @param kind the type's suffix: {@code invalid-input}, {@code unauthorized}, {@code not-found},
 *     {@code refused}, {@code overloaded}, {@code outcome-unknown}, {@code unavailable} (or {@code internal-error})
 * @param title the type's title
 * @param detail what happened, in words
 * @param field the field (parameter, body field, path part) that was refused, or null
 * @param value the value refused, as text (bounded, see {@link io.almanac.InvalidSpecException#echo}), or null
 * @param retryAfter when the same call may be made again (answered as the {@code Retry-After} header, in
 *     whole seconds rounded up), or null
 */
public record Problem(int status, String kind, String title, String detail, String field, String value,
    java.time.Duration retryAfter) {

  /**
   * A problem without {@code Retry-After}.
   *
   * @param status the HTTP status
   * @param kind the type's suffix
   * @param title the type's title
   * @param detail what happened, in words
   * @param field the field refused, or null
   * @param value the value refused, or null
   */
  public Problem(int status, String kind, String title, String detail, String field, String value) {
    this(status, kind, title, detail, field, value, null);
  }

  /** The type URIs' common prefix. */
  public static final String TYPE_PREFIX = "https://almanac.io/problems/";

  /** @return the problem's type URI */
  public String type() {
    return TYPE_PREFIX + kind;
  }

  /**
   * A bad parameter or body field (400); the detail reads {@code field: value reason}, as in the contract.
   *
   * @param field the field
   * @param value the value given (may be null)
   * @param reason why it is refused
   * @return the problem
   */
  public static Problem invalid(String field, Object value, String reason) {
    String text = value == null ? null : io.almanac.InvalidSpecException.echo(value);
    return new Problem(400, "invalid-input", "Invalid input", field + ": " + text + " " + reason, field, text);
  }

  /**
   * A query parameter the endpoint does not take (400), named but its value never shown: what a
   * client puts where the API takes nothing may be a credential ({@code ?token=...}), and nothing a
   * client sends as a credential is echoed or logged.
   *
   * @param name the parameter
   * @param reason why it is refused, e.g. {@code "is not a parameter of /api/queue: it takes none"}
   * @return the problem, naming {@code name} as its field, without a value
   */
  public static Problem unknownParameter(String name, String reason) {
    String hint = name.toLowerCase(java.util.Locale.ROOT).contains("token")
        ? " (a token goes in the header Authorization: Bearer <token>, never in the URL)" : "";
    return new Problem(400, "invalid-input", "Invalid input", io.almanac.InvalidSpecException.echo(name) + " " + reason
        + hint + "; its value is not shown", name, null);
  }

  /**
   * @param detail what is not there
   * @param field the field naming it
   * @param value its value
   * @return a 404 problem
   */
  public static Problem notFound(String detail, String field, Object value) {
    return new Problem(404, "not-found", "Not found", detail, field,
        value == null ? null : io.almanac.InvalidSpecException.echo(value));
  }

  /**
   * @param detail the node's refusal in words (the Java API's message)
   * @param field the field naming what was refused
   * @param value its value
   * @return a 409 problem
   */
  public static Problem refused(String detail, String field, Object value) {
    return new Problem(409, "refused", "Refused", detail, field,
        value == null ? null : io.almanac.InvalidSpecException.echo(value));
  }

  /**
   * @param detail why
   * @return a 401 problem
   */
  public static Problem unauthorized(String detail) {
    return new Problem(401, "unauthorized", "Unauthorized", detail, "Authorization", null);
  }

  /**
   * @param detail what did not answer
   * @return a 503 problem
   */
  public static Problem unavailable(String detail) {
    return new Problem(503, "unavailable", "Unavailable", detail, null, null);
  }

  /**
   * A call refused because the node's queue for it is full (429): nothing was stored; the same call
   * may be made again after {@code retryAfter}.
   *
   * @param detail the Java API's message
   * @param field the field naming what is overloaded (e.g. {@code task})
   * @param value its value
   * @param retryAfter when to try again
   * @return a 429 problem with {@code Retry-After}
   */
  public static Problem overloaded(String detail, String field, Object value, java.time.Duration retryAfter) {
    return new Problem(429, "overloaded", "Overloaded", detail, field,
        value == null ? null : io.almanac.InvalidSpecException.echo(value), retryAfter);
  }

  /**
   * A call whose effect is not known (503): it reached the node's tasks, but not every answer came;
   * the detail says whether repeating it is safe.
   *
   * @param detail the Java API's message
   * @return a 503 problem
   */
  public static Problem outcomeUnknown(String detail) {
    return new Problem(503, "outcome-unknown", "Outcome unknown", detail, null, null);
  }

  /** A problem thrown by pure parsing code, answered as it is. */
  public static final class Raised extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Problem problem;

    /** @param problem the problem to answer */
    public Raised(Problem problem) {
      super(problem.detail(), null, false, false);
      this.problem = problem;
    }

    /** @return the problem */
    public Problem problem() {
      return problem;
    }
  }
}

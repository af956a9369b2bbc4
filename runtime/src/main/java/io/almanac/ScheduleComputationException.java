package io.almanac;

import java.time.Instant;
import java.time.ZoneId;

/**
 * A schedule's firings could not be computed at run time: the cron library failed on an
 * expression it had parsed (R2, R3). {@link CronSchedule#parse} refuses every cron whose firings
 * fail over a horizon of several years, so this is thrown only for a cron the horizon did not catch
 * or one stored before that check existed. It concerns one task alone: whoever computes firings for
 * many tasks catches it, sets that task aside (records why, raises an alert) and goes on with the
 * others. The message names the cron, its zone and the instant searched from; it is bounded like an
 * {@link InvalidSpecException}'s.
 */
public class ScheduleComputationException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String expression;
  private final String zone;
  private final Instant after;

  /**
   * @param expression the cron expression, without the zone
   * @param zone the cron's zone
   * @param after the instant the failed search started from
   * @param cause what the cron library threw
   */
  public ScheduleComputationException(String expression, ZoneId zone, Instant after, Throwable cause) {
    super("cron '" + InvalidSpecException.echo(expression) + "' in zone " + zone.getId()
        + ": the next firing after " + after + " cannot be computed: "
        + InvalidSpecException.echo(cause.getClass().getSimpleName() + ": " + cause.getMessage())
        + "; set this task aside and correct its cron", cause);
    this.expression = expression;
    this.zone = zone.getId();
    this.after = after;
  }

  /**
   * A window spec (a user's {@link WindowSpec}) failed on a firing.
   *
   * @param windowSpec the window spec's name
   * @param firedAt the firing whose window could not be computed
   * @param cause what the window spec threw
   */
  public ScheduleComputationException(String windowSpec, Instant firedAt, Throwable cause) {
    super("window spec '" + InvalidSpecException.echo(windowSpec) + "': the window of the firing at " + firedAt
        + " cannot be computed: " + InvalidSpecException.echo(cause.getClass().getSimpleName() + ": " + cause.getMessage())
        + "; set this task aside and correct its window spec", cause);
    this.expression = null;
    this.zone = null;
    this.after = firedAt;
  }

  /** @return the cron expression, without the zone */
  public String expression() {
    return expression;
  }

  /** @return the cron's zone id */
  public String zone() {
    return zone;
  }

  /** @return the instant the failed search started from */
  public Instant after() {
    return after;
  }
}

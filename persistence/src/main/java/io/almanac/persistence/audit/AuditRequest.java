package io.almanac.persistence.audit;

import java.time.Duration;

/**
 * What the audit command is asked to do, as the user typed it: {@link Audit#run} validates it and
 * answers bad input with exit code 2 (usage or configuration error) and a message naming the field
 * and the value; see {@link Audit} for every exit code. Build it with
 * {@link #builder()}; every field is optional.
 *
 * <pre>{@code
 * AuditRequest.builder().task("daily-digest").from("2026-11-01").to("2026-11-29").verify(true).format("table").build()
 * }</pre>
 *
 * @param task the task id, or null for every task in the journal
 * @param window a window key, e.g. {@code 2026-11-29}: only that window's events and checks; null
 *     for every window
 * @param from the start of the range, inclusive: a date ({@code 2026-11-01}, the start of that day
 *     in UTC) or an ISO-8601 instant ({@code 2026-11-01T08:00:00Z}, an offset such as
 *     {@code +08:00} is accepted too); null for the beginning of the journal
 * @param to the end of the range, inclusive, in the same forms; null for the end of the journal
 * @param verify whether to check the invariants I1-I8 (exit code 1 on a violation, 4 when no due
 *     window was judged)
 * @param format {@code table} (default), {@code json} or {@code csv}, see {@link Timeline}
 * @param timeline whether to print the timeline (default true; false prints only the report)
 * @param grace see {@link Verifier}: windows due (and leases ending) this close to the journal's end
 *     are not judged; default 2 minutes ({@link Verifier#DEFAULT_GRACE}); a journal shorter than
 *     the grace has no window to judge (exit code 4)
 * @param progressEvery a progress line on the error stream every this many events; default 50,000
 */
public record AuditRequest(
    String task, String window, String from, String to, boolean verify, String format, boolean timeline,
    Duration grace, long progressEvery) {

  /** The default format. */
  public static final String DEFAULT_FORMAT = "table";

  /**
   * A builder with every default: all tasks, all windows, the whole journal, no verification,
   * table format, timeline on, grace 2 minutes, progress every 50,000 events.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds an {@link AuditRequest}; it does not validate (the audit does, with exit code 2). */
  public static final class Builder {
    private String task;
    private String window;
    private String from;
    private String to;
    private boolean verify;
    private String format = DEFAULT_FORMAT;
    private boolean timeline = true;
    private Duration grace = Verifier.DEFAULT_GRACE;
    private long progressEvery = AuditReader.DEFAULT_PROGRESS_EVERY;

    private Builder() {}

    /**
     * @param taskId the task id, or null for every task
     * @return this builder
     */
    public Builder task(String taskId) {
      this.task = taskId;
      return this;
    }

    /**
     * @param key a window key, or null for every window
     * @return this builder
     */
    public Builder window(String key) {
      this.window = key;
      return this;
    }

    /**
     * @param from a date ({@code 2026-11-01}) or an instant, inclusive; or null
     * @return this builder
     */
    public Builder from(String from) {
      this.from = from;
      return this;
    }

    /**
     * @param to a date ({@code 2026-11-29}, its start in UTC) or an instant, inclusive; or null
     * @return this builder
     */
    public Builder to(String to) {
      this.to = to;
      return this;
    }

    /**
     * @param verify whether to check the invariants
     * @return this builder
     */
    public Builder verify(boolean verify) {
      this.verify = verify;
      return this;
    }

    /**
     * @param format {@code table}, {@code json} or {@code csv}
     * @return this builder
     */
    public Builder format(String format) {
      this.format = format;
      return this;
    }

    /**
     * @param timeline whether to print the timeline
     * @return this builder
     */
    public Builder timeline(boolean timeline) {
      this.timeline = timeline;
      return this;
    }

    /**
     * @param grace how close to the journal's end due windows and leases are not judged
     * @return this builder
     */
    public Builder grace(Duration grace) {
      this.grace = grace;
      return this;
    }

    /**
     * @param events a progress line every this many events
     * @return this builder
     */
    public Builder progressEvery(long events) {
      this.progressEvery = events;
      return this;
    }

    /**
     * @return the request
     */
    public AuditRequest build() {
      return new AuditRequest(task, window, from, to, verify, format, timeline, grace, progressEvery);
    }
  }
}

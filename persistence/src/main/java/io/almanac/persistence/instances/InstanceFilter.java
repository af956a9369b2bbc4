package io.almanac.persistence.instances;

import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What {@link InstanceQueries#find(InstanceFilter)} selects: rows of one task or all, with one of
 * some statuses or any, whose window starts in {@code [from, to)}, at most {@code limit}, after a
 * cursor. Rows come in the order (window start, task id, window key), ascending, or descending with
 * {@code descending} (the newest first; the cursor then pages backwards). Built with {@link #builder()}
 * or from HTTP query parameters with {@link #fromParams(Map)}; bad input is refused with an {@link
 * InvalidSpecException} naming the field and value.
 *
 * @param taskId the task, or null for every task
 * @param statuses the statuses wanted; empty for any
 * @param from the earliest window start, inclusive, or null
 * @param to the window start bound, exclusive, or null
 * @param limit rows per page, 1..{@value #MAX_LIMIT}
 * @param after the previous page's {@link InstancePage#next()}, or null for the first page
 * @param history whether to read the history table (rows moved by retention) instead of the live one
 * @param descending whether rows come newest first (the order reversed)
 * @param byUpdated whether {@code from} and {@code to} bound the row's last change ({@code updated_at})
 *     and rows come in the order (last change, task id, window key), rather than by window start; such
 *     a filter needs both bounds, at most {@link #MAX_UPDATED_RANGE} apart (the rows changed in the
 *     range are what it reads), and reads the live table only
 */
public record InstanceFilter(
    String taskId,
    Set<InstanceStatus> statuses,
    Instant from,
    Instant to,
    int limit,
    String after,
    boolean history,
    boolean descending,
    boolean byUpdated) {

  /** The longest range (to - from) a filter by last change may span. */
  public static final java.time.Duration MAX_UPDATED_RANGE = java.time.Duration.ofDays(31);

  /**
   * A filter by window start ({@code byUpdated} false), as before filters by last change were.
   *
   * @param taskId the task, or null
   * @param statuses the statuses wanted
   * @param from the earliest window start, or null
   * @param to the window start bound, or null
   * @param limit rows per page
   * @param after the previous page's next, or null
   * @param history whether to read the history table
   * @param descending whether rows come newest first
   */
  public InstanceFilter(String taskId, Set<InstanceStatus> statuses, Instant from, Instant to, int limit, String after,
      boolean history, boolean descending) {
    this(taskId, statuses, from, to, limit, after, history, descending, false);
  }

  /** The earliest instant a filter or a cursor may name: 0001-01-01T00:00:00Z. */
  public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");

  /** The instant after the latest a filter or a cursor may name: 10000-01-01T00:00:00Z (exclusive). */
  public static final Instant MAX_INSTANT = Instant.parse("+10000-01-01T00:00:00Z");

  /** The default page size. */
  public static final int DEFAULT_LIMIT = 100;

  /** The largest page size. */
  public static final int MAX_LIMIT = 500;

  /** Canonical constructor: validates. */
  public InstanceFilter {
    statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
    if (taskId != null && taskId.isEmpty()) {
      throw new InvalidSpecException("task", taskId, "must not be empty (leave it out for every task)");
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidSpecException("limit", limit, "must be between 1 and " + MAX_LIMIT);
    }
    inRange("from", from);
    inRange("to", to);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new InvalidSpecException("from", from, "must be before to (" + to + ")");
    }
    if (byUpdated) {
      if (history) {
        throw new InvalidSpecException("by", "updated", "is not available on the history table");
      }
      if (from == null) {
        throw new InvalidSpecException("from", null, "is required by last change (by=updated)");
      }
      if (to == null) {
        throw new InvalidSpecException("to", null, "is required by last change (by=updated)");
      }
      if (java.time.Duration.between(from, to).compareTo(MAX_UPDATED_RANGE) > 0) {
        throw new InvalidSpecException("to", to, "is more than " + MAX_UPDATED_RANGE.toDays() + " days after from ("
            + from + "): a search by last change spans at most " + MAX_UPDATED_RANGE.toDays() + " days");
      }
    }
    if (after != null && Cursor.decode(after).byUpdated() != byUpdated) { // refuses a malformed cursor too
      throw new InvalidSpecException("after", after, "is a cursor of pages by " + (byUpdated ? "window start" : "last change")
          + ": pass the 'next' of a previous page of this same query");
    }
  }

  /**
   * Refuses an instant outside the years 0001..9999, which the databases' timestamps cannot hold.
   *
   * @param field the field naming it
   * @param t the instant, or null
   * @throws InvalidSpecException naming the field and the value
   */
  static void inRange(String field, Instant t) {
    if (t != null && (t.isBefore(MIN_INSTANT) || !t.isBefore(MAX_INSTANT))) {
      throw new InvalidSpecException(field, t, "must be within the years 0001..9999");
    }
  }

  /** @return the cursor, decoded (empty for the first page) */
  Optional<Cursor> cursor() {
    return after == null ? Optional.empty() : Optional.of(Cursor.decode(after));
  }

  /** @return a builder: every task, any status, any time, {@value #DEFAULT_LIMIT} rows, live table */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A filter from HTTP query parameters, as {@code GET /api/windows} takes them: {@code task},
   * {@code status} (repeated or comma-separated, case-insensitive), {@code from} and {@code to}
   * (ISO-8601 instants), {@code limit} (default {@value #DEFAULT_LIMIT}), {@code after} and
   * {@code history} ({@code true} or {@code false}) and {@code order} ({@code asc}, the default, or
   * {@code desc}). A parameter given more than once (but status)
   * takes its first value; an empty value counts as absent.
   *
   * @param params parameter name to its values
   * @return the filter
   * @throws InvalidSpecException naming the parameter and value that is wrong
   */
  public static InstanceFilter fromParams(Map<String, List<String>> params) {
    Objects.requireNonNull(params, "params");
    Builder b = builder();
    first(params, "task").ifPresent(b::task);
    for (String v : params.getOrDefault("status", List.of())) {
      for (String s : v.split(",")) {
        if (!s.isBlank()) {
          b.status(s.strip());
        }
      }
    }
    first(params, "from").ifPresent(v -> b.from(instant("from", v)));
    first(params, "to").ifPresent(v -> b.to(instant("to", v)));
    first(params, "limit").ifPresent(v -> {
      try {
        b.limit(Integer.parseInt(v.strip()));
      } catch (NumberFormatException e) {
        throw new InvalidSpecException("limit", v, "must be a whole number between 1 and " + MAX_LIMIT);
      }
    });
    first(params, "after").ifPresent(b::after);
    first(params, "history").ifPresent(v -> {
      if (!v.equals("true") && !v.equals("false")) {
        throw new InvalidSpecException("history", v, "must be true or false");
      }
      b.history(v.equals("true"));
    });
    first(params, "by").ifPresent(v -> {
      if (!v.equals("start") && !v.equals("updated")) {
        throw new InvalidSpecException("by", v, "must be start (the window's start, the default) or updated (its last change)");
      }
      b.byUpdated(v.equals("updated"));
    });
    first(params, "order").ifPresent(v -> {
      if (!v.equals("asc") && !v.equals("desc")) {
        throw new InvalidSpecException("order", v, "must be asc or desc");
      }
      b.descending(v.equals("desc"));
    });
    return b.build();
  }

  private static Optional<String> first(Map<String, List<String>> params, String name) {
    List<String> v = params.get(name);
    return v == null || v.isEmpty() || v.get(0) == null || v.get(0).isEmpty() ? Optional.empty() : Optional.of(v.get(0));
  }

  private static Instant instant(String field, String v) {
    try {
      return Instant.parse(v.strip());
    } catch (DateTimeParseException e) {
      throw new InvalidSpecException(field, v, "must be an ISO-8601 instant such as 2026-11-30T00:00:00Z");
    }
  }

  /**
   * @param name a status name, case-insensitive
   * @return the status
   * @throws InvalidSpecException naming field {@code status} if there is no such status
   */
  public static InstanceStatus status(String name) {
    if (name == null) {
      throw new InvalidSpecException("status", null, "must not be empty");
    }
    try {
      return InstanceStatus.valueOf(name.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new InvalidSpecException("status", name, "is not a status; one of " + EnumSet.allOf(InstanceStatus.class));
    }
  }

  /** Builds an {@link InstanceFilter}; {@link #build()} validates. */
  public static final class Builder {
    private String taskId;
    private final EnumSet<InstanceStatus> statuses = EnumSet.noneOf(InstanceStatus.class);
    private Instant from;
    private Instant to;
    private int limit = DEFAULT_LIMIT;
    private String after;
    private boolean history;
    private boolean descending;
    private boolean byUpdated;
    private Cursor afterKey;

    private Builder() {}

    /**
     * @param byUpdated whether from and to bound the last change and rows come by last change (see
     *     {@link InstanceFilter#byUpdated()})
     * @return this
     */
    public Builder byUpdated(boolean byUpdated) {
      this.byUpdated = byUpdated;
      return this;
    }

    /** @param taskId one task's rows only (null: every task) @return this */
    public Builder task(String taskId) {
      this.taskId = taskId;
      return this;
    }

    /** @param status a status wanted (adds to the set) @return this */
    public Builder status(InstanceStatus status) {
      statuses.add(Objects.requireNonNull(status, "status"));
      return this;
    }

    /**
     * @param name a status wanted, by name (case-insensitive)
     * @return this
     * @throws InvalidSpecException naming field {@code status} for an unknown status
     */
    public Builder status(String name) {
      statuses.add(InstanceFilter.status(name));
      return this;
    }

    /** @param wanted statuses wanted (adds to the set) @return this */
    public Builder statuses(Collection<InstanceStatus> wanted) {
      statuses.addAll(wanted);
      return this;
    }

    /** @param from the earliest window start, inclusive @return this */
    public Builder from(Instant from) {
      this.from = from;
      return this;
    }

    /** @param to the window start bound, exclusive @return this */
    public Builder to(Instant to) {
      this.to = to;
      return this;
    }

    /** @param limit rows per page, 1..500 @return this */
    public Builder limit(int limit) {
      this.limit = limit;
      return this;
    }

    /** @param cursor the previous page's {@link InstancePage#next()} @return this */
    public Builder after(String cursor) {
      this.after = cursor;
      this.afterKey = null;
      return this;
    }

    /**
     * Starts after a row known by its sort key (what an encoded cursor holds), for a caller with
     * its own cursor format.
     *
     * @param windowStart the last row's window start
     * @param taskId its task
     * @param windowKey its window key
     * @return this
     */
    public Builder after(java.time.Instant windowStart, String taskId, String windowKey) {
      this.afterKey = new Cursor(windowStart, taskId, windowKey);
      this.after = null;
      return this;
    }

    /** @param history whether to read the history table @return this */
    public Builder history(boolean history) {
      this.history = history;
      return this;
    }

    /**
     * @param descending whether rows come newest first (window start, task id, window key, each
     *     descending); a cursor from such a page continues backwards
     * @return this
     */
    public Builder descending(boolean descending) {
      this.descending = descending;
      return this;
    }

    /**
     * @return the filter
     * @throws InvalidSpecException naming the field and value that is wrong
     */
    public InstanceFilter build() {
      // a row's key (windowStart is its last change by last change) takes the kind of the pages built here
      String cursor = afterKey == null ? after
          : new Cursor(afterKey.windowStart(), afterKey.taskId(), afterKey.windowKey(), byUpdated).encode();
      return new InstanceFilter(taskId, statuses, from, to, limit, cursor, history, descending, byUpdated);
    }
  }
}

package io.almanac.http;

import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checked query of {@code GET /api/windows?task=&status=&from=&to=&by=&limit=&after=&order=}: pure, no
 * actors. {@link #parse} refuses a bad parameter with a 400 {@link Problem} naming it and its value.
 *
 * @param task only this task's windows, or null for every task
 * @param statuses only windows in one of these statuses; empty for all
 * @param from only windows starting at or after this instant (inclusive), or null
 * @param to only windows starting before this instant (exclusive), or null
 * @param limit most windows in a page, 1..{@value #MAX_LIMIT}
 * @param after the cursor: only windows after it in the page order ({@link #order()}), or null for the first page
 * @param descending whether pages run newest first ({@code order=desc}): {@link #ORDER} reversed
 * @param byUpdated whether {@code from} and {@code to} bound the window's last change ({@code updatedAt})
 *     and pages run by it ({@link #BY_UPDATED}), {@code by=updated}; such a query needs both bounds, at most
 *     {@link #MAX_UPDATED_RANGE} apart
 */
public record WindowFilter(String task, Set<InstanceStatus> statuses, Instant from, Instant to, int limit, Cursor after,
    boolean descending, boolean byUpdated) {

  /** The order of pages by last change: by last change, then task, then window key. */
  public static final Comparator<WindowView> BY_UPDATED = Comparator.comparing(WindowView::updatedAt)
      .thenComparing(WindowView::taskId).thenComparing(w -> w.window().value());

  /** The longest range (to - from) a query by last change ({@code by=updated}) may span: 31 days. */
  public static final java.time.Duration MAX_UPDATED_RANGE = io.almanac.persistence.instances.InstanceFilter.MAX_UPDATED_RANGE;

  /**
   * A query by window start.
   *
   * @param task the task, or null
   * @param statuses the statuses, empty for all
   * @param from the earliest start, or null
   * @param to the start bound, or null
   * @param limit the page size
   * @param after the cursor, or null
   * @param descending whether newest first
   */
  public WindowFilter(String task, Set<InstanceStatus> statuses, Instant from, Instant to, int limit, Cursor after,
      boolean descending) {
    this(task, statuses, from, to, limit, after, descending, false);
  }

  /** The page size when none is asked for. */
  public static final int DEFAULT_LIMIT = 100;

  /** The largest page. */
  public static final int MAX_LIMIT = 500;

  /** The order of windows in pages: by start, then task, then window key. */
  public static final Comparator<WindowView> ORDER = Comparator.comparing(WindowView::start)
      .thenComparing(WindowView::taskId).thenComparing(w -> w.window().value());

  /** The earliest instant the API takes: 0001-01-01T00:00:00Z. */
  static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");

  /** The first instant the API no longer takes: year 10000. */
  static final Instant MAX_INSTANT = Instant.parse("+10000-01-01T00:00:00Z");

  private static final Set<String> PARAMETERS = Set.of("task", "status", "from", "to", "by", "limit", "after", "order");

  /** @return the order of this filter's pages: {@link #ORDER}, or its reverse when descending */
  public Comparator<WindowView> order() {
    Comparator<WindowView> order = byUpdated ? BY_UPDATED : ORDER;
    return descending ? order.reversed() : order;
  }

  /** Copies the statuses. */
  public WindowFilter {
    statuses = statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
  }

  /**
   * @param w a window
   * @return whether it passes the task, status and start filters (not the cursor)
   */
  public boolean matches(WindowView w) {
    return (task == null || task.equals(w.taskId()))
        && (statuses.isEmpty() || statuses.contains(w.status()))
        && (from == null || !at(w).isBefore(from))
        && (to == null || at(w).isBefore(to));
  }

  /** The instant the range bounds: the window's start, or its last change by {@code by=updated}. */
  private Instant at(WindowView w) {
    return byUpdated ? w.updatedAt() : w.start();
  }

  /**
   * Parses and checks the query.
   *
   * @param params the query's parameters, each with all its values
   * @return the filter
   * @throws Problem.Raised a 400 problem naming the parameter and its value
   */
  public static WindowFilter parse(Map<String, List<String>> params) {
    for (String name : params.keySet()) {
      if (!PARAMETERS.contains(name)) {
        throw new Problem.Raised(Problem.unknownParameter(name,
            "is not a parameter of /api/windows (task, status, from, to, by, limit, after, order)"));
      }
    }
    String task = single(params, "task");
    if (task != null) {
      try {
        TaskSpec.validateId(task);
      } catch (InvalidSpecException e) {
        throw new Problem.Raised(Problem.invalid("task", task, "is not a task id: " + e.reason()));
      }
    }
    Set<InstanceStatus> statuses = EnumSet.noneOf(InstanceStatus.class);
    for (String value : params.getOrDefault("status", List.of())) {
      for (String s : value.split(",", -1)) {
        String name = s.trim();
        try {
          statuses.add(InstanceStatus.valueOf(name.toUpperCase(java.util.Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new Problem.Raised(Problem.invalid("status", name, "is not a status (one of "
              + Arrays.toString(InstanceStatus.values()) + ")"));
        }
      }
    }
    Instant from = instant("from", single(params, "from"));
    Instant to = instant("to", single(params, "to"));
    if (from != null && to != null && !from.isBefore(to)) {
      throw new Problem.Raised(Problem.invalid("from", from, "must be before to (" + to + ")"));
    }
    String by = single(params, "by");
    if (by != null && !by.equals("start") && !by.equals("updated")) {
      throw new Problem.Raised(Problem.invalid("by", by, "must be start (the window's start, the default) or updated "
          + "(its last change)"));
    }
    boolean byUpdated = "updated".equals(by);
    if (byUpdated) {
      if (from == null) {
        throw new Problem.Raised(Problem.invalid("from", null, "is required with by=updated (the range of last changes "
            + "to search, at most " + MAX_UPDATED_RANGE.toDays() + " days)"));
      }
      if (to == null) {
        throw new Problem.Raised(Problem.invalid("to", null, "is required with by=updated (the range of last changes "
            + "to search, at most " + MAX_UPDATED_RANGE.toDays() + " days)"));
      }
      if (java.time.Duration.between(from, to).compareTo(MAX_UPDATED_RANGE) > 0) {
        throw new Problem.Raised(Problem.invalid("to", to, "is more than " + MAX_UPDATED_RANGE.toDays() + " days after "
            + "from (" + from + "): a search by last change spans at most " + MAX_UPDATED_RANGE.toDays() + " days"));
      }
    }
    String limitText = single(params, "limit");
    int limit = DEFAULT_LIMIT;
    if (limitText != null) {
      try {
        limit = Integer.parseInt(limitText.trim());
      } catch (NumberFormatException e) {
        throw new Problem.Raised(Problem.invalid("limit", limitText, "must be an integer between 1 and " + MAX_LIMIT));
      }
      if (limit < 1 || limit > MAX_LIMIT) {
        throw new Problem.Raised(Problem.invalid("limit", limitText, "must be between 1 and " + MAX_LIMIT));
      }
    }
    String afterText = single(params, "after");
    Cursor after = afterText == null ? null : Cursor.decode(afterText);
    if (after != null && after.byUpdated() != byUpdated) {
      throw new Problem.Raised(Problem.invalid("after", afterText, "is a cursor of pages by " + (byUpdated ? "window start"
          : "last change") + ": pass the 'next' of a previous page of this same query"));
    }
    String order = single(params, "order");
    if (order != null && !order.equals("asc") && !order.equals("desc")) {
      throw new Problem.Raised(Problem.invalid("order", order, "must be asc (oldest first, the default) or desc "
          + "(newest first)"));
    }
    return new WindowFilter(task, statuses, from, to, limit, after, "desc".equals(order), byUpdated);
  }

  private static String single(Map<String, List<String>> params, String name) {
    List<String> values = params.get(name);
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw new Problem.Raised(Problem.invalid(name, String.join(",", values), "may be given once"));
    }
    String v = values.get(0);
    if (v.isBlank()) {
      throw new Problem.Raised(Problem.invalid(name, v, "must not be empty"));
    }
    return v;
  }

  /**
   * @param field the field's name
   * @param text an ISO-8601 instant, or null
   * @return the instant, or null
   * @throws Problem.Raised naming the field and the value when it is not an instant, or not within
   *     the years 0001..9999
   */
  static Instant instant(String field, String text) {
    if (text == null) {
      return null;
    }
    Instant t;
    try {
      t = Instant.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new Problem.Raised(Problem.invalid(field, text, "is not an ISO-8601 UTC instant (e.g. 2026-11-30T00:30:00Z)"));
    }
    if (!inRange(t)) {
      throw new Problem.Raised(Problem.invalid(field, text, "must be within the years 0001..9999"));
    }
    return t;
  }

  static boolean inRange(Instant t) {
    return !t.isBefore(MIN_INSTANT) && t.isBefore(MAX_INSTANT);
  }

  /**
   * A keyset cursor: the last window of a page, by (start, task, window key), or by (last change,
   * task, window key) for pages by last change.
   *
   * @param start the window's start (its last change, for a cursor {@code byUpdated})
   * @param task its task
   * @param window its key
   * @param byUpdated whether pages run by last change
   */
  public record Cursor(Instant start, String task, String window, boolean byUpdated) {

    /**
     * A cursor of pages by start.
     *
     * @param start the window's start
     * @param task its task
     * @param window its key
     */
    public Cursor(Instant start, String task, String window) {
      this(start, task, window, false);
    }

    /**
     * @param w a window
     * @return its cursor
     */
    public static Cursor of(WindowView w) {
      return new Cursor(w.start(), w.taskId(), w.window().value());
    }

    /**
     * @param w a window
     * @param byUpdated whether pages run by last change
     * @return its cursor
     */
    public static Cursor of(WindowView w, boolean byUpdated) {
      return byUpdated ? new Cursor(w.updatedAt(), w.taskId(), w.window().value(), true) : of(w);
    }

    /**
     * @param w a window
     * @param descending whether pages run in {@link #ORDER} reversed
     * @return whether it comes after this cursor in the page order
     */
    public boolean precedes(WindowView w, boolean descending) {
      return descending ? after(w) : before(w);
    }

    /** @return whether {@code w} comes before this cursor in {@link #ORDER} */
    private boolean after(WindowView w) {
      return compare(w) < 0;
    }

    /**
     * @param w a window
     * @return whether it comes after this cursor in {@link #ORDER}
     */
    public boolean before(WindowView w) {
      return compare(w) > 0;
    }

    private int compare(WindowView w) {
      int c = (byUpdated ? w.updatedAt() : w.start()).compareTo(start);
      if (c == 0) {
        c = w.taskId().compareTo(task);
      }
      if (c == 0) {
        c = w.window().value().compareTo(window);
      }
      return c;
    }

    /** @return the cursor as opaque URL-safe text */
    public String encode() {
      String text = (byUpdated ? "U" : "") + start + "\n" + task + "\n" + window;
      return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param text a cursor's text ({@link #encode()})
     * @return the cursor
     * @throws Problem.Raised naming {@code after} and the value when it is not one
     */
    public static Cursor decode(String text) {
      try {
        String[] parts = new String(Base64.getUrlDecoder().decode(text.trim()), StandardCharsets.UTF_8).split("\n", 3);
        if (parts.length != 3 || parts[1].isEmpty() || parts[2].isEmpty()) {
          throw new IllegalArgumentException("three parts expected");
        }
        boolean updated = parts[0].startsWith("U");
        Instant start = Instant.parse(updated ? parts[0].substring(1) : parts[0]);
        if (!inRange(start)) {
          throw new Problem.Raised(Problem.invalid("after", text, "is not a cursor: its instant " + start
              + " is outside the years 0001..9999"));
        }
        return new Cursor(start, parts[1], parts[2], updated);
      } catch (IllegalArgumentException | DateTimeParseException e) {
        throw new Problem.Raised(Problem.invalid("after", text, "is not a cursor: pass the 'next' of the previous page"));
      }
    }
  }
}

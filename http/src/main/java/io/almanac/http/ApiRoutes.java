package io.almanac.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.almanac.Almanac;
import io.almanac.FireDecision;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The HTTP API's reads and actions (docs/http-api.md), over the Java API: {@code GET /api/tasks},
 * {@code /api/tasks/{task}}, {@code /api/windows} (from a {@link WindowSource}), {@code /api/queue},
 * {@code /api/tasks/{task}/windows/{window}}; and, with {@code Authorization: Bearer <token>} of
 * a token of role {@code operate} ({@link Tokens}; a {@code read} token is 403), {@code POST} pause,
 * resume, run, backfill (with {@code dryRun}), a bulk cancel of a task's windows that have not
 * started (with {@code dryRun}), the bulk actions on a set named by a filter ({@link BulkRoutes}: the
 * whole queue, or a task's range), retry, resolve and cancel, each done as the token's
 * name ({@link Almanac#as(String)}) with the call's note. Every error is a {@link Problem} (see {@link Problems}); a refused call
 * changes nothing: the calls that would mark a task active in the trigger (run, backfill, retry)
 * first make sure the task is known and not removed (and a retried window known and retryable), and
 * a backfill's range is checked before it is sent.
 */
public final class ApiRoutes extends AllDirectives {

  static final long MAX_BODY_BYTES = 64 * 1024;

  /** The body of an action that takes only an optional note: none, {@code {}} or {@code {"note": ...}}. */
  private static final Set<String> NOTE = Set.of("note");

  private final Almanac almanac;
  private final WindowSource windows;
  private final Tokens tokens;
  private final int maxBackfillWindows;
  /** The most events one {@code POST /api/events/batch} takes ({@code almanac.http.max-batch-events}). */
  private final int maxBatchEvents;
  private final Function<String, CompletionStage<Boolean>> journalHas;

  /**
   * @param almanac the node
   * @param windows where {@code /api/windows} reads from
   * @param token the bearer token of mutating calls; empty: every mutating call is refused (401)
   * @param maxBackfillWindows the most windows one backfill (or dry run) may cover
   */
  public ApiRoutes(Almanac almanac, WindowSource windows, String token, int maxBackfillWindows) {
    this(almanac, windows, token, maxBackfillWindows, null);
  }

  /**
   * @param almanac the node
   * @param windows where {@code /api/windows} reads from
   * @param token the bearer token of mutating calls; empty: every mutating call is refused (401)
   * @param maxBackfillWindows the most windows one backfill (or dry run) may cover
   * @param journalHas whether the journal holds a task's events, asked of an id that is not
   *     registered (a removed task has events; an id never registered has none and answers 404
   *     without its entity being started); null: such an id is asked of its entity (a journal
   *     without SQL)
   */
  public ApiRoutes(Almanac almanac, WindowSource windows, String token, int maxBackfillWindows,
      Function<String, CompletionStage<Boolean>> journalHas) {
    this(almanac, windows, Tokens.single(token), maxBackfillWindows, journalHas);
  }

  /** The routes with the named tokens of {@code almanac.http.token} and {@code almanac.http.tokens}. */
  ApiRoutes(Almanac almanac, WindowSource windows, Tokens tokens, int maxBackfillWindows,
      Function<String, CompletionStage<Boolean>> journalHas) {
    this(almanac, windows, tokens, maxBackfillWindows, DEFAULT_MAX_BATCH_EVENTS, journalHas);
  }

  /** The default of {@code almanac.http.max-batch-events}. */
  static final int DEFAULT_MAX_BATCH_EVENTS = 1000;

  /** The routes with the most events one batch publish takes ({@code almanac.http.max-batch-events}). */
  ApiRoutes(Almanac almanac, WindowSource windows, Tokens tokens, int maxBackfillWindows, int maxBatchEvents,
      Function<String, CompletionStage<Boolean>> journalHas) {
    if (maxBatchEvents < 1) {
      throw new InvalidSpecException("almanac.http.max-batch-events", maxBatchEvents, "must be >= 1");
    }
    this.maxBatchEvents = maxBatchEvents;
    this.journalHas = journalHas;
    this.almanac = almanac;
    this.windows = windows;
    this.tokens = tokens;
    if (maxBackfillWindows < 1) {
      throw new InvalidSpecException("almanac.http.max-backfill-windows", maxBackfillWindows, "must be >= 1");
    }
    this.maxBackfillWindows = maxBackfillWindows;
  }

  /**
   * @param almanac the node
   * @param windows where {@code /api/windows} reads from
   * @param config the node's configuration ({@code almanac.http.token}, {@code almanac.http.max-backfill-windows})
   * @return the routes' owner
   * @throws InvalidSpecException naming the key and the value of a wrong setting
   */
  public static ApiRoutes of(Almanac almanac, WindowSource windows, Config config) {
    return of(almanac, windows, config, null);
  }

  /**
   * @param almanac the node
   * @param windows where {@code /api/windows} reads from
   * @param config the node's configuration
   * @param journalHas whether the journal holds a task's events (see the constructor), or null
   * @return the routes' owner
   * @throws InvalidSpecException naming the key and the value of a wrong setting
   */
  static ApiRoutes of(Almanac almanac, WindowSource windows, Config config,
      Function<String, CompletionStage<Boolean>> journalHas) {
    int max = intSetting(config, "almanac.http.max-backfill-windows");
    AlmanacHttp.Settings.from(config); // every setting checked
    int maxBatch = intSetting(config, "almanac.http.max-batch-events");
    return new ApiRoutes(almanac, windows, Tokens.from(config), max, maxBatch, journalHas);
  }

  /** An integer setting of this module, refused naming the key and the value when missing or not an integer. */
  private static int intSetting(Config config, String key) {
    try {
      return config.getInt(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key, "this module's reference.conf sets it: is it on the class path?");
    } catch (ConfigException e) {
      throw new InvalidSpecException(key, config.getValue(key).unwrapped(), "must be an integer");
    }
  }

  /** @return the routes under {@code /api} */
  public Route routes() {
    return pathPrefix("api", () -> concat(
        // the task list with each task's latest windows is large: gzip it when the client asks so
        path("tasks", () -> get(() -> encodeResponse(() -> parameterMultiMap(this::listTasks)))),
        path("windows", () -> get(() -> parameterMultiMap(this::listWindows))),
        // the queue is read from the tasks themselves: each window with its version, for an action's If-Match
        path("queue", () -> get(() -> answer(almanac::interventionQueue, null, null, ws -> ok(versionedList(ws))))),
        path("pools", () -> get(() -> answer(almanac::pools, null, null, ps -> ok(poolsJson(ps))))),
        pathPrefix("pools", () -> pathPrefix(PathMatchers.segment(), pool -> path("raise-budget", () -> post(() ->
            acting(actor -> body(Set.of("amount", "note"), b -> {
              java.math.BigDecimal amount = b.requiredDecimal("amount");
              String note = b.optionalText("note");
              return answer(() -> raisePoolBudget(pool, amount, note, actor), null, null, u -> ok(poolJson(u)));
            })))))),
        new EventRoutes(almanac, this, maxBatchEvents).route(),
        new BulkRoutes(almanac, this).route(),
        new NodeRoutes(almanac, this).route(),
        new AlertRoutes(almanac, this).route(),
        pathPrefix("tasks", () -> pathPrefix(PathMatchers.segment(), this::taskRoutes))));
  }

  private Route taskRoutes(String task) {
    return concat(
        pathEnd(() -> get(() -> answer(() -> taskView(task), task, null, v -> ok(ApiJson.task(v))))),
        path("pause", () -> post(() -> acting(actor -> noteBody(note -> answer(() -> known(task)
            .thenCompose(v -> almanac.as(actor).pause(task, note)), task, null,
            d -> ok(ApiJson.JSON.createObjectNode().put("task", task).put("paused", true).put("actor", actor))))))),
        path("resume", () -> post(() -> acting(actor -> noteBody(note -> answer(() -> known(task)
            .thenCompose(v -> almanac.as(actor).resume(task, note)), task, null,
            d -> ok(ApiJson.JSON.createObjectNode().put("task", task).put("paused", false).put("actor", actor))))))),
        path("run", () -> post(() -> acting(actor -> noteBody(note -> answer(() -> active(task)
            .thenCompose(v -> almanac.as(actor).runNow(task, note)), task, null,
            f -> ok(ApiJson.JSON.createObjectNode().put("window", f.window().value())
                .put("decision", f.decision().name()).put("reason", f.reason()).put("actor", actor))))))),
        path("backfill", () -> post(() -> acting(actor -> body(Set.of("from", "to", "dryRun", "note"),
            b -> backfill(task, b, actor))))),
        path("cancel", () -> post(() -> acting(actor -> body(Set.of("from", "to", "kind", "reason", "dryRun"),
            b -> cancelAll(task, b, actor))))),
        // usage and budgets (docs/budgets.md)
        path("usage", () -> get(() -> answer(() -> almanac.usage(task), task, null, u -> ok(usageJson(u))))),
        path("raise-budget", () -> post(() -> acting(actor -> body(Set.of("amount", "note"), b -> {
          java.math.BigDecimal amount = b.requiredDecimal("amount");
          String note = b.optionalText("note");
          return answer(() -> known(task).thenCompose(v -> almanac.as(actor).raiseBudget(task, amount, note)), task, null,
              u -> ok(usageJson(u)));
        })))),
        pathPrefix("windows", () -> pathPrefix(PathMatchers.segment(), window -> windowRoutes(task, window))));
  }

  /** Raises a pool's budget; an unknown pool is 404 naming {@code pool}. */
  private CompletionStage<io.almanac.PoolUsage> raisePoolBudget(String pool, java.math.BigDecimal amount, String note,
      String actor) {
    return almanac.as(actor).raisePoolBudget(pool, amount, note).exceptionallyCompose(e -> {
      Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      if (c instanceof io.almanac.RefusedException r && "pool".equals(r.field())) {
        return CompletableFuture.failedFuture(new Problem.Raised(Problem.notFound(r.getMessage(), "pool", pool)));
      }
      return CompletableFuture.failedFuture(c);
    });
  }

  /** The pools as JSON: {@code {"pools": [...]}}, each as {@link #poolJson}. */
  static ObjectNode poolsJson(List<io.almanac.PoolUsage> pools) {
    ObjectNode o = ApiJson.JSON.createObjectNode();
    com.fasterxml.jackson.databind.node.ArrayNode a = o.putArray("pools");
    pools.forEach(p -> a.add(poolJson(p)));
    return o;
  }

  /** A pool's limits, holds and day as JSON: amounts as strings, exactly. */
  static ObjectNode poolJson(io.almanac.PoolUsage u) {
    ObjectNode o = ApiJson.JSON.createObjectNode().put("pool", u.pool()).put("maxConcurrent", u.maxConcurrent());
    o.put("rate", u.rate());
    o.put("inUse", u.inUse());
    o.put("day", u.day().toString()).put("zone", u.zone()).put("cost", u.cost().toPlainString())
        .put("attempts", u.attempts()).put("raised", u.raised().toPlainString()).put("exhausted", u.exhausted());
    o.put("budgetPerDay", u.budgetPerDay() == null ? null : u.budgetPerDay().toPlainString());
    o.put("limit", u.limit() == null ? null : u.limit().toPlainString());
    return o;
  }

  /** A task's day of usage and budget as JSON: amounts as strings, exactly. */
  static com.fasterxml.jackson.databind.node.ObjectNode usageJson(io.almanac.DailyUsage u) {
    com.fasterxml.jackson.databind.node.ObjectNode o = ApiJson.JSON.createObjectNode().put("task", u.taskId())
        .put("day", u.day().toString()).put("zone", u.zone()).put("tokensIn", u.tokensIn()).put("tokensOut", u.tokensOut())
        .put("cost", u.cost().toPlainString()).put("attempts", u.attempts())
        .put("raised", u.raised().toPlainString()).put("exhausted", u.exhausted()).put("windowsSkipped", u.windowsSkipped());
    o.put("budgetPerDay", u.budgetPerDay() == null ? null : u.budgetPerDay().toPlainString());
    o.put("limit", u.limit() == null ? null : u.limit().toPlainString());
    return o;
  }

  private Route windowRoutes(String task, String window) {
    return concat(
        pathEnd(() -> get(() -> answer(() -> window(task, window), task, window, w -> respondWithHeader(etag(w),
            () -> ok(versioned(w)))))),
        path("retry", () -> post(() -> acting(actor -> ifMatch(expecting -> noteBody(note -> answer(
            () -> retryable(task, window, expecting).thenCompose(v -> almanac.as(actor).retry(task, key(window), note,
                expecting)),
            task, window, d -> ok(windowStatus(task, window, InstanceStatus.PENDING).put("actor", actor)))))))),
        path("resolve", () -> post(() -> acting(actor -> ifMatch(expecting -> body(Set.of("note"), b -> {
          String note = b.requiredText("note");
          return answer(() -> known(task).thenCompose(v -> almanac.as(actor).resolve(task, key(window), note, expecting)),
              task, window, d -> ok(windowStatus(task, window, InstanceStatus.RESOLVED).put("actor", actor)));
        }))))),
        path("cancel", () -> post(() -> acting(actor -> ifMatch(expecting -> body(Set.of("reason"), b -> {
          String reason = b.requiredText("reason");
          return answer(() -> known(task).thenCompose(v -> almanac.as(actor).cancel(task, key(window), reason, expecting)),
              task, window, d -> ok(windowStatus(task, window, InstanceStatus.CANCELLED).put("actor", actor)));
        }))))));
  }

  /** A window's ETag: its version as a strong tag; it changes at each change of the window's status or attempt. */
  static org.apache.pekko.http.javadsl.model.headers.ETag etag(WindowView w) {
    return org.apache.pekko.http.javadsl.model.headers.ETag.create(
        org.apache.pekko.http.javadsl.model.headers.EntityTag.create(Long.toString(w.version()), false));
  }

  /**
   * The {@code If-Match} header of an action on one window: the window's ETag the action was decided
   * on, which the task checks in its single writer (a stale action is refused 412 and changes
   * nothing); none, or {@code *}: no expectation.
   */
  private Route ifMatch(Function<io.almanac.Expecting, Route> inner) {
    return optionalHeaderValueByName("If-Match", h -> inner.apply(h.map(ApiRoutes::expecting).orElse(null)));
  }

  /**
   * @param header an If-Match value
   * @return the version it names, or null for {@code *}
   * @throws Problem.Raised a 400 naming {@code If-Match} when it is not one ETag of a window
   */
  static io.almanac.Expecting expecting(String header) {
    String v = header.trim();
    if (v.equals("*")) {
      return null;
    }
    String tag = v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    if (!tag.isEmpty() && tag.length() <= 18 && tag.chars().allMatch(Character::isDigit)) {
      return io.almanac.Expecting.version(Long.parseLong(tag));
    }
    throw new Problem.Raised(Problem.invalid("If-Match", header,
        "must be one window's ETag as GET /api/tasks/{task}/windows/{window} answers it (e.g. \"7\"), or *"));
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** The most windows {@code GET /api/tasks?latest=} gives each task. */
  static final int MAX_LATEST = 100;

  /**
   * {@code GET /api/tasks}, with {@code latest=N} (1..{@value #MAX_LATEST}) each task's latest N
   * windows by start too, newest first, as {@code "latest"}: one query of the window source per task,
   * answered in one response (the dashboard's task list).
   */
  private Route listTasks(java.util.Map<String, List<String>> params) {
    Integer latest = latestParameter(params);
    return answer(() -> almanac.taskIds().thenCompose(ids -> {
      List<CompletableFuture<TaskView>> all = new ArrayList<>();
      for (String id : ids) {
        all.add(almanac.task(id).toCompletableFuture());
      }
      return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
          .thenApply(v -> all.stream().map(CompletableFuture::join).toList());
    }).thenCompose(views -> latest == null ? CompletableFuture.completedFuture(new TasksAndLatest(views, null))
        : latestOf(views, latest)), null, null, both -> {
      ObjectNode root = ApiJson.JSON.createObjectNode();
      ArrayNode tasks = root.putArray("tasks");
      for (int i = 0; i < both.views().size(); i++) {
        ObjectNode t = ApiJson.task(both.views().get(i));
        if (both.latest() != null) {
          ArrayNode ws = t.putArray("latest");
          both.latest().get(i).forEach(w -> ws.add(ApiJson.window(w)));
        }
        tasks.add(t);
      }
      return ok(root);
    });
  }

  private record TasksAndLatest(List<TaskView> views, List<List<WindowView>> latest) {}

  /** Each task's latest {@code n} windows by start, newest first, from the window source. */
  private CompletionStage<TasksAndLatest> latestOf(List<TaskView> views, int n) {
    List<CompletableFuture<WindowPage>> pages = new ArrayList<>();
    for (TaskView v : views) {
      pages.add(windows.find(new WindowFilter(v.spec().id(), Set.of(), null, null, n, null, true)).toCompletableFuture());
    }
    return CompletableFuture.allOf(pages.toArray(new CompletableFuture[0])).thenApply(x ->
        new TasksAndLatest(views, pages.stream().map(p -> p.join().windows()).toList()));
  }

  /** {@code latest}: absent (null), or one integer 1..{@value #MAX_LATEST}; else a 400 naming it. */
  static Integer latestParameter(java.util.Map<String, List<String>> params) {
    for (String name : params.keySet()) {
      if (!name.equals("latest")) {
        throw new Problem.Raised(Problem.unknownParameter(name, "is not a parameter of /api/tasks: it takes latest"));
      }
    }
    List<String> values = params.get("latest");
    if (values == null) {
      return null;
    }
    if (values.size() != 1) {
      throw new Problem.Raised(Problem.invalid("latest", String.join(",", values), "is given " + values.size()
          + " times: give it once"));
    }
    String text = values.get(0);
    int n;
    try {
      n = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new Problem.Raised(Problem.invalid("latest", text, "must be an integer between 1 and " + MAX_LATEST));
    }
    if (n < 1 || n > MAX_LATEST) {
      throw new Problem.Raised(Problem.invalid("latest", text, "must be between 1 and " + MAX_LATEST));
    }
    return n;
  }

  private Route listWindows(java.util.Map<String, List<String>> params) {
    return answer(() -> windows.find(WindowFilter.parse(params)), null, null, page -> {
      ObjectNode root = windowList(page.windows());
      root.put("next", page.next());
      return ok(root);
    });
  }

  private static ObjectNode windowList(List<WindowView> list) {
    ObjectNode root = ApiJson.JSON.createObjectNode();
    ArrayNode out = root.putArray("windows");
    list.forEach(w -> out.add(ApiJson.window(w)));
    return root;
  }

  /**
   * Windows read from their tasks (the intervention queue), each with its {@code "version"} as
   * {@code GET /api/tasks/{task}/windows/{window}} answers it: an action on a listed window can send
   * it as {@code If-Match} and so act only on the state the list showed.
   */
  private static ObjectNode versionedList(List<WindowView> list) {
    ObjectNode root = ApiJson.JSON.createObjectNode();
    ArrayNode out = root.putArray("windows");
    list.forEach(w -> out.add(versioned(w)));
    return root;
  }

  /** A window read from its task, with its version (the ETag's value). */
  private static ObjectNode versioned(WindowView w) {
    return ApiJson.window(w).put("version", w.version());
  }

  /**
   * The task's view; a bad id is refused (400) before any ask, and an id that is neither registered
   * nor in the journal (a removed task is) is 404 without its entity being started.
   */
  private CompletionStage<TaskView> taskView(String task) {
    try {
      TaskSpec.validateId(task);
    } catch (InvalidSpecException e) {
      return CompletableFuture.failedFuture(new Problem.Raised(Problem.invalid("task", task, "is not a task id: "
          + e.reason())));
    }
    return almanac.taskIds().thenCompose(ids -> {
      if (ids.contains(task) || journalHas == null) {
        return almanac.task(task);
      }
      return journalHas.apply(task).thenCompose(has -> {
        if (!has) {
          throw new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "task '" + task + "' is unknown: it is not "
              + "registered and the journal has no event of it");
        }
        return almanac.task(task);
      });
    });
  }

  /** The task, known (else 404). */
  private CompletionStage<TaskView> known(String task) {
    return taskView(task);
  }

  /** The task, known and not removed: checked before a call that marks it active in the trigger. */
  CompletionStage<TaskView> active(String task) {
    return taskView(task).thenApply(v -> {
      if (v.removed()) {
        throw new RefusedException(RefusedException.Reason.REMOVED, "task '" + task + "' was removed at "
            + v.removedAt() + ": its history answers queries; register it again to define it anew");
      }
      return v;
    });
  }

  /**
   * The window, known and one an operator may retry, checked before the retry marks the task active
   * in the trigger; refused as the task refuses it. A window no longer in the state the retry expects
   * is left to the task, which refuses it as stale (412).
   */
  private CompletionStage<WindowView> retryable(String task, String window, io.almanac.Expecting expecting) {
    return active(task).thenCompose(v -> window(task, window)).thenApply(w -> {
      if (!w.reopenable() && (expecting == null || expecting.holds(w.status(), w.version()))) {
        throw new RefusedException(RefusedException.Reason.CONFLICT, "window '" + w.window() + "' is " + w.status()
            + ": only FINAL_FAILED, CANCELLED, SKIPPED or MISSED windows can be retried by an operator");
      }
      return w;
    });
  }

  private CompletionStage<WindowView> window(String task, String window) {
    WindowKey key = key(window);
    return taskView(task).thenCompose(v -> almanac.windows(task)).thenApply(list -> list.stream()
        .filter(w -> w.window().equals(key)).findFirst()
        .orElseThrow(() -> new RefusedException(RefusedException.Reason.UNKNOWN_WINDOW, "window '" + window
            + "' is unknown for task '" + task + "' (the API shows the windows in the task's hot state)")));
  }

  private static WindowKey key(String window) {
    try {
      return WindowKey.of(window);
    } catch (InvalidSpecException e) {
      throw new Problem.Raised(Problem.invalid("window", window, e.reason()));
    }
  }

  private static ObjectNode windowStatus(String task, String window, InstanceStatus status) {
    return ApiJson.JSON.createObjectNode().put("task", task).put("window", window).put("status", status.name());
  }

  // ---------------------------------------------------------------------------------------------
  // Backfill

  private Route backfill(String task, JsonBody body, String actor) {
    Instant from = body.requiredInstant("from");
    Instant to = body.requiredInstant("to");
    boolean dryRun = body.flag("dryRun");
    String note = body.optionalText("note");
    if (!from.isBefore(to)) {
      throw new Problem.Raised(Problem.invalid("from", from, "must be before to (" + to + "): the range is (from, to]"));
    }
    CompletionStage<List<FireDecision>> result = active(task).thenCompose(view -> {
      TaskSchedule schedule;
      try {
        schedule = Schedules.of(view.spec());
      } catch (InvalidSpecException e) {
        throw new RefusedException(RefusedException.Reason.SCHEDULE_FAILED, "task '" + task + "': its schedule "
            + "cannot be computed: " + e.getMessage());
      }
      List<DueWindow> due = BackfillPlan.windows(schedule, from, to, almanac.clock().instant(), maxBackfillWindows);
      return (dryRun ? almanac.planBackfill(task, from, to) : almanac.as(actor).backfill(task, from, to, note));
    });
    return answer(() -> result, task, null, planned -> {
      ObjectNode root = ApiJson.JSON.createObjectNode();
      root.put("task", task);
      root.put("from", from.toString());
      root.put("to", to.toString());
      root.put("range", "(" + from + ", " + to + "]");
      root.put("dryRun", dryRun);
      if (!dryRun) {
        root.put("actor", actor);
      }
      ArrayNode out = root.putArray("windows");
      for (FireDecision p : planned) {
        out.addObject().put("window", p.window().value()).put("decision", p.decision().name()).put("reason", p.reason());
      }
      return ok(root);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Bulk cancel

  /**
   * {@code POST /api/tasks/{task}/cancel}: cancels, in one journal write, the task's windows that have
   * not started (PENDING, RETRY_WAIT, WAITING) due in (from, to] (either side may be left out) whose
   * next attempt is of the kind; a dry run lists them and stores nothing. A reason is required
   * unless it is a dry run.
   */
  private Route cancelAll(String task, JsonBody body, String actor) {
    Instant from = body.optionalInstant("from");
    Instant to = body.optionalInstant("to");
    RunKind kind = runKind(body.optionalText("kind"));
    boolean dryRun = body.flag("dryRun");
    String reason = dryRun ? body.optionalText("reason") : body.requiredText("reason");
    if (from != null && to != null && !from.isBefore(to)) {
      throw new Problem.Raised(Problem.invalid("from", from, "must be before to (" + to + "): the range is (from, to]"));
    }
    CompletionStage<List<WindowKey>> result = known(task).thenCompose(v -> dryRun
        ? almanac.planCancelAll(task, from, to, kind) : almanac.as(actor).cancelAll(task, from, to, kind, reason));
    return answer(() -> result, task, null, cancelled -> {
      ObjectNode root = ApiJson.JSON.createObjectNode();
      root.put("task", task);
      root.put("from", from == null ? null : from.toString());
      root.put("to", to == null ? null : to.toString());
      root.put("range", "(" + (from == null ? "" : from) + ", " + (to == null ? "" : to) + "]");
      root.put("kind", kind == null ? null : kind.name());
      root.put("dryRun", dryRun);
      if (!dryRun) {
        root.put("actor", actor);
      }
      root.put("cancelled", cancelled.size());
      ArrayNode out = root.putArray("windows");
      cancelled.forEach(k -> out.add(k.value()));
      return ok(root);
    });
  }

  /** A run kind by name, any case ({@code backfill}, {@code retry}, {@code manual}, {@code first}); null when absent. */
  private static RunKind runKind(String text) {
    if (text == null) {
      return null;
    }
    for (RunKind k : RunKind.values()) {
      if (k.name().equalsIgnoreCase(text.trim())) {
        return k;
      }
    }
    throw new Problem.Raised(Problem.invalid("kind", text, "is not a run kind: one of first, retry, backfill, manual, resume"));
  }

  // ---------------------------------------------------------------------------------------------
  // Plumbing

  /**
   * Answers a call's outcome: its JSON when it succeeds, its {@link Problem} when it fails (or
   * throws before it starts).
   */
  <T> Route answer(Supplier<CompletionStage<T>> call, String task, String window, Function<T, Route> ok) {
    return onComplete(() -> {
      try {
        return call.get();
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }, t -> {
      if (t.isSuccess()) {
        return ok.apply(t.get());
      }
      return Problems.complete(Problems.of(t.failed().get(), task, window));
    });
  }

  Route ok(ObjectNode body) {
    return complete(StatusCodes.OK, HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString()));
  }

  /** The call's JSON body, checked: missing, not JSON, another content type, or another field is refused. */
  Route body(Set<String> fields, Function<JsonBody, Route> inner) {
    return body(fields, inner, false);
  }

  private Route body(Set<String> fields, Function<JsonBody, Route> inner, boolean optional) {
    return text(MAX_BODY_BYTES, text -> inner.apply(JsonBody.parse(optional && text.isBlank() ? "{}" : text, fields)));
  }

  /**
   * An optional body of only an optional {@code note} ({@link #NOTE}), checked before the call:
   * none reads as {@code {}}; the route gets the note, or null.
   */
  private Route noteBody(Function<String, Route> inner) {
    return body(NOTE, b -> inner.apply(b.optionalText("note")), true);
  }

  /**
   * A body of up to {@code maxBytes} bytes, as text (a batch's: larger than {@link #MAX_BODY_BYTES});
   * a larger one is 413 naming {@code body}, one of another content type 415.
   */
  Route rawBody(long maxBytes, Function<String, Route> inner) {
    return text(maxBytes, inner);
  }

  /** A body over {@code maxBytes} bytes: 413 naming {@code body}. */
  static Problem tooLarge(long size, long maxBytes) {
    return new Problem(413, "payload-too-large", "Payload too large", "body: " + size + " bytes is larger than the "
        + limitText(maxBytes) + " this call takes", "body", null);
  }

  /** A chunked body read past {@code maxBytes} bytes (its size is not known): 413 naming {@code body}. */
  static Problem tooLarge(long maxBytes) {
    return new Problem(413, "payload-too-large", "Payload too large", "body: the body is larger than the "
        + limitText(maxBytes) + " this call takes", "body", null);
  }

  /** A body limit in words: "65536 bytes (64 KiB)", "1089536 bytes (1064 KiB)". */
  static String limitText(long maxBytes) {
    return maxBytes + " bytes" + (maxBytes % 1024 == 0 ? " (" + maxBytes / 1024 + " KiB)" : "");
  }

  /**
   * The call's body as text, of up to {@code maxBytes} bytes (413 naming {@code body} past it, by its
   * Content-Length or as read), empty or JSON (415 for another content type); a {@link Problem.Raised}
   * from the route is its answer.
   */
  private Route text(long maxBytes, Function<String, Route> inner) {
    return extractRequestEntity(request -> {
      java.util.OptionalLong length = request.getContentLengthOption();
      if (length.isPresent() && length.getAsLong() > maxBytes) {
        return Problems.complete(tooLarge(length.getAsLong(), maxBytes));
      }
      // a chunked body read past the limit fails the read: answered here, where the call's own limit is known
      return handleExceptions(org.apache.pekko.http.javadsl.server.ExceptionHandler.newBuilder()
          .match(org.apache.pekko.http.scaladsl.model.IllegalRequestException.class,
              bad -> "Request too large".equals(bad.info().summary()),
              bad -> Problems.complete(tooLarge(maxBytes)))
          .match(org.apache.pekko.http.scaladsl.model.EntityStreamSizeException.class,
              big -> Problems.complete(tooLarge(maxBytes)))
          .build(), () -> extractStrictEntity(Duration.ofSeconds(10), maxBytes, entity -> {
        String text = entity.getData().utf8String();
        if (!text.isEmpty() && !entity.getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
          return Problems.complete(new Problem(415, "unsupported-media-type", "Unsupported media type",
              "Content-Type: " + entity.getContentType() + " is not supported: send application/json", "Content-Type",
              entity.getContentType().toString()));
        }
        try {
          return inner.apply(text);
        } catch (Problem.Raised e) {
          return Problems.complete(e.problem());
        }
      }));
    });
  }

  /** Runs the route only with a token of role {@code operate}: else 401 (no or a wrong token) or 403 (a read token). */
  Route authorized(Supplier<Route> inner) {
    return acting(actor -> inner.get());
  }

  /**
   * Runs the route with the name of the {@code operate} token the call carries (the actor its
   * action records); a call without a token, or with a wrong one, is 401; one with a {@code read}
   * token is 403 ({@code forbidden}).
   */
  Route acting(Function<String, Route> inner) {
    return authorizationHeader(header -> {
      Authorized a = authorize(header);
      if (a.problem() != null) {
        return Problems.complete(a.problem());
      }
      if (a.token().role() != Tokens.Role.OPERATE) {
        return Problems.complete(new Problem(403, "forbidden", "Forbidden", "token '" + a.token().name() + "' may only "
            + "read: a mutating call needs a token of role operate", "Authorization", null));
      }
      return inner.apply(a.token().name());
    });
  }

  /**
   * With {@code almanac.http.read-requires-token} on: runs the route only with a configured token
   * (any role), else 401; off: runs it.
   */
  Route readable(Supplier<Route> inner) {
    if (!tokens.readRequiresToken()) {
      return inner.get();
    }
    return authorizationHeader(header -> {
      Authorized a = authorize(header);
      return a.problem() != null ? Problems.complete(a.problem()) : inner.get();
    });
  }

  /**
   * Runs the route with the call's {@code Authorization} header, or empty without one; a call giving
   * it more than once is refused (401: which of its tokens acts would be a guess). A value is never
   * logged nor echoed.
   */
  private Route authorizationHeader(Function<Optional<String>, Route> inner) {
    return extractRequest(request -> {
      List<String> values = new ArrayList<>();
      request.getHeaders().forEach(h -> {
        if (h.is("authorization")) {
          values.add(h.value());
        }
      });
      if (values.size() > 1) {
        return Problems.complete(Problem.unauthorized("the Authorization header is given " + values.size() + " times: "
            + "give one, Authorization: Bearer <token>"));
      }
      return inner.apply(values.stream().findFirst());
    });
  }

  /** The token a call carries, or why it is refused (401). */
  private record Authorized(Tokens.Named token, Problem problem) {}

  private Authorized authorize(Optional<String> header) {
    Optional<String> problem = refusal(header);
    if (problem.isPresent()) {
      return new Authorized(null, Problem.unauthorized(problem.get()));
    }
    return new Authorized(tokens.match(bearer(header.get())).orElseThrow(), null);
  }

  private static String bearer(String header) {
    return header.trim().substring("bearer ".length()).trim();
  }

  /** Why a call is refused (401), or empty when its token is one configured (compared in constant time). */
  Optional<String> refusal(Optional<String> header) {
    if (tokens.isEmpty()) {
      return Optional.of("mutating calls are refused: no token is configured (set almanac.http.token or "
          + "almanac.http.tokens)");
    }
    if (header.isEmpty()) {
      return Optional.of("this call needs the header Authorization: Bearer <token> (a token of almanac.http.tokens, or "
          + "almanac.http.token)");
    }
    String value = header.get().trim();
    if (!value.toLowerCase(Locale.ROOT).startsWith("bearer ")) {
      return Optional.of("the Authorization header must be 'Bearer <token>'");
    }
    if (tokens.match(bearer(value)).isEmpty()) {
      return Optional.of("wrong token");
    }
    return Optional.empty();
  }
}

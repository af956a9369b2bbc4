package io.almanac.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Almanac;
import io.almanac.Expecting;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The operator's actions on a set of windows named by a filter, not by a list of ids (docs/http-api.md,
 * "Bulk actions"): {@code POST /api/queue/retry} and {@code POST /api/queue/resolve} act on the whole
 * intervention queue, or one task's part of it; {@code POST /api/tasks/{task}/retry} retries the
 * task's windows an operator may retry whose due time is in (from, to], of some statuses. Each takes
 * {@code dryRun} (lists the set, changes nothing) and {@code expect}, the count the operator confirmed:
 * a set of another size now is refused (412 naming {@code expect}) with nothing changed. Each window
 * is then acted on as its own action would (retry or resolve, with the version it was read at, so a
 * window that changed meanwhile is refused, not acted on twice); the answer counts those done and
 * lists those refused, each with why. A set larger than {@value #MAX_BULK_WINDOWS} windows is refused
 * (400) before anything is done.
 */
final class BulkRoutes extends AllDirectives {

  /** The most windows one bulk action acts on. */
  static final int MAX_BULK_WINDOWS = 1000;

  /**
   * How long one bulk call may take: its windows are acted on one after another (each with the
   * node's ask timeout), longer than pekko-http's default request timeout (20 s) for a full set on a
   * busy database; the answer, with what was done and refused, must reach the operator.
   */
  static final java.time.Duration REQUEST_TIMEOUT = java.time.Duration.ofMinutes(5);

  /**
   * The statuses an operator may retry, to check a {@code status} parameter against: the windows are
   * chosen by {@link WindowView#reopenable()}, the rule's one home (BulkRoutesTest checks the two agree).
   */
  static final Set<InstanceStatus> RETRYABLE = Set.copyOf(EnumSet.of(InstanceStatus.FINAL_FAILED,
      InstanceStatus.CANCELLED, InstanceStatus.SKIPPED, InstanceStatus.MISSED));

  private final Almanac almanac;
  private final ApiRoutes api;

  BulkRoutes(Almanac almanac, ApiRoutes api) {
    this.almanac = almanac;
    this.api = api;
  }

  /** The two queue actions. */
  enum Action {
    RETRY("retried"), RESOLVE("resolved");

    final String done;

    Action(String done) {
      this.done = done;
    }
  }

  /** @return the routes, under {@code /api} */
  Route route() {
    return concat(
        pathPrefix("queue", () -> concat(
            path("retry", () -> post(() -> withRequestTimeout(REQUEST_TIMEOUT, () -> api.acting(actor -> api.body(
                Set.of("task", "note", "dryRun", "expect"), b -> queue(Action.RETRY, b, actor)))))),
            path("resolve", () -> post(() -> withRequestTimeout(REQUEST_TIMEOUT, () -> api.acting(actor -> api.body(
                Set.of("task", "note", "dryRun", "expect"), b -> queue(Action.RESOLVE, b, actor)))))))),
        pathPrefix("tasks", () -> pathPrefix(PathMatchers.segment(), task -> path("retry", () -> post(() ->
            withRequestTimeout(REQUEST_TIMEOUT, () -> api.acting(actor -> api.body(
                Set.of("from", "to", "status", "note", "dryRun", "expect"), b -> range(task, b, actor)))))))));
  }

  // ---------------------------------------------------------------------------------------------
  // The intervention queue

  private Route queue(Action action, JsonBody body, String actor) {
    String task = body.optionalText("task");
    if (task != null) {
      try {
        TaskSpec.validateId(task);
      } catch (InvalidSpecException e) {
        throw new Problem.Raised(Problem.invalid("task", task, "is not a task id: " + e.reason()));
      }
    }
    boolean dryRun = body.flag("dryRun");
    String note = action == Action.RESOLVE && !dryRun ? body.requiredText("note") : body.optionalText("note");
    Integer expect = body.optionalCount("expect");
    CompletionStage<List<WindowView>> queued = task == null ? almanac.interventionQueue()
        : almanac.taskIds().thenCompose(ids -> {
          if (!ids.contains(task)) {
            throw new Problem.Raised(Problem.notFound("task '" + task + "' is not registered", "task", task));
          }
          return almanac.interventionQueue(task);
        });
    CompletionStage<ObjectNode> result = queued.thenCompose(list -> {
      List<WindowView> set = list.stream().sorted(WindowFilter.ORDER).toList();
      if (set.size() > MAX_BULK_WINDOWS) {
        throw new Problem.Raised(Problem.invalid("task", task, "the queue" + (task == null ? "" : " of task '" + task + "'")
            + " holds " + set.size() + " windows, more than the " + MAX_BULK_WINDOWS + " one call acts on: act on one "
            + "task's at a time"));
      }
      checkExpected(expect, set.size(), task == null ? "the intervention queue" : "the queue of task '" + task + "'");
      ObjectNode root = ApiJson.JSON.createObjectNode().put("action", action.name().toLowerCase(Locale.ROOT));
      root.put("task", task);
      return finish(root, set, dryRun, actor, w -> action == Action.RETRY
          ? almanac.as(actor).retry(w.taskId(), w.window(), note, Expecting.version(w.version()))
          : almanac.as(actor).resolve(w.taskId(), w.window(), note, Expecting.version(w.version())));
    });
    return api.answer(() -> result, task, null, api::ok);
  }

  // ---------------------------------------------------------------------------------------------
  // A task's range

  private Route range(String task, JsonBody body, String actor) {
    Instant from = body.optionalInstant("from");
    Instant to = body.optionalInstant("to");
    if (from != null && to != null && !from.isBefore(to)) {
      throw new Problem.Raised(Problem.invalid("from", from, "must be before to (" + to + "): the range is (from, to]"));
    }
    Set<InstanceStatus> statuses = statuses(body.optionalText("status"));
    boolean dryRun = body.flag("dryRun");
    String note = body.optionalText("note");
    Integer expect = body.optionalCount("expect");
    CompletionStage<ObjectNode> result = api.active(task).thenCompose(v -> almanac.windows(task)).thenCompose(all -> {
      List<WindowView> set = all.stream().filter(w -> w.reopenable() && statuses.contains(w.status()) && inRange(w, from, to))
          .sorted(Comparator.comparing(BulkRoutes::due).thenComparing(w -> w.window().value())).toList();
      if (set.size() > MAX_BULK_WINDOWS) {
        throw new Problem.Raised(Problem.invalid("to", to, "the range holds " + set.size() + " windows to retry, more "
            + "than the " + MAX_BULK_WINDOWS + " one call acts on: ask in parts"));
      }
      checkExpected(expect, set.size(), "the range of task '" + task + "'");
      ObjectNode root = ApiJson.JSON.createObjectNode().put("action", "retry").put("task", task);
      root.put("from", from == null ? null : from.toString());
      root.put("to", to == null ? null : to.toString());
      root.put("range", "(" + (from == null ? "" : from) + ", " + (to == null ? "" : to) + "]");
      ArrayNode st = root.putArray("statuses");
      statuses.stream().sorted().forEach(s -> st.add(s.name()));
      return finish(root, set, dryRun, actor,
          w -> almanac.as(actor).retry(task, w.window(), note, Expecting.version(w.version())));
    });
    return api.answer(() -> result, task, null, api::ok);
  }

  /** When a window fell due (its start when it has no due time): what a range is of, as the bulk cancel's. */
  private static Instant due(WindowView w) {
    return w.dueAt() != null ? w.dueAt() : w.start();
  }

  private static boolean inRange(WindowView w, Instant from, Instant to) {
    Instant due = due(w);
    return (from == null || due.isAfter(from)) && (to == null || !due.isAfter(to));
  }

  /**
   * The statuses a range retry takes: comma-separated, any case; every status an operator may retry
   * when absent; another status is a 400 naming {@code status}.
   */
  static Set<InstanceStatus> statuses(String text) {
    if (text == null) {
      return RETRYABLE;
    }
    EnumSet<InstanceStatus> out = EnumSet.noneOf(InstanceStatus.class);
    for (String part : text.split(",", -1)) {
      String name = part.trim();
      InstanceStatus s;
      try {
        s = InstanceStatus.valueOf(name.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new Problem.Raised(Problem.invalid("status", name, "is not a status (one of "
            + Arrays.toString(InstanceStatus.values()) + ")"));
      }
      if (!RETRYABLE.contains(s)) {
        throw new Problem.Raised(Problem.invalid("status", name, "is not a status an operator may retry: one of "
            + "FINAL_FAILED, CANCELLED, SKIPPED, MISSED"));
      }
      out.add(s);
    }
    return out;
  }

  /** The count the operator confirmed, when given, must be the set's now: else 412 naming {@code expect}. */
  private static void checkExpected(Integer expect, int size, String what) {
    if (expect != null && expect != size) {
      throw new Problem.Raised(new Problem(412, "precondition-failed", "Precondition failed", what + " holds " + size
          + " windows now, not the " + expect + " this action was confirmed for: nothing was changed; look again and "
          + "confirm anew", "expect", String.valueOf(expect)));
    }
  }

  /**
   * The answer: the set's size; on a dry run the set, else each window acted on in turn (one at a
   * time: its task is its single writer), with those done and those refused and why.
   */
  static CompletionStage<ObjectNode> finish(ObjectNode root, List<WindowView> set, boolean dryRun, String actor,
      java.util.function.Function<WindowView, CompletionStage<?>> act) {
    root.put("dryRun", dryRun);
    if (!dryRun) {
      root.put("actor", actor);
    }
    root.put("matched", set.size());
    if (dryRun) {
      root.put("done", 0);
      root.putArray("refused");
      ArrayNode out = root.putArray("windows");
      set.forEach(w -> out.addObject().put("task", w.taskId()).put("window", w.window().value())
          .put("status", w.status().name()));
      return CompletableFuture.completedFuture(root);
    }
    List<WindowView> done = new ArrayList<>();
    ArrayNode refused = ApiJson.JSON.createArrayNode();
    CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
    for (WindowView w : set) {
      chain = chain.thenCompose(x -> {
        CompletionStage<?> one;
        try {
          one = act.apply(w);
        } catch (RuntimeException e) {
          one = CompletableFuture.failedFuture(e);
        }
        return one.handle((ok, error) -> {
          if (error == null) {
            done.add(w);
          } else {
            Problem p = Problems.of(error, w.taskId(), w.window().value());
            refused.addObject().put("task", w.taskId()).put("window", w.window().value()).put("status", p.status())
                .put("problem", p.kind()).put("detail", p.detail());
          }
          return null;
        });
      });
    }
    return chain.thenApply(x -> {
      root.put("done", done.size());
      root.set("refused", refused);
      ArrayNode out = root.putArray("windows");
      done.forEach(w -> out.addObject().put("task", w.taskId()).put("window", w.window().value()));
      return root;
    });
  }
}

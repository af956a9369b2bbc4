package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.EXIT_REFUSED;
import static io.almanac.samples.AlmanacCli.EXIT_UNREACHABLE;
import static io.almanac.samples.AlmanacCli.printWindows;
import static io.almanac.samples.AlmanacCli.text;
import static io.almanac.samples.AlmanacCli.time;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.samples.AlmanacCli.ApiCommand;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The commands that read the node's state over its HTTP API: {@code status}, {@code tasks}, {@code
 * windows} and {@code queue}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class ReadCommands {

  private ReadCommands() {}

  /** {@code status}: the node's health. */
  @Command(name = "status", description = "The node's health (GET /health/ready): exit 0 when ready, 1 when not.")
  static final class Status extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient api = api();
      ApiClient.Answer a = api.getAny("/health/ready");
      if (a.status() != 200 && a.status() != 503) {
        throw new CliException(a.status() >= 500 ? EXIT_UNREACHABLE : EXIT_REFUSED,
            "almanac: " + api.base() + "/health/ready answered " + a.status() + ": " + LiveTable.shorten(a.body(), 200));
      }
      JsonNode h = a.json();
      boolean ready = h.path("ready").asBoolean(false);
      if (!printedJson(a)) {
        out().println("node " + api.base() + ": " + (h.path("live").asBoolean(false) ? "live" : "NOT LIVE") + ", "
            + (ready ? "ready" : "NOT READY"));
        TextTable t = new TextTable(120, "CHECK", "OK", "DETAIL");
        for (JsonNode c : h.path("checks")) {
          t.row(text(c, "name"), c.path("ok").asBoolean() ? "ok" : "FAIL", text(c, "detail"));
        }
        t.print(out());
      }
      return ready ? EXIT_OK : EXIT_REFUSED;
    }
  }

  /** {@code tasks}: every registered task. */
  @Command(name = "tasks", description = "The registered tasks, with their next fire in local time and UTC.")
  static final class Tasks extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/tasks");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(60, "TASK", "SCHEDULE", "WINDOW", "STATE", "NEXT FIRE (LOCAL)", "NEXT FIRE (UTC)",
          "QUEUE");
      for (JsonNode k : a.json().path("tasks")) {
        String state = k.path("removed").asBoolean(false) ? "removed" : k.path("paused").asBoolean(false) ? "paused" : "active";
        String local = text(k, "nextFireLocal");
        t.row(text(k, "id"), scheduleText(k), text(k, "window"), state,
            local == null ? "never" : time(local) + " " + text(k, "zone"),
            text(k, "nextFireUtc") == null ? "never" : time(text(k, "nextFireUtc")), text(k, "interventionQueue"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /**
   * A task's schedule for the {@code tasks} listing: its cron, and for a richer schedule
   * (docs/schedules.md) its other crons ({@code + ...}), bounds ({@code from .. until ..}), calendars
   * ({@code excl ...}) and jitter ({@code jitter 300s}).
   */
  static String scheduleText(JsonNode k) {
    StringBuilder b = new StringBuilder(String.valueOf(text(k, "schedule")));
    for (JsonNode c : k.path("alsoCrons")) {
      b.append(" + ").append(c.asText());
    }
    if (text(k, "from") != null || text(k, "until") != null) {
      b.append(" | ").append(text(k, "from") == null ? "" : "from " + text(k, "from"))
          .append(text(k, "from") != null && text(k, "until") != null ? " " : "")
          .append(text(k, "until") == null ? "" : "until " + text(k, "until"));
    }
    List<String> calendars = new java.util.ArrayList<>();
    k.path("calendars").forEach(c -> calendars.add(c.asText()));
    if (!calendars.isEmpty()) {
      b.append(" | excl ").append(String.join(",", calendars));
    }
    if (k.hasNonNull("jitterMillis")) {
      b.append(" | jitter ").append(java.time.Duration.ofMillis(k.path("jitterMillis").asLong()).toString().substring(2)
          .toLowerCase(java.util.Locale.ROOT));
    }
    return b.toString();
  }

  /** {@code windows}: the instance table, filtered and paged. */
  @Command(name = "windows", description = {"Windows from the instance table (GET /api/windows), oldest first (by start,",
      "task, window), or newest first with --newest-first; the next page with --after (and the same order)."})
  static final class Windows extends ApiCommand {
    @Option(names = "--task", description = "only this task") String task;
    @Option(names = "--status", split = ",", description = "only these statuses (repeat or comma-separate), e.g. FINAL_FAILED,MISSED")
    List<String> status;
    @Option(names = "--from", description = "window start (or last change, --by-last-change) at or after (ISO instant)")
    String from;
    @Option(names = "--to", description = "window start (or last change, --by-last-change) before (ISO instant)") String to;
    @Option(names = "--by-last-change", description = "--from and --to bound the window's last change, and pages run by it "
        + "(by=updated: both needed, at most 31 days apart); pass it with --after too")
    boolean byLastChange;
    @Option(names = "--limit", description = "1..500 (the node's default: 100)") Integer limit;
    @Option(names = "--after", description = "the cursor printed as 'next' by the previous page") String after;
    @Option(names = "--newest-first", description = "the newest windows first (order=desc); pass it with --after too")
    boolean newestFirst;

    @Override
    public Integer call() {
      StringBuilder q = new StringBuilder();
      param(q, "task", task);
      if (status != null) {
        param(q, "status", String.join(",", status));
      }
      param(q, "from", from);
      param(q, "to", to);
      param(q, "by", byLastChange ? "updated" : null);
      param(q, "limit", limit == null ? null : limit.toString());
      param(q, "after", after);
      param(q, "order", newestFirst ? "desc" : null);
      ApiClient.Answer a = api().get("/api/windows" + q);
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode body = a.json();
      printWindows(out(), body.path("windows"));
      String next = text(body, "next");
      if (next != null) {
        out().println("more: almanac windows ... " + (newestFirst ? "--newest-first " : "")
            + (byLastChange ? "--by-last-change " : "") + "--after " + next);
      }
      out().flush();
      return EXIT_OK;
    }

    private static void param(StringBuilder q, String name, String value) {
      if (value != null) {
        q.append(q.length() == 0 ? '?' : '&').append(name).append('=').append(ApiClient.enc(value));
      }
    }
  }

  /** {@code queue}: the intervention queue. */
  @Command(name = "queue", description = {"The intervention queue: FINAL_FAILED windows of every task (or of --task T), waiting for",
      "retry or resolve; act on all of them with retry --all [--task T] --yes or resolve --all ... --note N --yes."})
  static final class Queue extends ApiCommand {
    @Option(names = "--task", paramLabel = "T",
        description = "only this task's windows (the queue is read whole and filtered here)")
    String task;

    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/queue");
      JsonNode ws = a.json().path("windows");
      if (task != null) {
        com.fasterxml.jackson.databind.node.ArrayNode mine = ApiClient.JSON.createArrayNode();
        ws.forEach(w -> {
          if (task.equals(text(w, "task"))) {
            mine.add(w);
          }
        });
        ws = mine;
      }
      if (json()) {
        out().println(task == null ? a.body() : ApiClient.JSON.createObjectNode().set("windows", ws).toString());
        out().flush();
        return EXIT_OK;
      }
      if (ws.isEmpty()) {
        out().println("intervention queue" + (task == null ? "" : " of task " + task) + ": empty");
        out().flush();
      } else {
        printWindows(out(), ws);
      }
      return EXIT_OK;
    }
  }
}

package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_BAD_INPUT;
import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.EXIT_REFUSED;
import static io.almanac.samples.AlmanacCli.noteBody;
import static io.almanac.samples.AlmanacCli.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.samples.AlmanacCli.ApiCommand;
import io.almanac.samples.AlmanacCli.TaskCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The actions on windows over the HTTP API (they need the token): {@code retry}, {@code resolve}
 * and {@code cancel} (one window, or a bulk cancel), with {@code --expect}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class WindowActionCommands {

  private WindowActionCommands() {}

  /** The --expect option's description, shared by retry, resolve and cancel. */
  static final String EXPECT = "act only if the window is still at this version (its ETag, e.g. 7) or status (e.g. "
      + "FINAL_FAILED); else refused (exit 1), nothing changed";

  /**
   * The If-Match of an action on one window that expects {@code expect}: a version as is; a status
   * checked against the window read now, then its version (so the node refuses the action if the
   * window moves on before it arrives).
   *
   * @return the If-Match value, or null when nothing is expected
   */
  static String ifMatch(ApiCommand c, String task, String window, String expect) {
    if (expect == null) {
      return null;
    }
    String v = expect.trim();
    if (!v.isEmpty() && v.length() <= 18 && v.chars().allMatch(Character::isDigit)) {
      return "\"" + Long.parseLong(v) + "\"";
    }
    io.almanac.InstanceStatus status;
    try {
      status = io.almanac.InstanceStatus.valueOf(v.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CliException(EXIT_BAD_INPUT, "almanac: --expect '" + expect + "' is invalid: a window's version (e.g. 7) "
          + "or status (e.g. FINAL_FAILED)");
    }
    JsonNode w = c.api().get(ApiCommand.window(task, window)).json();
    if (!status.name().equals(text(w, "status"))) {
      throw new CliException(EXIT_REFUSED, "almanac: refused: window " + window + " of " + task + " is " + text(w, "status")
          + " (version " + w.path("version").asLong() + "), not " + status + " (--expect): nothing was changed");
    }
    return "\"" + w.path("version").asLong() + "\"";
  }

  /** The options of a bulk retry or resolve (docs/cli.md): the whole queue or a task's part (--all), or a task's range. */
  abstract static class BulkOrOne extends ApiCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "TASK", description = "the task id") String task;
    @Parameters(index = "1", arity = "0..1", paramLabel = "WINDOW",
        description = "the window's key, e.g. 2026-11-29 or 2026-11-29T00:00:00Z") String window;
    @Option(names = "--expect", paramLabel = "VERSION|STATUS", description = "one window: " + EXPECT) String expect;
    @Option(names = "--all", description = "bulk: every window of the intervention queue (of --task T only, with it)")
    boolean all;
    @Option(names = "--task", paramLabel = "T", description = "bulk, with --all: the queue of this task only")
    String queueTask;
    @Option(names = "--dry-run", description = "bulk: only count and list the windows (the default without --yes)")
    boolean dryRun;
    @Option(names = "--yes", description = "bulk: act (without it a bulk action is a dry run)") boolean yes;
    @Option(names = "--expect-count", paramLabel = "N",
        description = "bulk: act only if the set still holds N windows (the count a dry run printed); else refused")
    Integer expectCount;

    /** The action on the one window named. */
    int one(String action, String body) {
      ApiClient.Answer a = api().post(window(task, window) + "/" + action, body, ifMatch(this, task, window, expect));
      if (!printedJson(a)) {
        out().println(task + " " + window + ": " + action + " accepted, now " + text(a.json(), "status"));
        out().flush();
      }
      return EXIT_OK;
    }

    /** Refuses a bulk option on a one-window action, naming it. */
    void oneWindowOnly() {
      if (all || queueTask != null || dryRun || yes || expectCount != null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --all, --task, --dry-run, --yes and --expect-count are for a "
            + "bulk action: leave out WINDOW (" + window + ")");
      }
    }

    /** The queue action of {@code --all}, after checking its options. */
    int queueAction(String action, String note) {
      if (task != null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --all takes the task as --task T, not TASK (" + task + ")");
      }
      if (expect != null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --expect is for one window: use --expect-count N with --all");
      }
      return BulkCommands.queue(this, action, queueTask, new BulkCommands.Bulk(note, dryRun, yes, expectCount));
    }
  }

  /** {@code retry}: one window, a task's range, or the whole queue ({@code --all}). */
  @Command(name = "retry", description = {
      "Starts a new attempt of a FINAL_FAILED, CANCELLED, SKIPPED or MISSED window (needs the token).",
      "TASK without WINDOW: every such window of TASK due in (FROM, TO] (of --status S), in one call.",
      "--all [--task T]: every window of the intervention queue (of task T). Bulk: a dry run without --yes."})
  static final class Retry extends BulkOrOne {
    @Option(names = "--note", description = "why, kept in the journal with the token's name") String note;
    @Option(names = "--from", description = "range: start by due time, excluded (ISO instant)") String from;
    @Option(names = "--to", description = "range: end by due time, included (ISO instant)") String to;
    @Option(names = "--status", description = "range: only these statuses (comma-separated: FINAL_FAILED, CANCELLED, "
        + "SKIPPED, MISSED)") String status;

    @Override
    public Integer call() {
      boolean range = from != null || to != null || status != null;
      if (all) {
        if (range) {
          throw new CliException(EXIT_BAD_INPUT, "almanac: --from, --to and --status are for a task's range: name TASK "
              + "instead of --all");
        }
        return queueAction("retry", note);
      }
      if (task == null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: name TASK WINDOW, TASK with --from/--to/--status, or --all");
      }
      if (window == null) {
        if (expect != null || queueTask != null) {
          throw new CliException(EXIT_BAD_INPUT, "almanac: --expect is for one window and --task for --all: a range "
              + "takes --expect-count N");
        }
        return BulkCommands.range(this, task, from, to, status, new BulkCommands.Bulk(note, dryRun, yes, expectCount));
      }
      oneWindowOnly();
      if (range) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --from, --to and --status are for a range: leave out WINDOW ("
            + window + ")");
      }
      return one("retry", noteBody(note));
    }
  }

  /** {@code resolve}: one window, or the whole queue ({@code --all}). */
  @Command(name = "resolve", description = {
      "Marks a FINAL_FAILED window resolved by hand, with a note (needs the token).",
      "--all [--task T]: every window of the intervention queue (of task T). Bulk: a dry run without --yes."})
  static final class Resolve extends BulkOrOne {
    @Option(names = "--note", description = "what was done, kept in the journal (needed but for a dry run)") String note;

    @Override
    public Integer call() {
      if (all) {
        return queueAction("resolve", note);
      }
      if (task == null || window == null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: name TASK WINDOW, or --all [--task T]");
      }
      oneWindowOnly();
      return one("resolve", ApiClient.JSON.createObjectNode().put("note", required("--note", note)).toString());
    }
  }

  /** {@code cancel}: one window, or (no WINDOW) every window of the task not started yet in a range and of a kind. */
  @Command(name = "cancel", description = {
      "Cancels a pending, running or retry-waiting window, with a reason (needs the token).",
      "Without WINDOW: cancels, in one journal write, every window of TASK that has not started (PENDING,",
      "RETRY_WAIT, WAITING) due in (FROM, TO] whose next attempt is of the --kind; running ones go on."})
  static final class Cancel extends TaskCommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "WINDOW",
        description = "the window's key; leave it out for a bulk cancel") String window;
    @Option(names = "--reason", description = "why, kept in the journal (needed unless --dry-run)") String reason;
    @Option(names = "--from", description = "bulk: range start by due time, excluded (ISO instant)") String from;
    @Option(names = "--to", description = "bulk: range end by due time, included (ISO instant)") String to;
    @Option(names = "--kind", description = "bulk: the run kind of the next attempt: backfill, retry, manual or first")
    String kind;
    @Option(names = "--dry-run", description = "bulk: only list what would be cancelled") boolean dryRun;
    @Option(names = "--expect", paramLabel = "VERSION|STATUS", description = "one window: " + EXPECT) String expect;

    @Override
    public Integer call() {
      if (window == null && expect != null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --expect is for one window's cancel: name WINDOW");
      }
      if (window != null) {
        if (from != null || to != null || kind != null || dryRun) {
          throw new CliException(EXIT_BAD_INPUT, "almanac: --from, --to, --kind and --dry-run are for a bulk cancel: "
              + "leave out WINDOW (" + window + ")");
        }
        String body = ApiClient.JSON.createObjectNode().put("reason", required("--reason", reason)).toString();
        ApiClient.Answer a = api().post(window(task, window) + "/cancel", body, ifMatch(this, task, window, expect));
        if (!printedJson(a)) {
          out().println(task + " " + window + ": cancel accepted, now " + text(a.json(), "status"));
          out().flush();
        }
        return EXIT_OK;
      }
      ObjectNode body = ApiClient.JSON.createObjectNode();
      if (from != null) {
        body.put("from", from);
      }
      if (to != null) {
        body.put("to", to);
      }
      if (kind != null) {
        body.put("kind", kind);
      }
      String why = dryRun ? reason : required("--reason", reason);
      if (why != null) {
        body.put("reason", why); // a dry run may have none: left out, never null (the API refuses a JSON null)
      }
      body.put("dryRun", dryRun);
      ApiClient.Answer a = api().post(task(task) + "/cancel", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println(task + " cancel " + text(r, "range") + (text(r, "kind") == null ? "" : " " + text(r, "kind"))
          + ": " + r.path("cancelled").asInt() + (r.path("dryRun").asBoolean(false)
              ? " windows would be cancelled (dry run: nothing changed)" : " windows cancelled"));
      TextTable t = new TextTable(100, "WINDOW");
      for (JsonNode w : r.path("windows")) {
        t.row(w.asText());
      }
      t.print(out());
      return EXIT_OK;
    }
  }
}

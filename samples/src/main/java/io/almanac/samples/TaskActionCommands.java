package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.noteBody;
import static io.almanac.samples.AlmanacCli.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.samples.AlmanacCli.TaskCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The actions on one task over the HTTP API (they need the token): {@code pause}, {@code resume},
 * {@code run} and {@code backfill}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class TaskActionCommands {

  private TaskActionCommands() {}

  /** An action on one task that takes an optional note, recorded in the journal with who acted. */
  abstract static class NotedTaskCommand extends TaskCommand {
    @Option(names = "--note", description = "why, kept in the journal with the token's name") String note;
  }

  /** {@code pause}. */
  @Command(name = "pause", description = "Pauses a task: it fires no new window until resumed (needs the token).")
  static final class Pause extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/pause", noteBody(note));
      if (!printedJson(a)) {
        out().println(task + ": paused");
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code resume}. */
  @Command(name = "resume", description = "Resumes a paused task (needs the token).")
  static final class Resume extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/resume", noteBody(note));
      if (!printedJson(a)) {
        out().println(task + ": resumed");
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code run}. */
  @Command(name = "run", description = "Runs the task's current window now, as a MANUAL run (needs the token).")
  static final class Run extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/run", noteBody(note));
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println(task + " " + text(r, "window") + ": " + text(r, "decision")
            + (text(r, "reason") == null ? "" : " (" + text(r, "reason") + ")"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code backfill}. */
  @Command(name = "backfill", description = "Runs the task's past windows in (FROM, TO] again where due (needs the token).")
  static final class Backfill extends NotedTaskCommand {
    @Option(names = "--from", required = true, description = "range start, excluded (ISO instant)") String from;
    @Option(names = "--to", required = true, description = "range end, included (ISO instant)") String to;
    @Option(names = "--dry-run", description = "only say what would run") boolean dryRun;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("from", from).put("to", to).put("dryRun", dryRun);
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post(task(task) + "/backfill", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println(task + " backfill " + (text(r, "range") == null ? "(" + from + ", " + to + "]" : text(r, "range"))
          + (r.path("dryRun").asBoolean(false) ? " (dry run: nothing started)" : ""));
      TextTable t = new TextTable(100, "WINDOW", "DECISION", "REASON");
      for (JsonNode w : r.path("windows")) {
        t.row(text(w, "window"), text(w, "decision"), text(w, "reason"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }
}

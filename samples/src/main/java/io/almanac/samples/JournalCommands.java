package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_BAD_INPUT;
import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.text;
import static io.almanac.samples.AlmanacCli.time;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.samples.AlmanacCli.WindowCommand;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The commands that read one window's story from the journal over the HTTP API: {@code why},
 * {@code timeline}, {@code steps} and {@code logs}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class JournalCommands {

  private JournalCommands() {}

  /** {@code why}: why a window ran, did not run or ran late. */
  @Command(name = "why", description = "Why a window ran, did not run, or ran late, in words, from the journal.")
  static final class Why extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/why");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode w = a.json();
      out().println(text(w, "task") + " " + text(w, "window") + ": " + text(w, "status"));
      out().println(text(w, "verdict"));
      TextTable t = new TextTable(200, "AT (LOCAL)", "AT (UTC)", "WHAT HAPPENED");
      for (JsonNode s : w.path("steps")) {
        t.row(time(text(s, "atLocal")), time(text(s, "atUtc")), text(s, "text"));
      }
      if (t.size() > 0) {
        t.print(out());
      }
      out().flush();
      return EXIT_OK;
    }
  }

  /** {@code timeline}: a window's events from the journal. */
  @Command(name = "timeline", description = "A window's events from the journal, in order.")
  static final class Timeline extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/timeline");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(120, "SEQ", "EVENT", "ATT", "AT (LOCAL)", "AT (UTC)", "DETAIL");
      for (JsonNode e : a.json().path("events")) {
        t.row(text(e, "seq"), text(e, "event"), text(e, "attempt"), time(text(e, "atLocal")), time(text(e, "atUtc")),
            text(e, "detail"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code steps}: a window's durable steps, attempt by attempt. */
  @Command(name = "steps", description = {"A window's durable steps (ctx.step) from the journal, attempt by attempt:",
      "RECORDED (the attempt ran it) or REPLAYED (it got the result an earlier attempt recorded)."})
  static final class Steps extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/steps");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode steps = a.json().path("steps");
      if (steps.isEmpty()) {
        out().println(task + " " + window + ": no steps recorded");
        out().flush();
        return EXIT_OK;
      }
      TextTable t = new TextTable(120, "ATT", "STEP", "KIND", "BY", "TOOK", "TOKENS IN/OUT", "COST", "AT (UTC)");
      for (JsonNode s : steps) {
        JsonNode u = s.path("usage");
        boolean used = u.isObject();
        t.row(text(s, "attempt"), text(s, "name"), text(s, "kind"), text(s, "recordedBy"),
            s.path("durationMs").isNumber() ? s.path("durationMs").asLong() + " ms" : "-",
            used ? u.path("tokensIn").asLong() + "/" + u.path("tokensOut").asLong() : "-",
            used ? text(u, "cost") : "-", time(text(s, "atUtc")));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code logs}: what a window's attempts logged, their failures' stack traces, and a running attempt's progress. */
  @Command(name = "logs", description = {"What a window's attempts logged (ctx.log()) and their failures' stack traces, "
      + "from the journal;", "while an attempt runs, its progress and latest lines."})
  static final class Logs extends WindowCommand {
    @Option(names = "--attempt", paramLabel = "N", description = "only this attempt's log (an integer >= 1)")
    Integer attempt;

    @Override
    public Integer call() {
      if (attempt != null && attempt < 1) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --attempt '" + attempt + "' is invalid: must be an attempt's "
            + "number, an integer >= 1");
      }
      ApiClient.Answer a = api().get(window(task, window) + "/logs" + (attempt == null ? "" : "?attempt=" + attempt));
      if (printedJson(a)) {
        return EXIT_OK;
      }
      PrintWriter out = out();
      JsonNode progress = null;
      try {
        JsonNode w = api().get(window(task, window)).json();
        progress = w == null ? null : w.get("progress");
      } catch (CliException e) {
        // the journal's logs are what was asked; a window the task no longer holds has no live progress
      }
      if (progress != null && progress.isObject() && (attempt == null || attempt == progress.path("attempt").asInt())) {
        String fraction = progress.hasNonNull("fraction")
            ? Math.round(progress.get("fraction").asDouble() * 100) + "%" : "no progress said";
        out.println("attempt " + text(progress, "attempt") + " running: " + fraction
            + (text(progress, "text") == null ? "" : ", " + text(progress, "text")) + " (at " + utc(text(progress, "at"))
            + " UTC)");
        for (JsonNode l : progress.path("latest")) {
          out.println("  " + line(l));
        }
      }
      JsonNode attempts = a.json().path("attempts");
      if (attempts.isEmpty() && (progress == null || !progress.isObject())) {
        out.println("no log lines or stack traces recorded for " + task + " " + window
            + (attempt == null ? "" : " attempt " + attempt) + " (an attempt that logged nothing and did not throw "
            + "leaves none)");
      }
      for (JsonNode at : attempts) {
        out.println("attempt " + text(at, "attempt") + " (ended " + utc(text(at, "at")) + " UTC):");
        for (JsonNode l : at.path("lines")) {
          out.println("  " + line(l));
        }
        if (text(at, "dropped") != null) {
          out.println("  ... " + text(at, "dropped"));
        }
        if (text(at, "stackTrace") != null) {
          out.println("  stack trace:");
          for (String s : text(at, "stackTrace").split("\n")) {
            out.println("    " + s);
          }
        }
      }
      out.flush();
      return EXIT_OK;
    }

    private static String line(JsonNode l) {
      return utc(text(l, "at")) + " " + text(l, "level") + " " + text(l, "text");
    }

    /** An instant as the table's time, without its Z (the header says UTC). */
    private static String utc(String iso) {
      String t = time(iso);
      return t != null && t.endsWith("Z") ? t.substring(0, t.length() - 1) : t;
    }
  }
}

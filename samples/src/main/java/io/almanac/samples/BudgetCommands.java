package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.samples.AlmanacCli.ApiCommand;
import io.almanac.samples.AlmanacCli.TaskCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The commands on budgets and resource pools over the HTTP API (docs/budgets.md, docs/pools.md):
 * {@code raise-budget}, {@code pools} and {@code raise-pool-budget}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class BudgetCommands {

  private BudgetCommands() {}

  /** {@code raise-budget}: raises a task's budget for today (docs/budgets.md). */
  @Command(name = "raise-budget", description = "Raises a task's budget for today, in its zone, by an amount, with a note "
      + "(needs the token); prints the day's cost and its new limit.")
  static final class RaiseBudget extends TaskCommand {
    @Option(names = "--amount", required = true, paramLabel = "AMOUNT", description = "how much to raise today's limit by, "
        + "e.g. 2.50") String amount;
    @Option(names = "--note", description = "why, kept in the journal") String note;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("amount", required("--amount", amount));
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post(task(task) + "/raise-budget", body.toString());
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println(task + " budget for " + text(r, "day") + " (" + text(r, "zone") + "): limit " + text(r, "limit")
            + ", cost so far " + text(r, "cost"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code pools}: the resource pools, with their holds and today's cost and budget (docs/pools.md). */
  @Command(name = "pools", description = "The resource pools: limits, holds across the cluster, and today's cost against "
      + "the budget (each pool's day in its zone).")
  static final class Pools extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/pools");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(60, "POOL", "IN USE", "MAX", "RATE", "DAY", "COST", "LIMIT", "EXHAUSTED");
      for (JsonNode p : a.json().path("pools")) {
        t.row(text(p, "pool"), text(p, "inUse") == null ? "?" : text(p, "inUse"), text(p, "maxConcurrent"),
            text(p, "rate") == null ? "-" : text(p, "rate"), text(p, "day") + " " + text(p, "zone"), text(p, "cost"),
            text(p, "limit") == null ? "-" : text(p, "limit"), String.valueOf(p.path("exhausted").asBoolean(false)));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code raise-pool-budget}: raises a resource pool's budget for today (docs/budgets.md). */
  @Command(name = "raise-pool-budget", description = "Raises a resource pool's budget for today, in its zone, by an "
      + "amount, with a note (needs the token); prints the day's cost and its new limit.")
  static final class RaisePoolBudget extends ApiCommand {
    @Parameters(index = "0", paramLabel = "POOL", description = "the pool") String pool;
    @Option(names = "--amount", required = true, paramLabel = "AMOUNT", description = "how much to raise today's limit by, "
        + "e.g. 2.50") String amount;
    @Option(names = "--note", description = "why, kept in the pool's journal with who raised it") String note;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("amount", required("--amount", amount));
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post("/api/pools/" + ApiClient.enc(pool) + "/raise-budget", body.toString());
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println("pool " + pool + " budget for " + text(r, "day") + " (" + text(r, "zone") + "): limit "
            + text(r, "limit") + ", cost so far " + text(r, "cost"));
        out().flush();
      }
      return EXIT_OK;
    }
  }
}

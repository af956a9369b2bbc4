package io.almanac.persistence.crash;

import io.almanac.Almanac;
import io.almanac.DailyUsage;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowSpec;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The budget tasks of {@link CrashNode}, registered by a {@code REGISTER-BUDGET} line (see
 * PoolKillNineTest): tasks {@code budget-<cents>c-<name>} every second (one window per firing, UTC),
 * whose job, {@code spend}, reports usage with its success: 100 tokens in, 10 out, and a cost of
 * {@code <cents>} hundredths (read from the task's id, so a restarted node's job spends the same).
 * Its lines: {@code BUDGET-JOB END <task> <window> <attempt> <cost>} just before it returns.
 *
 * <ul>
 *   <li>{@code REGISTER-BUDGET <task> <budget per day>[ <task> <budget> ...]} registers the tasks;
 *       answers {@code REGISTERED budget <count>} or {@code REGISTER-FAILED budget <error>};
 *   <li>{@code USAGE <task>} answers {@code USAGE-OF <task> <day> <cost> <attempts> <exhausted>
 *       <windowsSkipped> <tokensIn> <tokensOut>} from {@link Almanac#usage(String)}, or
 *       {@code USAGE-FAILED <task> <error>}.
 * </ul>
 */
final class BudgetNode {

  private BudgetNode() {}

  /** The job's name. */
  static final String JOB = "spend";

  /** The cost an attempt of the task reports: the {@code <cents>} of its id, in hundredths. */
  static BigDecimal costOf(String taskId) {
    String[] f = taskId.split("-");
    if (f.length < 3 || !f[0].equals("budget") || !f[1].endsWith("c")) {
      throw new IllegalArgumentException("a budget task is named budget-<cents>c-<name>, not " + taskId);
    }
    return BigDecimal.valueOf(Long.parseLong(f[1].substring(0, f[1].length() - 1)), 2);
  }

  static CompletionStage<JobResult> job(JobContext ctx, Consumer<String> out) {
    BigDecimal cost = costOf(ctx.taskId());
    out.accept("BUDGET-JOB END " + ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt() + " " + cost.toPlainString());
    return CompletableFuture.completedFuture(JobResult.success("spent " + cost.toPlainString())
        .withUsage(Usage.of("crash-model", 100, 10, cost)));
  }

  static void register(Almanac almanac, String[] f, Consumer<String> out) {
    try {
      List<TaskSpec> specs = new java.util.ArrayList<>();
      for (int i = 1; i + 1 < f.length; i += 2) {
        costOf(f[i]);
        specs.add(TaskSpec.builder(f[i]).cron(CrashNode.EVERY_SECOND).window(WindowSpec.PER_FIRING).lease(CrashNode.LEASE)
            .budgetPerDay(new BigDecimal(f[i + 1])).job(JOB).build());
      }
      almanac.registerAll(specs).whenComplete((d, e) -> out.accept(e != null ? "REGISTER-FAILED budget " + e
          : "REGISTERED budget " + specs.size()));
    } catch (RuntimeException e) {
      out.accept("REGISTER-FAILED budget " + e);
    }
  }

  static void usage(Almanac almanac, String task, Consumer<String> out) {
    almanac.usage(task).whenComplete((DailyUsage u, Throwable e) -> {
      if (e != null) {
        out.accept("USAGE-FAILED " + task + " " + e);
      } else {
        out.accept("USAGE-OF " + task + " " + u.day() + " " + u.cost().toPlainString() + " " + u.attempts() + " " + u.exhausted()
            + " " + u.windowsSkipped() + " " + u.tokensIn() + " " + u.tokensOut());
      }
    });
  }
}

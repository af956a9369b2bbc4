package io.almanac.persistence.crash;

import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The step tasks of {@link CrashNode} ({@code --tasks steps}, see StepKillTest): {@code agent-1..3},
 * every 2 s (each at its own offset), one window per firing, overlap SKIP, retried at once up to 3
 * times (so a retry spent by an interruption would show), whose job runs three durable steps:
 *
 * <ol>
 *   <li>{@code gather}: appends {@code gather <task> <window> <attempt>} to the steps file (forced to
 *       disk) and works {@value #GATHER_MILLIS} ms;
 *   <li>{@code draft}: appends {@code draft ...}, prints {@code STEP-START draft <task> <window>
 *       <attempt>} (the test kills the node on that line, so step 1 is recorded and step 2 runs) and
 *       works {@value #DRAFT_MILLIS} ms;
 *   <li>{@code publish}: appends {@code publish ...}.
 * </ol>
 *
 * Each line is written only when a step's body really runs: a step the journal recorded and an
 * attempt replayed adds none.
 */
final class StepNode {

  private StepNode() {}

  /** The job's name. */
  static final String JOB = "three-steps";

  /** How long gather works. */
  static final long GATHER_MILLIS = 100;

  /** How long the draft works. */
  static final long DRAFT_MILLIS = 1500;

  /** The tasks. */
  static final List<TaskSpec> TASKS = List.of(task(1, 0), task(2, 1), task(3, 0));

  private static TaskSpec task(int n, int second) {
    return TaskSpec.builder("agent-" + n).cron(second + "/2 * * * * ? UTC").window(WindowSpec.PER_FIRING)
        .lease(CrashNode.LEASE).overlap(OverlapPolicy.SKIP).retry(RetryPolicy.immediate().withMaxRetries(3)).job(JOB)
        .build();
  }

  /**
   * @param effects the effects file's path
   * @return the steps file's path, beside it
   */
  static Path stepsFile(Path effects) {
    return effects.resolveSibling("steps.txt");
  }

  static CompletionStage<JobResult> job(JobContext ctx, CrashNode.EffectsFile file, Consumer<String> out) throws Exception {
    String id = ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt();
    await(ctx.step("gather", String.class, () -> {
      file.append("gather " + id);
      work(ctx, GATHER_MILLIS);
      return CompletableFuture.completedFuture("sources of " + ctx.window().value());
    }));
    await(ctx.step("draft", String.class, () -> {
      file.append("draft " + id);
      out.accept("STEP-START draft " + id);
      work(ctx, DRAFT_MILLIS);
      return CompletableFuture.completedFuture("draft of " + ctx.window().value());
    }));
    await(ctx.step("publish", String.class, () -> {
      file.append("publish " + id);
      return CompletableFuture.completedFuture("published");
    }));
    return CompletableFuture.completedFuture(JobResult.success("three steps done"));
  }

  private static void work(JobContext ctx, long millis) {
    for (long waited = 0; waited < millis; waited += 50) {
      if (ctx.isCancelled()) {
        throw new CancellationException("cancelled");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted");
      }
    }
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }
}

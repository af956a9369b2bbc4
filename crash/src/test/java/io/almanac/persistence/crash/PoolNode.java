package io.almanac.persistence.crash;

import io.almanac.Almanac;
import io.almanac.CatchUpPolicy;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The pool tasks of {@link CrashNode} ({@code --tasks pool}: the node registers nothing at start; the
 * test registers them through one node with a {@code REGISTER-POOL} line, once every node is READY).
 * Their job, {@code pool}, prints its own start and end, stamped with the node and the wall clock
 * (every node runs on this machine, so the instants of all nodes compare):
 *
 * <pre>
 * POOL-JOB START &lt;task&gt; &lt;window&gt; &lt;attempt&gt; &lt;node&gt; &lt;instant&gt;
 * POOL-JOB END &lt;task&gt; &lt;window&gt; &lt;attempt&gt; &lt;node&gt; &lt;instant&gt;
 * </pre>
 *
 * The START line is printed when the job begins (the attempt was admitted through its pools), the
 * END line just before it returns its result (its pool hold is released only after that), so the
 * interval between them lies inside the attempt's hold of its pools.
 *
 * <p>{@code REGISTER-POOL <prefix> <count> <firstDueEpochMs> <spacingMs> <perDue> <pool[,pool]> [noretry]}
 * registers {@code count} one-shot tasks {@code <prefix>-1..count}, {@code perDue} of them due at each
 * of {@code firstDue, firstDue + spacing, ...} (whole seconds, UTC), each naming the pools; per
 * firing, overlap ALLOW, retried at once (an attempt orphaned by a kill times out with its lease; with
 * {@code noretry} not retried: its window fails for good) and caught up. It answers {@code REGISTERED <prefix> <count>} once the registration is acknowledged, or
 * {@code REGISTER-FAILED <prefix> <error>}.
 */
final class PoolNode {

  private PoolNode() {}

  /** The job's name. */
  static final String JOB = "pool";

  /**
   * The pool job: works {@code minMs..maxMs} (on a timer, not a thread), then succeeds.
   *
   * @param ctx the attempt
   * @param node this node's name, printed with each line
   * @param minMs shortest work
   * @param maxMs longest work
   * @param out where a line goes (stdout)
   * @return the result
   */
  static CompletionStage<JobResult> job(JobContext ctx, String node, long minMs, long maxMs, Consumer<String> out) {
    String id = ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt() + " " + node;
    out.accept("POOL-JOB START " + id + " " + Instant.now());
    long ms = minMs >= maxMs ? minMs : ThreadLocalRandom.current().nextLong(minMs, maxMs + 1);
    return CompletableFuture.supplyAsync(() -> {
      out.accept("POOL-JOB END " + id + " " + Instant.now());
      return JobResult.success("worked " + ms + " ms");
    }, CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
  }

  /** The one-shot cron of a whole second (with its year: it fires once). */
  static String cronAt(Instant at) {
    ZonedDateTime z = at.atZone(ZoneOffset.UTC);
    return String.format("%d %d %d %d %d ? %d UTC", z.getSecond(), z.getMinute(), z.getHour(), z.getDayOfMonth(),
        z.getMonthValue(), z.getYear());
  }

  /** The tasks of a REGISTER-POOL line (see the class comment). */
  static List<TaskSpec> tasks(String prefix, int count, Instant firstDue, long spacingMs, int perDue, List<String> pools,
      boolean retried) {
    List<TaskSpec> specs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Instant due = firstDue.plusMillis(spacingMs * (i / perDue));
      specs.add(TaskSpec.builder(prefix + "-" + (i + 1)).cron(cronAt(due)).window(WindowSpec.PER_FIRING)
          .lease(CrashNode.LEASE).overlap(OverlapPolicy.ALLOW)
          .retry(retried ? RetryPolicy.immediate().withMaxRetries(5) : RetryPolicy.DEFAULT)
          .catchUp(CatchUpPolicy.all()).pools(pools).job(JOB).build());
    }
    return specs;
  }

  /** Handles a REGISTER-POOL line; answers on {@code out}. */
  static void register(Almanac almanac, String[] f, Consumer<String> out) {
    String prefix = f[1];
    try {
      List<TaskSpec> specs = tasks(prefix, Integer.parseInt(f[2]), Instant.ofEpochMilli(Long.parseLong(f[3])),
          Long.parseLong(f[4]), Integer.parseInt(f[5]), List.of(f[6].split(",")), f.length < 8 || !f[7].equals("noretry"));
      almanac.registerAll(specs).whenComplete((d, e) -> {
        if (e != null) {
          out.accept("REGISTER-FAILED " + prefix + " " + e);
        } else {
          out.accept("REGISTERED " + prefix + " " + specs.size());
        }
      });
    } catch (RuntimeException e) {
      out.accept("REGISTER-FAILED " + prefix + " " + e);
    }
  }
}

package io.almanac.spring.sample;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.spring.AlmanacJob;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The job {@code report} (named by {@link AlmanacJob}): works for {@code sample.report.duration}
 * (3 s by default), then writes its window's line to the {@link EffectLog} once and succeeds. When
 * the node starts to drain it says so and goes on: it ends within {@code
 * almanac.executor.shutdown-grace}, so its result is recorded before the node stops.
 */
@Component
@AlmanacJob(ReportJob.NAME)
public class ReportJob implements AgentJob {

  /** The job's name. */
  public static final String NAME = "report";

  private static final Logger LOG = LoggerFactory.getLogger(ReportJob.class);

  private final EffectLog log;
  private final Duration duration;

  /**
   * @param log where the line goes
   * @param duration how long a report takes
   */
  public ReportJob(EffectLog log, @Value("${sample.report.duration:3s}") Duration duration) {
    this.log = log;
    this.duration = duration;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) {
    ctx.stopping().thenRun(() -> LOG.info("report {}: the node is draining; finishing the report", ctx.window()));
    CompletableFuture<Void> worked = new CompletableFuture<>();
    CompletableFuture.delayedExecutor(duration.toMillis(), TimeUnit.MILLISECONDS).execute(() -> worked.complete(null));
    return worked.thenCompose(v -> ctx.ledger().once("logged", () -> CompletableFuture.completedFuture(
            log.append(ctx.taskId(), ctx.window().toString(), ctx.attempt()))))
        .thenApply(line -> JobResult.success("logged: " + line));
  }
}

package io.almanac.spring.sample;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.stereotype.Component;

/**
 * The job {@code heartbeat} (its bean name): writes its window's line to the {@link EffectLog},
 * once per window (the effect ledger's key {@code logged}), and succeeds.
 */
@Component("heartbeat")
public class HeartbeatJob implements AgentJob {

  private final EffectLog log;

  /** @param log where the line goes */
  public HeartbeatJob(EffectLog log) {
    this.log = log;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) {
    return ctx.ledger().once("logged", () -> CompletableFuture.completedFuture(
            log.append(ctx.taskId(), ctx.window().toString(), ctx.attempt())))
        .thenApply(line -> JobResult.success("logged: " + line));
  }
}

package io.almanac.samples;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.Usage;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A long agent job of three durable steps, as the demo's {@value #TASK} runs it:
 *
 * <ol>
 *   <li><b>gather</b> ({@code ctx.step}): collects the window's sources (a second of work);
 *   <li><b>draft</b> ({@code ctx.step}, with the model's usage): a long model call (20 s in the demo),
 *       heartbeating its lease; the first attempt of every window fails near its end ("the model
 *       timed out"), so the retry shows the recorded {@code gather} replayed, not run again;
 *   <li><b>publish</b>: one outbox line through the window's effect ledger ({@code push:outbox}), at
 *       most once per window.
 * </ol>
 *
 * Each time a step's body really runs it appends a line to {@code <data-dir>/}{@value #CALLS_FILE}
 * ({@code <time> <task> <window> attempt <n>: <step>}): a window's retry or resume adds no second
 * {@code gather} line, and a {@code draft} line only when no attempt recorded the draft yet. Kill
 * the demo while a draft runs and start it again: the window resumes (run kind RESUME) without
 * spending a retry, and {@code bin/almanac steps research-agent <window>} shows what was recorded
 * and replayed, and {@code bin/almanac logs research-agent <window>} each attempt's log and the
 * failed draft's stack trace; the dashboard's window page shows the progress bar while it runs.
 */
public final class ResearchAgentJob implements AgentJob {

  /** The demo's task that runs this job. */
  public static final String TASK = "research-agent";

  /** The file each real run of a step appends a line to, in the data folder. */
  public static final String CALLS_FILE = "agent-calls.log";

  /** The ledger key of the publish. */
  public static final String PUSH_KEY = "push:outbox";

  /** What one draft costs (the stand-in model's usage). */
  public static final BigDecimal DRAFT_COST = new BigDecimal("0.04");

  /**
   * How long the steps take.
   *
   * @param gather gather's work
   * @param draft the draft's model call
   * @param failAfter how far into its draft the first attempt of a window fails
   */
  public record Timing(Duration gather, Duration draft, Duration failAfter) {
    /** The demo's: 1 s, 20 s, failing 5 s in. */
    public static final Timing DEMO = new Timing(Duration.ofSeconds(1), Duration.ofSeconds(20), Duration.ofSeconds(5));
  }

  /** What gather found: the window's sources. */
  public record Sources(List<String> items) {}

  /** The model's draft and what it used. */
  public record Draft(String text, long tokensIn, long tokensOut, BigDecimal cost) {}

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration BEAT = Duration.ofSeconds(4);

  private final Path dataDir;
  private final Outbox outbox;
  private final Clock clock;
  private final Timing timing;

  /**
   * @param dataDir where the calls file and the outbox are
   * @param outbox the outbox the draft is published to
   * @param clock the clock the steps measure their work on (a test's clock moves by hand)
   * @param timing how long the steps take
   */
  public ResearchAgentJob(Path dataDir, Outbox outbox, Clock clock, Timing timing) {
    this.dataDir = dataDir;
    this.outbox = outbox;
    this.clock = clock;
    this.timing = timing;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) throws Exception {
    // Each step's body runs here, on the job's own thread: the steps are awaited in turn.
    ctx.log().info("attempt {} ({}) of window {}", ctx.attempt(), ctx.runKind(), ctx.window().value());
    ctx.progress(0, "gathering sources");
    Sources sources = await(ctx.step("gather", Sources.class, () -> CompletableFuture.completedFuture(gather(ctx))));
    ctx.log().info("{} sources ready", sources.items().size());
    Draft draft = await(ctx.step("draft", Draft.class, () -> CompletableFuture.completedFuture(draft(ctx, sources)),
        d -> Usage.of("demo-model", d.tokensIn(), d.tokensOut(), d.cost())));
    ctx.progress(0.95, "publishing");
    String id = outbox.pushOnce(ctx, PUSH_KEY, "research " + ctx.window() + ": " + draft.text(), WAIT);
    ctx.log().info("published {}", id);
    ctx.progress(1, "done");
    return CompletableFuture.completedFuture(JobResult.success("published " + id + " (attempt " + ctx.attempt() + ", "
        + ctx.runKind() + ")"));
  }

  private Sources gather(JobContext ctx) {
    called(ctx, "gather");
    ctx.log().info("gather: searching filings, press releases and analyst notes");
    work(ctx, timing.gather(), null, 0, 0.1, "gathering sources");
    return new Sources(List.of("filing " + ctx.window(), "press release " + ctx.window(), "analyst note " + ctx.window()));
  }

  private Draft draft(JobContext ctx, Sources sources) {
    called(ctx, "draft");
    ctx.log().info("draft: asking the model about {} sources", sources.items().size());
    Duration failAt = ctx.attempt() == 1 ? timing.failAfter() : null;
    work(ctx, timing.draft(), failAt, 0.1, 0.9, "drafting with the model");
    ctx.log().info("draft: the model answered");
    return new Draft("summary of " + sources.items().size() + " sources for " + ctx.window(), 24_000, 1_800, DRAFT_COST);
  }

  /**
   * Works for {@code time} on the job's clock, heartbeating, stopping when cancelled, failing at
   * {@code failAt}; its progress goes from {@code from} to {@code to} of the job.
   */
  private void work(JobContext ctx, Duration time, Duration failAt, double from, double to, String doing) {
    Instant start = clock.instant();
    Instant nextBeat = start.plus(BEAT);
    while (true) {
      Instant now = clock.instant();
      Duration done = Duration.between(start, now);
      if (failAt != null && done.compareTo(failAt) >= 0) {
        throw new IllegalStateException("the model timed out after " + failAt.toSeconds()
            + " s (simulated: the first draft of every window fails)");
      }
      if (done.compareTo(time) >= 0) {
        return;
      }
      double part = time.isZero() ? 1 : Math.min(1, (double) done.toMillis() / time.toMillis());
      ctx.progress(from + (to - from) * part, doing);
      if (ctx.isCancelled()) {
        throw new CancellationException("cancelled");
      }
      if (!now.isBefore(nextBeat)) {
        ctx.heartbeat();
        nextBeat = now.plus(BEAT);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted");
      }
    }
  }

  /** One line per real run of a step, so what a retry or a resume did not run again shows. */
  private void called(JobContext ctx, String step) {
    String line = clock.instant() + " " + ctx.taskId() + " " + ctx.window() + " attempt " + ctx.attempt() + ": " + step
        + "\n";
    try {
      Files.createDirectories(dataDir);
      Files.writeString(dataDir.resolve(CALLS_FILE), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
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

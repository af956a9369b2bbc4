package io.almanac.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.AgentJob;
import io.almanac.CatchUpPolicy;
import io.almanac.Condition;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowSpec;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's second-level tasks and their jobs, registered from Java (the daily digest is declared
 * in {@code application.conf}). Within a minute of a start they show each thing Almanac does with
 * a window:
 *
 * <table>
 *   <caption>The demo tasks</caption>
 *   <tr><th>task</th><th>cron</th><th>what it shows</th></tr>
 *   <tr><td>heartbeat-ok</td><td>every 10 s</td><td>a quick success (and one outbox line per window)</td></tr>
 *   <tr><td>slow-report</td><td>every 5 s</td><td>a 12 s job: the windows that fire meanwhile are SKIPPED
 *       (PREVIOUS_RUNNING)</td></tr>
 *   <tr><td>flaky-sync</td><td>every 20 s</td><td>the first attempt pushes, then fails; the retry 2 s later
 *       succeeds without pushing again (the effect ledger)</td></tr>
 *   <tr><td>always-broken</td><td>every 30 s</td><td>fails, is retried once, then FINAL_FAILED: intervention
 *       queue and alert</td></tr>
 * </table>
 *
 * Each firing is its own window ({@link WindowSpec#PER_FIRING}, keyed by the firing instant). The
 * zones differ only to show local and UTC times side by side.
 *
 * <p>The field report's e-commerce chain ({@link #ecommerceTasks()}): {@code order-export} at 00:30
 * Asia/Shanghai every day, and {@code daily-report}, which waits for that day's export to succeed
 * (a dependency, same window) and for the payment provider's settlement file (the condition {@value
 * #SETTLEMENT_FILE_ARRIVED}), are declared in application.conf. Their compressed-time twins, {@code
 * order-export-1m} and {@code daily-report-1m}, make every minute a "day": the export fails in odd
 * minutes, so the report of an odd minute is WAITING and then SKIPPED with DEPENDENCY_NOT_MET after
 * its 20 s deadline, while the report of an even minute is released as soon as the export succeeded
 * and the settlement file is there, and runs.
 *
 * <p>The long agent job, {@value ResearchAgentJob#TASK} ({@link #longJobTasks()}, registered from
 * Java): every minute, three durable steps (gather, a 20 s draft that fails once per window, publish
 * through the ledger); its retry replays gather, and a restart during the draft resumes the window
 * without spending a retry (see {@link ResearchAgentJob}).
 *
 * <p>The agent-job features, declared in application.conf ({@code almanac.pools}, {@code
 * almanac.calendars} and four tasks) with their jobs here:
 *
 * <table>
 *   <caption>The agent-job tasks</caption>
 *   <tr><th>task</th><th>cron</th><th>what it shows</th></tr>
 *   <tr><td>model-call</td><td>every 5 s</td><td>in the shared pool {@value #LLM_POOL} (2 at once, 4 starts per
 *       10 s); every {@value #THROTTLE_EVERY}th call is THROTTLED by the "provider": the pool pauses, the
 *       window is tried again without counting a retry</td></tr>
 *   <tr><td>token-spender</td><td>every 10 s</td><td>in the pool too; reports usage costing 0.01 per run against a
 *       budget of 0.03 per day: after three runs the day's further windows are SKIPPED (BUDGET_EXHAUSTED),
 *       with one alert</td></tr>
 *   <tr><td>late-report</td><td>every 30 s</td><td>an 8 s job with a 4 s deadline: DEADLINE_MISSED and an alert
 *       while it runs; it then succeeds, late</td></tr>
 *   <tr><td>holiday-check</td><td>every 15 s</td><td>names the calendar {@value #HOLIDAYS}, to which DemoNode adds
 *       the day it starts on ({@link #withStartDayHoliday}): that day's windows are SKIPPED (EXCLUDED)</td></tr>
 * </table>
 */
public final class DemoTasks {

  /** The field report's daily digest, declared in application.conf. */
  public static final String DAILY_DIGEST = "daily-digest";
  /** A quick job that succeeds. */
  public static final String HEARTBEAT_OK = "heartbeat-ok";
  /** A job longer than its interval. */
  public static final String SLOW_REPORT = "slow-report";
  /** A job whose first attempt of each window fails. */
  public static final String FLAKY_SYNC = "flaky-sync";
  /** A job that always fails. */
  public static final String ALWAYS_BROKEN = "always-broken";

  /** The field report's order export, 00:30 Asia/Shanghai daily, declared in application.conf. */
  public static final String ORDER_EXPORT = "order-export";
  /** The report that depends on it and on the settlement file, declared in application.conf. */
  public static final String DAILY_REPORT = "daily-report";
  /** The order export in compressed time: every minute is a day; odd minutes fail. */
  public static final String ORDER_EXPORT_FAST = "order-export-1m";
  /** The daily report in compressed time: depends on {@link #ORDER_EXPORT_FAST}, waits at most 20 s. */
  public static final String DAILY_REPORT_FAST = "daily-report-1m";
  /** The condition both reports wait for: the window's settlement file is in the data folder. */
  public static final String SETTLEMENT_FILE_ARRIVED = "settlement-file-arrived";
  /** How long a compressed-time report waits for its export and the settlement file. */
  public static final Duration FAST_REPORT_WAIT = Duration.ofSeconds(20);

  /** The resource pool standing for a model provider's quota (application.conf: almanac.pools.llm). */
  public static final String LLM_POOL = "llm";
  /** A model call in the {@link #LLM_POOL} pool that the provider throttles now and then. */
  public static final String MODEL_CALL = "model-call";
  /** A job in the {@link #LLM_POOL} pool that reports usage against a small budget per day. */
  public static final String TOKEN_SPENDER = "token-spender";
  /** A job longer than its deadline. */
  public static final String LATE_REPORT = "late-report";
  /** A task whose windows of the demo's start day are in an exclusion calendar. */
  public static final String HOLIDAY_CHECK = "holiday-check";
  /** The exclusion calendar holiday-check names (application.conf: almanac.calendars.demo-holidays). */
  public static final String HOLIDAYS = "demo-holidays";
  /** The zone holiday-check's cron is in, and so the zone its calendar's dates are read in. */
  public static final java.time.ZoneId HOLIDAY_ZONE = ZoneOffset.UTC;
  /** Every this many model calls (counted over all of model-call's attempts) the provider throttles. */
  public static final int THROTTLE_EVERY = 4;
  /** How long a throttled model call asks to wait (its Retry-After). */
  public static final Duration THROTTLE_WAIT = Duration.ofSeconds(8);
  /** What one run of token-spender costs (its budget per day, in application.conf, is 0.03). */
  public static final BigDecimal TOKEN_SPENDER_COST = new BigDecimal("0.01");

  /** The ledger key of the demo jobs' outbox pushes. */
  public static final String PUSH_KEY = "push:outbox";

  /**
   * Leases for the demo jobs: at least 30 s, at most 2 min (the ceiling until 20 durations are
   * known), so that nothing here times out unless it hangs or its node died.
   */
  public static final LeasePolicy DEMO_LEASE =
      LeasePolicy.builder().floor(Duration.ofSeconds(30)).ceiling(Duration.ofMinutes(2)).factor(1.5).minSamples(20).build();

  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * How long the jobs take.
   *
   * @param quick heartbeat-ok's and always-broken's work
   * @param model the digest's stand-in model
   * @param slow slow-report's work, measured on Almanac's clock (a test moves it by hand)
   * @param late late-report's work, measured on Almanac's clock
   */
  public record Timing(Duration quick, Duration model, Duration slow, Duration late) {
    /** The demo's: 0.3 s, 1.5 s, 12 s, 8 s. */
    public static final Timing DEMO = new Timing(Duration.ofMillis(300), Duration.ofMillis(1500), Duration.ofSeconds(12),
        Duration.ofSeconds(8));

    /**
     * With late-report's 8 s.
     *
     * @param quick heartbeat-ok's and always-broken's work
     * @param model the digest's stand-in model
     * @param slow slow-report's work
     */
    public Timing(Duration quick, Duration model, Duration slow) {
      this(quick, model, slow, Duration.ofSeconds(8));
    }
  }

  private DemoTasks() {}

  /** @return the second-level demo tasks, in display order */
  public static List<TaskSpec> secondLevelTasks() {
    return List.of(
        TaskSpec.builder(HEARTBEAT_OK)
            .cron("*/10 * * * * ? Europe/Berlin")
            .window(WindowSpec.PER_FIRING)
            .lease(DEMO_LEASE)
            .job(HEARTBEAT_OK)
            .description("quick job, every 10 s: succeeds and pushes one outbox line per window")
            .build(),
        TaskSpec.builder(SLOW_REPORT)
            .cron("*/5 * * * * ? America/New_York")
            .window(WindowSpec.PER_FIRING)
            .overlap(OverlapPolicy.SKIP)
            .lease(DEMO_LEASE)
            .job(SLOW_REPORT)
            .description("12 s job fired every 5 s: windows firing while it runs are SKIPPED (PREVIOUS_RUNNING)")
            .build(),
        TaskSpec.builder(FLAKY_SYNC)
            .cron("5/20 * * * * ? Asia/Shanghai")
            .window(WindowSpec.PER_FIRING)
            .retry(RetryPolicy.delayed(Duration.ofSeconds(2)).withMaxRetries(3))
            .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofMinutes(2)))
            .lease(DEMO_LEASE)
            .job(FLAKY_SYNC)
            .description("every 20 s: attempt 1 pushes then fails, the retry 2 s later succeeds without a second push")
            .build(),
        TaskSpec.builder(ALWAYS_BROKEN)
            .cron("15/30 * * * * ? UTC")
            .window(WindowSpec.PER_FIRING)
            .retry(RetryPolicy.delayed(Duration.ofSeconds(1), Duration.ofSeconds(2)).withMaxRetries(1))
            .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofMinutes(2)))
            .lease(DEMO_LEASE)
            .job(ALWAYS_BROKEN)
            .description("every 30 s: always fails; retried once, then FINAL_FAILED in the intervention queue")
            .build());
  }

  /**
   * The long agent job: {@value ResearchAgentJob#TASK}, every minute (UTC), one window per firing,
   * three durable steps (gather, a 20 s draft that fails once per window, publish through the
   * ledger); retried 2 s after a failure, at most twice; a firing while it runs is SKIPPED.
   *
   * @return research-agent
   */
  public static List<TaskSpec> longJobTasks() {
    return List.of(
        TaskSpec.builder(ResearchAgentJob.TASK)
            .cron("0 * * * * ? UTC")
            .window(WindowSpec.PER_FIRING)
            .overlap(OverlapPolicy.SKIP)
            .retry(RetryPolicy.delayed(Duration.ofSeconds(2)).withMaxRetries(2))
            .lease(DEMO_LEASE)
            .job(ResearchAgentJob.TASK)
            .description("every minute a long agent job of three durable steps: its draft fails once, the retry "
                + "replays gather; a restart during the draft resumes it without spending a retry")
            .build());
  }

  /**
   * The compressed-time e-commerce chain (registered from Java next to the real daily one of
   * application.conf): both fire at second 0 of every minute, one window per firing, so the
   * report's window has the export's key.
   *
   * @return order-export-1m and daily-report-1m
   */
  public static List<TaskSpec> ecommerceTasks() {
    return List.of(
        TaskSpec.builder(ORDER_EXPORT_FAST)
            .cron("0 * * * * ? Asia/Shanghai")
            .window(WindowSpec.PER_FIRING)
            .retry(RetryPolicy.delayed(Duration.ofSeconds(2)).withMaxRetries(1))
            .lease(DEMO_LEASE)
            .job(ORDER_EXPORT_FAST)
            .description("order export, a minute standing for a day: odd minutes fail (retried once, then FINAL_FAILED)")
            .build(),
        TaskSpec.builder(DAILY_REPORT_FAST)
            .cron("0 * * * * ? Asia/Shanghai")
            .window(WindowSpec.PER_FIRING)
            .dependsOn(DependencyTrigger.on(ORDER_EXPORT_FAST).waitAtMost(FAST_REPORT_WAIT))
            .when(ConditionTrigger.named(SETTLEMENT_FILE_ARRIVED).every(Duration.ofSeconds(1))
                .waitAtMost(FAST_REPORT_WAIT))
            .lease(DEMO_LEASE)
            .job(DAILY_REPORT_FAST)
            .description("daily report, a minute standing for a day: WAITING for order-export-1m and the settlement"
                + " file, SKIPPED (DEPENDENCY_NOT_MET) 20 s after the minute when the export failed")
            .build());
  }

  /**
   * The configuration with the given day added to the exclusion calendar {@value #HOLIDAYS} (when
   * application.conf declares it), so that holiday-check's windows of the day the demo starts on are
   * SKIPPED with EXCLUDED at once. A real calendar lists its dates in the configuration only.
   *
   * @param config the demo's configuration
   * @param day the day to exclude, in {@link #HOLIDAY_ZONE}
   * @return the configuration, the calendar's dates with the day
   */
  public static Config withStartDayHoliday(Config config, LocalDate day) {
    String path = "almanac.calendars." + HOLIDAYS + ".dates";
    if (!config.hasPath(path)) {
      return config;
    }
    List<String> dates = new ArrayList<>(config.getStringList(path));
    if (!dates.contains(day.toString())) {
      dates.add(day.toString());
    }
    return ConfigFactory.parseMap(Map.of(path, dates)).withFallback(config);
  }

  /**
   * The conditions of the demo's tasks, by name.
   *
   * @param dataDir the demo's data folder
   * @return {@value #SETTLEMENT_FILE_ARRIVED}: the polled window's settlement file exists
   */
  public static Map<String, Condition> conditions(Path dataDir) {
    return Map.of(SETTLEMENT_FILE_ARRIVED, ctx -> CompletableFuture.completedFuture(
        Files.exists(OrderExportJob.settlementFile(dataDir, ctx.window().value()))));
  }

  /**
   * The jobs of the demo, by the names the tasks use, the digest included.
   *
   * @param dataDir where the outbox and the digests are written
   * @param clock Almanac's clock (slow-report measures its 12 s and late-report its 8 s on it)
   * @param timing how long the jobs take
   * @return job name to job
   */
  public static Map<String, AgentJob> jobs(Path dataDir, Clock clock, Timing timing) {
    Outbox outbox = Outbox.in(dataDir, clock);
    Map<String, AgentJob> jobs = new LinkedHashMap<>();
    jobs.put(NewsDigestJob.class.getName(), new NewsDigestJob(dataDir, timing.model()));
    jobs.put(HEARTBEAT_OK, ctx -> heartbeatOk(ctx, outbox, timing));
    jobs.put(SLOW_REPORT, ctx -> slowReport(ctx, clock, timing));
    jobs.put(FLAKY_SYNC, ctx -> flakySync(ctx, outbox));
    jobs.put(ALWAYS_BROKEN, ctx -> alwaysBroken(ctx, timing));
    jobs.put(OrderExportJob.class.getName(), new OrderExportJob(dataDir, false));
    jobs.put(DailyReportJob.class.getName(), new DailyReportJob(dataDir));
    jobs.put(ORDER_EXPORT_FAST, new OrderExportJob(dataDir, true));
    jobs.put(DAILY_REPORT_FAST, new DailyReportJob(dataDir));
    AtomicLong modelCalls = new AtomicLong();
    jobs.put(MODEL_CALL, ctx -> modelCall(ctx, modelCalls, timing));
    jobs.put(TOKEN_SPENDER, ctx -> tokenSpender(ctx, timing));
    jobs.put(LATE_REPORT, ctx -> lateReport(ctx, clock, timing));
    jobs.put(HOLIDAY_CHECK, ctx -> holidayCheck(ctx, timing));
    jobs.put(ResearchAgentJob.TASK, new ResearchAgentJob(dataDir, outbox, clock, ResearchAgentJob.Timing.DEMO));
    return jobs;
  }

  /**
   * A call to the model provider: every {@value #THROTTLE_EVERY}th call the provider answers 429 with
   * a Retry-After of {@link #THROTTLE_WAIT}, and the job says so ({@link JobResult#throttled}): the
   * pool pauses and the window is tried again after the wait, without counting a retry.
   */
  private static CompletionStage<JobResult> modelCall(JobContext ctx, AtomicLong calls, Timing timing) throws Exception {
    long call = calls.incrementAndGet();
    work(ctx, timing.model());
    if (call % THROTTLE_EVERY == 0) {
      return done(JobResult.throttled(THROTTLE_WAIT));
    }
    return done(JobResult.success("model answered (call " + call + ", attempt " + ctx.attempt() + ")")
        .withUsage(Usage.of("demo-model", 900, 150, new BigDecimal("0.002"))));
  }

  /** A job that spends {@link #TOKEN_SPENDER_COST} a run and says so ({@link JobResult#withUsage}). */
  private static CompletionStage<JobResult> tokenSpender(JobContext ctx, Timing timing) throws Exception {
    work(ctx, timing.quick());
    return done(JobResult.success("summarised the window's documents")
        .withUsage(Usage.of("demo-model", 12_000, 1_500, TOKEN_SPENDER_COST)));
  }

  private static CompletionStage<JobResult> lateReport(JobContext ctx, Clock clock, Timing timing) throws Exception {
    Instant start = clock.instant();
    onClock(ctx, clock, timing.late());
    return done(JobResult.success("report built in " + Duration.between(start, clock.instant()).toSeconds()
        + " s (past its deadline)"));
  }

  private static CompletionStage<JobResult> holidayCheck(JobContext ctx, Timing timing) throws Exception {
    work(ctx, timing.quick());
    return done(JobResult.success("a working day: checked " + ctx.window()));
  }

  private static CompletionStage<JobResult> heartbeatOk(JobContext ctx, Outbox outbox, Timing timing) throws Exception {
    work(ctx, timing.quick());
    String id = outbox.pushOnce(ctx, PUSH_KEY, "ping from " + ctx.taskId(), WAIT);
    return done(JobResult.success("pong, pushed " + id));
  }

  private static CompletionStage<JobResult> slowReport(JobContext ctx, Clock clock, Timing timing) throws Exception {
    Instant start = clock.instant();
    onClock(ctx, clock, timing.slow());
    return done(JobResult.success("report built in " + Duration.between(start, clock.instant()).toSeconds() + " s"));
  }

  /** Works until {@code time} has passed on Almanac's clock, heartbeating every 4 s, stopping when cancelled. */
  private static void onClock(JobContext ctx, Clock clock, Duration time) throws Exception {
    Instant start = clock.instant();
    Instant end = start.plus(time);
    Instant nextBeat = start.plus(Duration.ofSeconds(4));
    while (clock.instant().isBefore(end)) {
      if (ctx.isCancelled()) {
        throw new CancellationException("cancelled");
      }
      if (!clock.instant().isBefore(nextBeat)) {
        ctx.heartbeat();
        nextBeat = nextBeat.plus(Duration.ofSeconds(4));
      }
      Thread.sleep(50);
    }
  }

  private static CompletionStage<JobResult> flakySync(JobContext ctx, Outbox outbox) throws Exception {
    boolean pushedBefore = ctx.ledger().recorded(PUSH_KEY).isPresent();
    String id = outbox.pushOnce(ctx, PUSH_KEY, "sync batch of " + ctx.window(), WAIT);
    if (ctx.attempt() == 1) {
      return done(JobResult.failure("pushed " + id + ", then upstream answered 503 (simulated: attempt 1 always fails)"));
    }
    return done(JobResult.success("synced on attempt " + ctx.attempt() + " (" + ctx.runKind() + "); "
        + (pushedBefore ? id + " reused from the ledger, not pushed again" : "pushed " + id)));
  }

  private static CompletionStage<JobResult> alwaysBroken(JobContext ctx, Timing timing) throws Exception {
    work(ctx, timing.quick());
    return done(JobResult.failure("upstream schema changed: field 'price' is missing (simulated, always fails)"));
  }

  /** Works for a while in small steps, stopping when the attempt is cancelled. */
  private static void work(JobContext ctx, Duration time) throws InterruptedException {
    for (long waited = 0; waited < time.toMillis(); waited += 50) {
      if (ctx.isCancelled()) {
        throw new CancellationException("cancelled");
      }
      Thread.sleep(50);
    }
  }

  private static CompletionStage<JobResult> done(JobResult result) {
    return CompletableFuture.completedFuture(result);
  }
}

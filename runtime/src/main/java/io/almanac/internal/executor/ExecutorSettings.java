package io.almanac.internal.executor;

import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import java.time.Duration;

/**
 * Settings of the executor, from {@code almanac.executor} (reference.conf documents each key).
 * INTERNAL API.
 *
 * @param maxConcurrent jobs running at once on this node
 * @param maxConcurrentPerTask jobs of one task running at once on this node
 * @param prefetchPerSlot started attempts that may wait for a job slot, per slot at most (0: none);
 *     fewer at the slots' observed pace (see {@code JobPace.ahead})
 * @param prefetchMaxJob no prefetch while a recent or a running job took this long (its own time)
 * @param maxPendingResults results of jobs that ended, reported and not acknowledged by their task yet,
 *     at most: at the bound no attempt is admitted or taken into a slot (at least max-concurrent)
 * @param backlogRate retries and backfills started per second on this node, all tasks together
 * @param backlogBurst backlog starts allowed at once after a quiet period
 * @param backlogRatePerTask retries and backfills of one task started per second
 * @param backlogBurstPerTask backlog starts of one task allowed at once
 * @param checkInterval how often leases are checked and the backlog is drained
 * @param askTimeout how long to wait for a task entity's answer
 * @param reportRetries how often to try to report a result before leaving it to the lease
 * @param reportRetryDelay the pause before the first re-try of a report (growing linearly)
 * @param shutdownGrace how long a stopping node waits for running attempts to end and report before it
 *     records those still running as interrupted ({@code almanac.executor.shutdown-grace})
 * @param stuckAfter how long a cancelled job's thread may take to return before it counts as stuck
 * @param maxStuckJobs stuck jobs a ready node may have
 * @param fenceLease the configuration path of the lease the executor holds while it runs jobs, or
 *     empty for none
 */
public record ExecutorSettings(
    int maxConcurrent,
    int maxConcurrentPerTask,
    int prefetchPerSlot,
    Duration prefetchMaxJob,
    int maxPendingResults,
    double backlogRate,
    int backlogBurst,
    double backlogRatePerTask,
    int backlogBurstPerTask,
    Duration checkInterval,
    Duration askTimeout,
    int reportRetries,
    Duration reportRetryDelay,
    Duration shutdownGrace,
    Duration stuckAfter,
    int maxStuckJobs,
    String fenceLease) {

  private static final String P = "almanac.executor.";

  /** max-pending-results when it is 0: this many times max-concurrent. */
  static final int PENDING_RESULTS_PER_SLOT = 4;

  /** Settings with max-pending-results at its default (4 x max-concurrent). */
  public ExecutorSettings(int maxConcurrent, int maxConcurrentPerTask, int prefetchPerSlot, Duration prefetchMaxJob,
      double backlogRate, int backlogBurst, double backlogRatePerTask, int backlogBurstPerTask, Duration checkInterval,
      Duration askTimeout, int reportRetries, Duration reportRetryDelay, Duration shutdownGrace, Duration stuckAfter,
      int maxStuckJobs, String fenceLease) {
    this(maxConcurrent, maxConcurrentPerTask, prefetchPerSlot, prefetchMaxJob, pendingResults(0, maxConcurrent),
        backlogRate, backlogBurst, backlogRatePerTask, backlogBurstPerTask, checkInterval, askTimeout, reportRetries,
        reportRetryDelay, shutdownGrace, stuckAfter, maxStuckJobs, fenceLease);
  }

  /** max-pending-results as configured: 0 is 4 x max-concurrent (capped at Integer.MAX_VALUE). */
  static int pendingResults(int configured, int maxConcurrent) {
    return configured != 0 ? configured
        : (int) Math.min(Integer.MAX_VALUE, (long) PENDING_RESULTS_PER_SLOT * Math.max(1, maxConcurrent));
  }

  /** Canonical constructor: validates. */
  public ExecutorSettings {
    Settings.atLeast(P + "max-concurrent", maxConcurrent, 1);
    Settings.atLeast(P + "max-concurrent-per-task", maxConcurrentPerTask, 1);
    Settings.atLeast(P + "prefetch-per-slot", prefetchPerSlot, 0);
    if (prefetchPerSlot > 1024) {
      throw new InvalidSpecException(P + "prefetch-per-slot", prefetchPerSlot, "must be at most 1024 (a small multiple "
          + "of max-concurrent: a started attempt beyond the slots is RUNNING without running)");
    }
    Settings.positive(P + "prefetch-max-job", prefetchMaxJob);
    if (maxPendingResults < maxConcurrent) {
      throw new InvalidSpecException(P + "max-pending-results", maxPendingResults, "must be at least max-concurrent ("
          + maxConcurrent + "), or 0 for 4 x max-concurrent: a job's result is pending from its end to its task's "
          + "answer, and each slot's job must be able to end");
    }
    Settings.positive(P + "backlog-rate", backlogRate);
    Settings.atLeast(P + "backlog-burst", backlogBurst, 1);
    Settings.positive(P + "backlog-rate-per-task", backlogRatePerTask);
    Settings.atLeast(P + "backlog-burst-per-task", backlogBurstPerTask, 1);
    Settings.positive(P + "check-interval", checkInterval);
    Settings.positive(P + "ask-timeout", askTimeout);
    Settings.atLeast(P + "report-retries", reportRetries, 1);
    Settings.positive(P + "report-retry-delay", reportRetryDelay);
    Settings.positive(P + "shutdown-grace", shutdownGrace);
    Settings.positive(P + "stuck-after", stuckAfter);
    Settings.atLeast(P + "max-stuck-jobs", maxStuckJobs, 0);
    if (fenceLease == null) {
      throw new InvalidSpecException(P + "fence-lease", null, "must be a lease's configuration path, or empty for none");
    }
  }

  /**
   * The time a coordinated shutdown needs beyond {@code shutdown-grace} to record what still runs as
   * interrupted (one ask to each such attempt's entity) and answer the drain.
   */
  public static final Duration INTERRUPT_MARGIN = Duration.ofSeconds(5);

  /** The coordinated-shutdown phase the drain runs in: its timeout must hold the grace and the margin. */
  public static final String DRAIN_PHASE_TIMEOUT = "pekko.coordinated-shutdown.phases.service-requests-done.timeout";

  /**
   * {@code shutdown-grace}; the key it replaced, {@code drain-timeout}, is refused naming the new one
   * (its meaning changed: what still runs after it is interrupted and resumed, not timed out).
   */
  private static Duration shutdownGrace(Config config) {
    if (config.hasPath(P + "drain-timeout")) {
      throw new InvalidSpecException(P + "drain-timeout", config.getValue(P + "drain-timeout").unwrapped(),
          "was replaced by " + P + "shutdown-grace (default 25s): how long a stopping node waits for running attempts"
              + " before it records those still running as interrupted (resumed at once, no retry spent); rename the key");
    }
    return Settings.durationOf(config, P + "shutdown-grace");
  }

  /**
   * Checks that the drain's coordinated-shutdown phase can hold the grace: a grace longer than the
   * phase's timeout less {@link #INTERRUPT_MARGIN} would be cut short by Pekko, and running jobs
   * would be neither finished nor recorded interrupted.
   *
   * @param config the whole configuration
   * @throws InvalidSpecException naming both keys
   */
  public void checkShutdownPhase(Config config) {
    if (!config.hasPath(DRAIN_PHASE_TIMEOUT)) {
      return;
    }
    Duration phase = config.getDuration(DRAIN_PHASE_TIMEOUT);
    if (shutdownGrace.plus(INTERRUPT_MARGIN).compareTo(phase) > 0) {
      throw new InvalidSpecException(P + "shutdown-grace", shutdownGrace, "must be at most " + DRAIN_PHASE_TIMEOUT
          + " (" + phase + ") less " + INTERRUPT_MARGIN.toSeconds() + "s to record what still runs: raise " + DRAIN_PHASE_TIMEOUT
          + " to at least " + shutdownGrace.plus(INTERRUPT_MARGIN) + " or shorten the grace");
    }
  }

  /**
   * The keys the prefetch replaced, refused naming the new ones: {@code start-ahead} (an absolute
   * count, 4096 by default, that recorded thousands of attempts RUNNING long before a slot took them)
   * and {@code start-ahead-max-job}.
   */
  private static void refuseStartAhead(Config config) {
    if (config.hasPath(P + "start-ahead")) {
      throw new InvalidSpecException(P + "start-ahead", config.getValue(P + "start-ahead").unwrapped(),
          "was replaced by " + P + "prefetch-per-slot (default 4): started attempts that may wait for a job slot, per "
              + "slot, fewer at the slots' observed pace (docs/start-ahead.md); 0 still turns it off; rename the key");
    }
    if (config.hasPath(P + "start-ahead-max-job")) {
      throw new InvalidSpecException(P + "start-ahead-max-job", config.getValue(P + "start-ahead-max-job").unwrapped(),
          "was replaced by " + P + "prefetch-max-job (default 1s, the same meaning): no prefetch while a recent or a "
              + "running job took that long; rename the key");
    }
  }

  /** The fence lease's path: empty, or a configuration block with a lease-class. */
  private static String fenceLease(Config config) {
    String path = Settings.stringOf(config, P + "fence-lease").trim();
    if (!path.isEmpty() && (!config.hasPath(path) || !config.hasPath(path + ".lease-class"))) {
      throw new InvalidSpecException(P + "fence-lease", path, "names no lease configuration (a block with lease-class, "
          + "e.g. almanac.lease.jdbc from almanac-persistence); leave it empty for no fence");
    }
    return path;
  }

  /**
   * @param config the whole configuration
   * @return the validated settings
   */
  public static ExecutorSettings from(Config config) {
    refuseStartAhead(config);
    return new ExecutorSettings(
        Settings.intOf(config, P + "max-concurrent"),
        Settings.intOf(config, P + "max-concurrent-per-task"),
        Settings.intOf(config, P + "prefetch-per-slot"),
        Settings.durationOf(config, P + "prefetch-max-job"),
        pendingResults(Settings.intOf(config, P + "max-pending-results"), Settings.intOf(config, P + "max-concurrent")),
        Settings.doubleOf(config, P + "backlog-rate"),
        Settings.intOf(config, P + "backlog-burst"),
        Settings.doubleOf(config, P + "backlog-rate-per-task"),
        Settings.intOf(config, P + "backlog-burst-per-task"),
        Settings.durationOf(config, P + "check-interval"),
        Settings.durationOf(config, P + "ask-timeout"),
        Settings.intOf(config, P + "report-retries"),
        Settings.durationOf(config, P + "report-retry-delay"),
        shutdownGrace(config),
        Settings.durationOf(config, P + "stuck-after"),
        Settings.intOf(config, P + "max-stuck-jobs"),
        fenceLease(config));
  }
}

package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.internal.executor.Executor;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskEntity;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The embedded node end to end: a one-node cluster with the trigger singleton, sharded task
 * entities and the executor, on the in-memory journal. Time comes from a SettableClock; the trigger
 * and executor look at it every 20 ms, so a test moves the clock and awaits the outcome.
 */
@ExtendWith(LogCapturingExtension.class)
class AlmanacNodeTest {

  static Config config(String extra) {
    return ConfigFactory.parseString(extra + "\n"
            + "pekko.actor.provider = cluster\n"
            + "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }\n"
            + "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on\n"
            + "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"\n"
            + "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }\n"
            + "almanac.executor { check-interval = 20ms }\n"
            + "almanac.alerts { watchdog-interval = 100ms }\n"
            // a node's coordinated shutdown (the executor's drain, late results of cancelled jobs, leaving
            // the cluster) can take more than the testkit's 10 s on a loaded 2-core machine: seen once
            + "pekko.actor.testkit.typed.system-shutdown-default = 30s\n")
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load());
  }

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

  private Almanac start(String extraConfig, Map<String, AgentJob> jobs) {
    testKit = ActorTestKit.create("node-test", config(extraConfig));
    Almanac.Builder b = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add);
    jobs.forEach(b::job);
    return b.start();
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " in " + await(almanac.windows(task))));
  }

  /** A job that records each attempt and does what the test says. */
  static final class ScriptedJob implements AgentJob {
    final List<JobContext> runs = new CopyOnWriteArrayList<>();
    final List<Instant> startedAt = new CopyOnWriteArrayList<>();
    volatile Function<JobContext, java.util.concurrent.CompletionStage<JobResult>> behaviour =
        ctx -> CompletableFuture.completedFuture(JobResult.success("ok " + ctx.window()));
    private final SettableClock clock;

    ScriptedJob(SettableClock clock) {
      this.clock = clock;
    }

    @Override
    public java.util.concurrent.CompletionStage<JobResult> run(JobContext context) {
      runs.add(context);
      startedAt.add(clock.instant());
      return behaviour.apply(context);
    }
  }

  @Test
  @DisplayName("R11: a window due while its task's registration is on its way (dependency check, definition) is fired, not dropped")
  void windowDueDuringRegistrationIsFired() {
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job));
    // registered at 23:59:00; its only firing today is at 23:59:01, and the clock passes it before the
    // registration's round trips are done (before, the trigger took "from now on" from the end of the
    // dependency check, and this window never existed)
    var registered = almanac.register(TaskSpec.builder("during").cron("1 59 23 * * ? UTC").window("per-firing").job("j").build());
    clock.set(Instant.parse("2026-11-28T23:59:03Z"));
    await(registered);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "during", "2026-11-28T23:59:01Z").status()));
    assertEquals(1, job.runs.size());
  }

  @Test
  @DisplayName("R1/R2/R4: a daily 08:00 Asia/Shanghai task fires at 00:00 UTC for successive windows, each once")
  void dailyTaskFiresAtMidnightUtc() {
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("digest", job));
    await(almanac.register(TaskSpec.builder("daily-digest").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build()));
    for (String day : List.of("2026-11-29", "2026-11-30", "2026-12-01")) {
      Instant due = Instant.parse(day + "T00:00:00Z");
      clock.set(due.minusSeconds(30));
      int before = job.runs.size();
      clock.set(due);
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "daily-digest", day).status()));
      assertEquals(before + 1, job.runs.size());
      JobContext ctx = job.runs.get(job.runs.size() - 1);
      assertEquals(day, ctx.window().value());
      assertEquals(RunKind.FIRST, ctx.runKind());
      assertEquals("daily-digest/" + day, ctx.idempotencyKey());
      assertEquals(due, ctx.scheduledAt(), "the job sees the instant its window was scheduled to fire");
      assertEquals(due, job.startedAt.get(job.startedAt.size() - 1), "fired at 00:00 UTC, not relative to anything");
      assertEquals(due, window(almanac, "daily-digest", day).dueAt());
      clock.set(due.plus(Duration.ofHours(12)));
    }
    assertEquals(3, job.runs.size());
    TaskView view = await(almanac.task("daily-digest"));
    assertEquals(Instant.parse("2026-12-02T00:00:00Z"), view.nextDue());
  }

  @Test
  @DisplayName("health: a started node is live and, once its trigger ticks and writes its watermark, ready; each check says "
      + "what it saw")
  void health() {
    Almanac almanac = start("", Map.of());
    NodeReady.await(almanac);
    eventually(() -> assertTrue(await(almanac.health()).ready(), () -> await(almanac.health()).toString()));
    NodeHealth h = await(almanac.health());
    assertTrue(h.live());
    assertEquals(List.of("actor-system", "cluster-member", "tasks-registered", "trigger", "journal", "executor"),
        h.checks().stream().map(NodeHealth.Check::name).toList());
    // the executor's check: past max-stuck-jobs stuck jobs, or without its lease, the node is not ready
    assertTrue(io.almanac.internal.node.Node.executorCheck(new ExecutorProtocol.Stats(0, 0, 0, 0, 0, 0, 4, true, "node-1"), 4).ok());
    NodeHealth.Check tooMany = io.almanac.internal.node.Node.executorCheck(new ExecutorProtocol.Stats(0, 0, 0, 0, 0, 0, 5, true, "node-1"), 4);
    assertFalse(tooMany.ok());
    assertTrue(tooMany.detail().contains("5 stuck (almanac.executor.max-stuck-jobs = 4)"), tooMany.detail());
    assertFalse(io.almanac.internal.node.Node.executorCheck(new ExecutorProtocol.Stats(0, 0, 0, 0, 0, 0, 0, false, "node-1#1"), 4).ok());
    // judged by the node's clock: a trigger that has not looked at its queue for longer than the threshold is not ready
    Instant now = Instant.parse("2026-11-30T10:00:00Z");
    NodeHealth.Check stale = io.almanac.internal.node.Node.fresh("trigger", now.minusSeconds(61), now, Duration.ofMinutes(1), "looked at its queue");
    assertFalse(stale.ok());
    assertEquals("the trigger looked at its queue 61000 ms ago, more than PT1M", stale.detail());
    assertTrue(io.almanac.internal.node.Node.fresh("journal", now.minusSeconds(5), now, Duration.ofMinutes(1), "wrote its watermark").ok());
    assertFalse(io.almanac.internal.node.Node.fresh("journal", null, now, Duration.ofMinutes(1), "wrote its watermark").ok());
  }

  @Test
  @DisplayName("a job's log lines carry its task, window and attempt in the MDC (on the thread that runs it)")
  void jobThreadCarriesMdc() {
    ScriptedJob job = new ScriptedJob(clock);
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    job.behaviour = ctx -> {
      seen.add(org.slf4j.MDC.getCopyOfContextMap());
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    Almanac almanac = start("", Map.of("digest", job));
    await(almanac.register(TaskSpec.builder("mdc-task").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "mdc-task", "2026-11-29").status()));
    assertEquals(1, seen.size());
    assertEquals("mdc-task", seen.get(0).get("almanac.task"));
    assertEquals("2026-11-29", seen.get(0).get("almanac.window"));
    assertEquals("1", seen.get(0).get("almanac.attempt"));
  }

  @Test
  @DisplayName("the executor's own line about a failed attempt carries the task, window and attempt in the MDC")
  void executorLinesCarryMdc() {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(io.almanac.internal.executor.Executor.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      ScriptedJob job = new ScriptedJob(clock);
      job.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.failure("upstream said no"));
      Almanac almanac = start("", Map.of("digest", job));
      await(almanac.register(TaskSpec.builder("mdc-fail").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build()));
      clock.set(Instant.parse("2026-11-29T00:00:00Z"));
      eventually(() -> assertTrue(lines.list.stream().anyMatch(e -> e.getFormattedMessage().contains("upstream said no")),
          "the executor logs the failed attempt"));
      ch.qos.logback.classic.spi.ILoggingEvent failed = lines.list.stream()
          .filter(e -> e.getFormattedMessage().contains("upstream said no")).findFirst().orElseThrow();
      assertEquals("mdc-fail", failed.getMDCPropertyMap().get("almanac.task"));
      assertEquals("2026-11-29", failed.getMDCPropertyMap().get("almanac.window"));
      assertEquals("1", failed.getMDCPropertyMap().get("almanac.attempt"));
    } finally {
      logger.detachAppender(lines);
    }
  }

  @Test
  @DisplayName("R12/R14: a forward clock step of 25 h on a running node is handled as downtime: the latest window runs "
      + "on time, the older ones go to the horizon and backfill policy, each recorded once, none skipped as PREVIOUS_RUNNING")
  void forwardClockStepIsHandledAsDowntime() {
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job));
    await(almanac.register(TaskSpec.builder("hourly").cron("0 0 * * * ? UTC").window("hourly").job("j").build()));
    Instant first = Instant.parse("2026-11-29T00:00:00Z");
    clock.set(first);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "hourly", "2026-11-29-00").status()));
    Instant latest = first.plus(Duration.ofHours(25));
    clock.set(latest.plusSeconds(10)); // an NTP step or a resumed VM
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "hourly", "2026-11-30-01").status()));
    // 26 windows: the two that ran, one OUTSIDE_HORIZON, and 23 BACKFILL_NOT_ALLOWED in a row: one skip range, listed as
    // its first window (docs/skip-ranges.md)
    eventually(() -> assertEquals(4, await(almanac.windows("hourly")).size()));
    List<WindowView> windows = await(almanac.windows("hourly"));
    assertTrue(windows.stream().anyMatch(w -> w.window().value().equals("2026-11-29-02")
        && w.reason().endsWith("[skip range: 23 windows from 2026-11-29-02 to 2026-11-30-00]")), windows::toString);
    for (WindowView w : windows) {
      if (w.window().value().equals("2026-11-29-00") || w.window().value().equals("2026-11-30-01")) {
        continue;
      }
      assertEquals(InstanceStatus.MISSED, w.status(), () -> w.window() + ": " + w.reason());
      assertTrue(w.reason().startsWith("BACKFILL_NOT_ALLOWED") || w.reason().startsWith("OUTSIDE_HORIZON"), w.reason());
    }
    assertEquals(2, job.runs.size(), "only the window before the step and the latest one ran");
    assertEquals(RunKind.FIRST, job.runs.get(1).runKind());
    assertEquals(latest, job.runs.get(1).scheduledAt(), "the job can tell it runs 10 s after its firing");
  }

  /** A user's window spec that throws for firings from 01:00 on 2026-11-29 UTC (a bug in user code). */
  static final class BreaksLater implements WindowSpec {
    @Override
    public String name() {
      return "breaks-later";
    }

    @Override
    public Window windowOf(java.time.LocalDateTime nominal, Instant firedAt, java.time.ZoneId zone) {
      if (!firedAt.isBefore(Instant.parse("2026-11-29T01:00:00Z"))) {
        throw new IllegalStateException("no window for " + firedAt);
      }
      return WindowSpec.PER_FIRING.windowOf(nominal, firedAt, zone);
    }
  }

  @Test
  @DisplayName("Principle 8/R33: a task whose schedule throws at run time is set aside with an alert and a journal record; "
      + "the trigger and every other task go on")
  void brokenScheduleIsSetAside() {
    WindowSpec.register(new BreaksLater());
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job));
    await(almanac.register(TaskSpec.builder("broken").cron("0 */30 * * * ? UTC").window("breaks-later").job("j").build()));
    await(almanac.register(TaskSpec.builder("healthy").cron("0 0 * * * ? UTC").window("hourly").job("j").build()));
    Instant t0 = Instant.parse("2026-11-29T00:00:00Z");
    clock.set(t0);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "healthy", "2026-11-29-00").status()));
    clock.set(t0.plus(Duration.ofMinutes(30))); // 'broken' fires; computing its next window (01:00) throws
    eventually(() -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == Alert.Kind.TASK_SET_ASIDE
        && "broken".equals(a.taskId()) && a.message().contains("no window for 2026-11-29T01:00:00Z")), alerts::toString));
    for (int h = 1; h <= 3; h++) {
      String key = String.format("2026-11-29-%02d", h);
      clock.set(t0.plus(Duration.ofHours(h)));
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "healthy", key).status()));
    }
    assertEquals(1, alerts.stream().filter(a -> a.kind() == Alert.Kind.TASK_SET_ASIDE).count(), "one alert, not one per tick");
  }

  @Test
  @DisplayName("R5: 10,000 duplicate fires for one window from several senders at once make one instance")
  void tenThousandConcurrentDuplicateFires() throws Exception {
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job));
    // The task's own cron fires at minute 30, so the trigger stays out of this window.
    TaskSpec dup = TaskSpec.builder("dup").cron("0 30 * * * ? UTC").window("daily").job("j").build();
    await(almanac.register(dup));
    // registration writes no entity: each fire brings the registered spec, as the trigger's first fires do
    io.almanac.journal.SpecRecord spec = io.almanac.journal.SpecRecord.of(dup);
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    ClusterSharding sharding = ClusterSharding.get(testKit.system());
    Instant start = Instant.parse("2026-11-28T16:00:00Z");
    WindowKey key = WindowKey.of("2026-11-29");
    Function<Integer, CompletableFuture<StatusReply<TaskProtocol.FireOutcome>>> fire = i -> AskPattern
        .<TaskProtocol.Command, StatusReply<TaskProtocol.FireOutcome>>ask(sharding.entityRefFor(TaskEntity.TYPE_KEY, "dup"),
            r -> new TaskProtocol.Fire(key, start, start.plus(Duration.ofDays(1)), Instant.parse("2026-11-29T00:00:00Z"),
                TaskProtocol.FireKind.ON_TIME, true, r, spec),
            Duration.ofSeconds(3), testKit.system().scheduler())
        .toCompletableFuture();
    // Several senders at once, each delivering at least once: a fire that is not acknowledged (the
    // entity's stash overflows while it starts) is sent again, as the trigger does.
    int senders = 8;
    List<TaskProtocol.FireOutcome> outcomes = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    AtomicInteger resent = new AtomicInteger();
    for (int s = 0; s < senders; s++) {
      Thread t = new Thread(() -> {
        try {
          go.await();
          List<CompletableFuture<StatusReply<TaskProtocol.FireOutcome>>> pending = new ArrayList<>();
          for (int i = 0; i < 10_000 / senders; i++) {
            pending.add(fire.apply(i));
          }
          for (int round = 0; round < 10 && !pending.isEmpty(); round++) {
            List<CompletableFuture<StatusReply<TaskProtocol.FireOutcome>>> again = new ArrayList<>();
            for (CompletableFuture<StatusReply<TaskProtocol.FireOutcome>> f : pending) {
              try {
                outcomes.add(f.get(10, TimeUnit.SECONDS).getValue());
              } catch (Exception e) {
                resent.incrementAndGet();
                again.add(fire.apply(0));
              }
            }
            pending = again;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(10_000, outcomes.size(), "every fire acknowledged (" + resent.get() + " sent again)");
    Map<Decision, AtomicInteger> counts = new ConcurrentHashMap<>();
    for (TaskProtocol.FireOutcome o : outcomes) {
      counts.computeIfAbsent(o.decision(), d -> new AtomicInteger()).incrementAndGet();
    }
    assertEquals(1, counts.get(Decision.SCHEDULED).get(), "one instance: " + counts);
    assertEquals(9_999, counts.get(Decision.DUPLICATE).get(), "the rest acknowledged as duplicates: " + counts);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "dup", "2026-11-29").status()));
    assertEquals(1, job.runs.size(), "the window ran once");
    assertEquals(1, await(almanac.windows("dup")).size());
  }

  @Test
  @DisplayName("R6/R7: a job longer than its interval: the next window is SKIPPED with its reason; with BUFFER_ONE it runs after")
  void longJobSkipsOrBuffersNextWindow() {
    ScriptedJob slow = new ScriptedJob(clock);
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    slow.behaviour = ctx -> ctx.window().value().endsWith("00:00Z") ? release : CompletableFuture.completedFuture(JobResult.success("quick"));
    ScriptedJob buffered = new ScriptedJob(clock);
    CompletableFuture<JobResult> releaseBuffered = new CompletableFuture<>();
    buffered.behaviour = ctx -> ctx.window().value().endsWith("00:00Z") ? releaseBuffered : CompletableFuture.completedFuture(JobResult.success("quick"));
    Almanac almanac = start("", Map.of("slow", slow, "buffered", buffered));
    await(almanac.register(TaskSpec.builder("skipper").cron("0 */10 * * * ? UTC").window(WindowSpec.PER_FIRING).job("slow").build()));
    await(almanac.register(TaskSpec.builder("bufferer").cron("0 */10 * * * ? UTC").window(WindowSpec.PER_FIRING)
        .overlap(OverlapPolicy.BUFFER_ONE).job("buffered").build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(1, slow.runs.size()));
    eventually(() -> assertEquals(1, buffered.runs.size()));
    clock.set(Instant.parse("2026-11-29T00:10:00Z"));
    eventually(() -> {
      WindowView next = window(almanac, "skipper", "2026-11-29T00:10:00Z");
      assertEquals(InstanceStatus.SKIPPED, next.status());
      assertTrue(next.reason().startsWith("PREVIOUS_RUNNING"), next.reason());
      assertTrue(next.reason().contains("2026-11-29T00:00:00Z"), next.reason());
    });
    eventually(() -> assertEquals(InstanceStatus.PENDING, window(almanac, "bufferer", "2026-11-29T00:10:00Z").status()));
    assertEquals(1, buffered.runs.size(), "the buffered window waits");
    release.complete(JobResult.success("slow done"));
    releaseBuffered.complete(JobResult.success("slow done"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "bufferer", "2026-11-29T00:10:00Z").status()));
    assertEquals(2, buffered.runs.size());
    assertEquals(1, slow.runs.size(), "the skipped window never ran");
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "skipper", "2026-11-29T00:00:00Z").status()));
  }

  /**
   * A node whose task "stuck" (every 10 minutes) runs its first window until {@code release}
   * completes: its next four windows are each recorded SKIPPED (PREVIOUS_RUNNING).
   */
  private Almanac skipFourWindows(String config, CompletableFuture<JobResult> release) {
    ScriptedJob slow = new ScriptedJob(clock);
    slow.behaviour = ctx -> release;
    Almanac almanac = start(config, Map.of("slow", slow));
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    almanac.meterRegistry().add(registry);
    await(almanac.register(TaskSpec.builder("stuck").cron("0 */10 * * * ? UTC").window(WindowSpec.PER_FIRING).job("slow").build()));
    Instant t = Instant.parse("2026-11-29T00:00:00Z");
    clock.set(t);
    eventually(() -> assertEquals(1, slow.runs.size()));
    for (int i = 1; i <= 4; i++) {
      Instant due = t.plus(Duration.ofMinutes(10L * i));
      clock.set(due);
      int skipped = i;
      // the first is a window of its own; the next ones are covered by its skip range (docs/skip-ranges.md): no window
      // of their own, counted as decisions all the same
      eventually(() -> assertEquals(skipped, registry.find("almanac.decisions").tag("decision", "skipped").counters().stream()
          .mapToDouble(io.micrometer.core.instrument.Counter::count).sum()));
    }
    assertEquals(InstanceStatus.SKIPPED, window(almanac, "stuck", t.plus(Duration.ofMinutes(10)).toString()).status());
    return almanac;
  }

  @Test
  @DisplayName("R8/R32: windows skipped three times in a row raise one REPEATED_SKIPS alert")
  void repeatedSkipsRaiseOneAlert() {
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    skipFourWindows("", release);
    List<Alert> skips = alerts.stream().filter(a -> a.kind() == Alert.Kind.REPEATED_SKIPS).toList();
    assertEquals(1, skips.size(), "one alert for the streak, at the third skip: " + skips);
    assertEquals("2026-11-29T00:30:00Z", skips.get(0).window());
    release.complete(JobResult.success("done"));
  }

  @Test
  @DisplayName("a wrong almanac.alerts.summary-interval is refused at start, naming the key and the value")
  void wrongSummaryIntervalIsRefused() {
    InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> start("almanac.alerts.summary-interval = 0s", Map.of()));
    assertTrue(e.getMessage().contains("almanac.alerts.summary-interval") && e.getMessage().contains("positive duration"),
        e.getMessage());
  }

  @Test
  @DisplayName("a wrong almanac.metrics.max-task-tags is refused at start, naming the key and the value")
  void wrongMaxTaskTagsIsRefused() {
    InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> start("almanac.metrics.max-task-tags = -1", Map.of()));
    assertTrue(e.getMessage().contains("almanac.metrics.max-task-tags") && e.getMessage().contains("-1"), e.getMessage());
    InvalidSpecException notNumber = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> start("almanac.metrics.max-task-tags = lots", Map.of()));
    assertTrue(notNumber.getMessage().contains("almanac.metrics.max-task-tags") && notNumber.getMessage().contains("lots"),
        notNumber.getMessage());
  }

  @Test
  @DisplayName("R7/R32: skipped windows are logged as one summary line per interval, not a line per window or alert")
  void skippedWindowsAreSummarised() {
    ch.qos.logback.classic.Logger summaryLog =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(io.almanac.internal.meter.SkipSummary.class);
    ch.qos.logback.classic.Logger entityLog =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(io.almanac.internal.task.TaskEntity.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> summaryLines =
        new ch.qos.logback.core.read.ListAppender<>();
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> entityLines =
        new ch.qos.logback.core.read.ListAppender<>();
    summaryLines.start();
    entityLines.start();
    summaryLog.addAppender(summaryLines);
    entityLog.addAppender(entityLines);
    try {
      CompletableFuture<JobResult> release = new CompletableFuture<>();
      // a long interval: the four skips all fall into the first one
      skipFourWindows("almanac.alerts.summary-interval = 3s", release);
      assertEquals(1, alerts.stream().filter(a -> a.kind() == Alert.Kind.REPEATED_SKIPS).count(), "the sink still gets the alert");
      eventually(() -> assertFalse(summaryLines.list.isEmpty(), "a summary line within the interval"));
      String all = summaryLines.list.stream().map(e -> e.getFormattedMessage()).reduce("", (a, b) -> a + b + "\n");
      assertTrue(all.contains("windows of 1 task did not run") && all.contains("PREVIOUS_RUNNING")
          && all.contains("1 task raised REPEATED_SKIPS"), all);
      assertEquals(ch.qos.logback.classic.Level.WARN, summaryLines.list.get(0).getLevel());
      assertTrue(entityLines.list.stream().noneMatch(e -> e.getFormattedMessage().contains("skipped 3 windows in a row")),
          "no line of its own for the alert: " + entityLines.list);
      release.complete(JobResult.success("done"));
    } finally {
      summaryLog.detachAppender(summaryLines);
      entityLog.detachAppender(entityLines);
    }
  }

  @Test
  @DisplayName("R23: a hanging job is TIMED_OUT at lease expiry, interrupted, retried; its late result cannot succeed the window")
  void hangingJobTimesOutAndIsRetried() {
    ScriptedJob job = new ScriptedJob(clock);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    job.behaviour = ctx -> {
      if (calls.incrementAndGet() == 1) {
        try {
          new CountDownLatch(1).await(); // blocks its thread until interrupted
        } catch (InterruptedException e) {
          interrupted.countDown();
          return CompletableFuture.completedFuture(JobResult.success("late success after interrupt"));
        }
      }
      return CompletableFuture.completedFuture(JobResult.success("second attempt"));
    };
    Almanac almanac = start("", Map.of("hang", job));
    await(almanac.register(TaskSpec.builder("hanging").cron("0 0 8 * * ? Asia/Shanghai").job("hang")
        .retry(RetryPolicy.immediate())
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofMinutes(5)).factor(1.5).minSamples(20).build()).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, window(almanac, "hanging", "2026-11-29").status()));
    WindowView running = window(almanac, "hanging", "2026-11-29");
    assertEquals(Instant.parse("2026-11-29T00:05:00Z"), running.leaseUntil());
    // RUNNING is written before the job starts (R21): move the clock only once the job is inside run(),
    // else the attempt is let go unrun when its lease ends, and the retry is the call that blocks
    eventually(() -> assertEquals(1, calls.get(), "the job was called"));
    clock.set(Instant.parse("2026-11-29T00:05:01Z"));
    eventually(() -> assertEquals(0, interrupted.getCount(), "the blocked job thread was interrupted"));
    eventually(() -> {
      // time moves on as it would (a retry re-offered while the hung attempt still held its slot waits
      // for the clock); 100 ms per check stays far inside the retry's 5-minute lease
      clock.set(clock.instant().plusMillis(100));
      WindowView w = window(almanac, "hanging", "2026-11-29");
      assertEquals(InstanceStatus.SUCCEEDED, w.status());
      assertEquals(2, w.attempt());
      assertEquals("second attempt", w.summary(), "the late result of attempt 1 did not succeed the window");
      assertEquals(1, w.retries());
    });
    assertEquals(RunKind.RETRY, job.runs.get(1).runKind());
  }

  @Test
  @DisplayName("R23: jobs that never return (they ignore interrupts and cancellation) do not block their task: each "
      + "frees its slot at its lease end, the next windows run, each stuck job raises JOB_STUCK, and past "
      + "max-stuck-jobs the node is not ready")
  void stuckJobsDoNotBlockTheirTask() {
    ScriptedJob job = new ScriptedJob(clock);
    CountDownLatch never = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    job.behaviour = ctx -> {
      if (calls.incrementAndGet() <= 5) { // more than max-concurrent-per-task (4)
        while (true) {
          try {
            never.await();
            return CompletableFuture.completedFuture(JobResult.success("released at the end of the test"));
          } catch (InterruptedException ignored) {
            // a hung model call that ignores interrupts
          }
        }
      }
      return CompletableFuture.completedFuture(JobResult.success("ran"));
    };
    Almanac almanac = start("almanac.executor.stuck-after = 10s\nalmanac.executor.max-stuck-jobs = 2",
        Map.of("hang", job));
    almanac.meterRegistry().add(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    try {
      await(almanac.register(TaskSpec.builder("stubborn").cron("0 0 * * * ? UTC").window("per-firing").job("hang")
          .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofMinutes(1)).factor(1.5).minSamples(20).build()).build()));
      Instant hour = Instant.parse("2026-11-29T00:00:00Z");
      for (int i = 0; i < 6; i++) {
        Instant due = hour.plus(Duration.ofHours(i));
        String key = due.toString();
        clock.set(due);
        int called = i + 1;
        eventually(() -> assertEquals(called, calls.get(), "the job of window " + key + " was called"));
        if (i < 5) {
          assertEquals(InstanceStatus.RUNNING, window(almanac, "stubborn", key).status());
          clock.set(due.plus(Duration.ofMinutes(2))); // past its lease: timed out, cancelled, its slot freed
          eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "stubborn", key).status()));
          Instant afterCancel = due.plus(Duration.ofMinutes(3)); // 1 min after the cancel > stuck-after
          clock.set(afterCancel);
          int stuck = i + 1;
          AtomicInteger polls = new AtomicInteger();
          eventually(() -> {
            // the executor measures stuck-after from when it handled the cancel, which on a loaded machine
            // can come after the clock moved: time moves on 1 s a poll (far from the next window) until then
            clock.set(afterCancel.plusSeconds(polls.incrementAndGet()));
            assertEquals(stuck, alerts.stream().filter(a -> a.kind() == Alert.Kind.JOB_STUCK).count());
          });
        }
      }
      Instant last = hour.plus(Duration.ofHours(5));
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "stubborn", last.toString()).status()));
      Alert stuck = alerts.stream().filter(a -> a.kind() == Alert.Kind.JOB_STUCK).findFirst().orElseThrow();
      assertEquals("stubborn", stuck.taskId());
      assertEquals("2026-11-29T00:00:00Z", stuck.window());
      NodeHealth health = await(almanac.health());
      NodeHealth.Check executor = health.checks().stream().filter(c -> c.name().equals("executor")).findFirst().orElseThrow();
      assertFalse(executor.ok(), executor.detail());
      assertTrue(executor.detail().contains("5 stuck"), executor.detail());
      assertFalse(health.ready(), "past max-stuck-jobs the node is not ready");
      assertEquals(5.0, almanac.meterRegistry().get("almanac.executor.stuck").gauge().value());
    } finally {
      never.countDown();
    }
  }

  @Test
  @DisplayName("R15/R32/R31: one alert per FINAL_FAILED window; operator retry runs it again; resolve empties the queue")
  void finalFailureAlertRetryAndResolve() {
    ScriptedJob job = new ScriptedJob(clock);
    job.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.failure("model returned malformed JSON"));
    Almanac almanac = start("almanac.executor.backlog-burst-per-task = 10", Map.of("bad", job));
    await(almanac.register(TaskSpec.builder("failing").cron("0 0 8 * * ? Asia/Shanghai").job("bad")
        .retry(RetryPolicy.immediate()).maxRetries(2).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "failing", "2026-11-29").status()));
    assertEquals(3, job.runs.size(), "first run and 2 retries");
    eventually(() -> assertEquals(1, alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED).count()));
    Alert alert = alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED).findFirst().get();
    assertEquals("failing", alert.taskId());
    assertEquals("2026-11-29", alert.window());
    assertEquals(1, await(almanac.interventionQueue()).size());

    job.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.failure("still malformed"));
    await(almanac.retry("failing", WindowKey.of("2026-11-29")));
    eventually(() -> assertEquals(6, job.runs.size()));
    assertEquals(RunKind.MANUAL, job.runs.get(3).runKind());
    eventually(() -> assertEquals(2, alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED).count()));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "failing", "2026-11-29").status()));
    await(almanac.resolve("failing", WindowKey.of("2026-11-29"), "sent by hand"));
    assertTrue(await(almanac.interventionQueue()).isEmpty());
    assertEquals(InstanceStatus.RESOLVED, window(almanac, "failing", "2026-11-29").status());
    assertEquals(2, alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED).count(), "exactly one per failure");
  }

  @Test
  @DisplayName("R17: 500 backfill windows start no faster than the configured rate")
  void backfillIsRateLimited() {
    ScriptedJob backfilled = new ScriptedJob(clock);
    // the in-memory journal unserialized: serialized, it reads a journal's every event back at each write, and
    // 500 windows' events made this test take most of a minute (serialization has tests of its own)
    Almanac almanac = start("almanac.executor { backlog-rate = 10, backlog-burst = 20, backlog-rate-per-task = 10, "
        + "backlog-burst-per-task = 20, max-concurrent = 32 }\npekko.persistence.testkit.events.serialize = off\n"
        + "pekko.persistence.testkit.snapshots.serialize = off", Map.of("bf", backfilled));
    Instant t0 = Instant.parse("2026-11-29T00:00:00Z");
    clock.set(t0);
    await(almanac.register(TaskSpec.builder("history").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("bf").build()));
    List<FireDecision> decisions = await(almanac.backfill("history", Instant.parse("2026-11-28T15:39:59Z"),
        Instant.parse("2026-11-28T23:59:59Z")));
    assertEquals(500, decisions.size());
    assertTrue(decisions.stream().allMatch(FireDecision::scheduled));
    eventually(() -> assertEquals(20, backfilled.runs.size(), "the burst"));
    // Each second of (injected) time releases exactly rate = 10 more; never more.
    for (int s = 1; s <= 48; s++) {
      clock.set(t0.plusSeconds(s));
      int expected = 20 + 10 * s;
      eventually(() -> assertEquals(expected, backfilled.runs.size()));
    }
    assertTrue(backfilled.runs.stream().allMatch(c -> c.runKind() == RunKind.BACKFILL));
    eventually(() -> assertEquals(500, await(almanac.windows("history")).stream()
        .filter(w -> w.status() == InstanceStatus.SUCCEEDED).count()));
  }

  @Test
  @DisplayName("R17: a fresh window starts before the waiting backlog")
  void freshWindowsGoBeforeBacklog() {
    ScriptedJob backfilled = new ScriptedJob(clock);
    List<CompletableFuture<JobResult>> holds = new CopyOnWriteArrayList<>();
    backfilled.behaviour = ctx -> {
      CompletableFuture<JobResult> hold = new CompletableFuture<>();
      holds.add(hold);
      return hold;
    };
    ScriptedJob fresh = new ScriptedJob(clock);
    CompletableFuture<JobResult> freshHold = new CompletableFuture<>();
    fresh.behaviour = ctx -> freshHold; // keeps its slot, so the count below cannot race
    Almanac almanac = start("almanac.executor { max-concurrent = 2, backlog-rate = 1000, backlog-burst = 1000, "
        + "backlog-rate-per-task = 1000, backlog-burst-per-task = 1000 }", Map.of("bf", backfilled, "fresh", fresh));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    await(almanac.register(TaskSpec.builder("history").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING)
        .overlap(OverlapPolicy.ALLOW).job("bf").build()));
    await(almanac.register(TaskSpec.builder("live").cron("30 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("fresh").build()));
    await(almanac.backfill("history", Instant.parse("2026-11-28T23:49:59Z"), Instant.parse("2026-11-28T23:59:59Z")));
    eventually(() -> assertEquals(2, backfilled.runs.size(), "both slots taken by backlog"));
    clock.set(Instant.parse("2026-11-29T00:00:30Z"));
    eventually(() -> assertEquals(InstanceStatus.PENDING, window(almanac, "live", "2026-11-29T00:00:30Z").status()));
    holds.get(0).complete(JobResult.success("one backlog window done"));
    eventually(() -> assertEquals(1, fresh.runs.size(), "the freed slot went to the fresh window"));
    assertEquals(2, backfilled.runs.size(), "no further backlog started before it");
    holds.forEach(h -> h.complete(JobResult.success("done")));
    freshHold.complete(JobResult.success("done"));
  }

  @Test
  @DisplayName("R23/principle 5: a passivated task is woken for its retry at the due time")
  void passivatedTaskIsWokenForRetry() {
    ScriptedJob job = new ScriptedJob(clock);
    AtomicInteger calls = new AtomicInteger();
    job.behaviour = ctx -> CompletableFuture.completedFuture(calls.incrementAndGet() == 1
        ? JobResult.failure("tool timeout") : JobResult.success("recovered"));
    Almanac almanac = start("pekko.cluster.sharding.passivation.default-idle-strategy.idle-entity.timeout = 300ms",
        Map.of("flaky", job));
    await(almanac.register(TaskSpec.builder("flaky").cron("0 0 8 * * ? Asia/Shanghai").job("flaky")
        .retry(RetryPolicy.delayed(Duration.ofMinutes(5))).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window(almanac, "flaky", "2026-11-29").status()));
    // wait until sharding has passivated the idle entity
    eventually(() -> assertFalse(liveEntities().contains("flaky"), "entity passivated"));
    clock.set(Instant.parse("2026-11-29T00:05:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "flaky", "2026-11-29").status()));
    assertEquals(2, job.runs.size());
    assertEquals(RunKind.RETRY, job.runs.get(1).runKind());
    assertEquals(Instant.parse("2026-11-29T00:05:00Z"), job.startedAt.get(1));
  }

  private java.util.Set<String> liveEntities() {
    TestProbe<ShardRegion.CurrentShardRegionState> probe = testKit.createTestProbe();
    ClusterSharding.get(testKit.system()).shardState().tell(new GetShardRegionState(TaskEntity.TYPE_KEY, probe.getRef()));
    ShardRegion.CurrentShardRegionState state = probe.receiveMessage(Duration.ofSeconds(5));
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (ShardRegion.ShardState shard : state.getShards()) {
      ids.addAll(shard.getEntityIds());
    }
    return ids;
  }

  private static RefusedException refusal(java.util.concurrent.CompletionStage<?> stage) {
    Throwable error = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class,
        () -> stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join()).getCause();
    return org.junit.jupiter.api.Assertions.assertInstanceOf(RefusedException.class, error);
  }

  @Test
  @DisplayName("R31/R28: remove cancels the running window and its job, the trigger fires the task no more, its history "
      + "still answers and other operations are refused as REMOVED; registered again, it fires fresh windows")
  void removedTaskStopsFiringAndKeepsItsHistory() {
    ScriptedJob job = new ScriptedJob(clock);
    ScriptedJob other = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job, "other", other));
    TaskSpec spec = TaskSpec.builder("hourly").cron("0 0 * * * ? UTC").window("hourly").job("j").build();
    await(almanac.register(spec));
    await(almanac.register(TaskSpec.builder("control").cron("0 0 * * * ? UTC").window("hourly").job("other").build()));
    Instant t0 = Instant.parse("2026-11-29T00:00:00Z");
    clock.set(t0);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "hourly", "2026-11-29-00").status()));
    job.behaviour = ctx -> new CompletableFuture<>(); // runs until cancelled
    clock.set(t0.plus(Duration.ofHours(1)));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, window(almanac, "hourly", "2026-11-29-01").status()));

    await(almanac.remove("hourly"));
    WindowView cancelled = window(almanac, "hourly", "2026-11-29-01");
    assertEquals(InstanceStatus.CANCELLED, cancelled.status());
    assertEquals("task removed", cancelled.reason());
    eventually(() -> assertTrue(job.runs.get(1).isCancelled(), "the running job is cancelled"));
    assertFalse(await(almanac.taskIds()).contains("hourly"));
    TaskView view = await(almanac.task("hourly"));
    assertTrue(view.removed());
    assertEquals(t0.plus(Duration.ofHours(1)), view.removedAt());
    assertEquals(null, view.nextDue());
    assertEquals(RefusedException.Reason.REMOVED, refusal(almanac.runNow("hourly")).reason());
    assertEquals(RefusedException.Reason.REMOVED, refusal(almanac.pause("hourly")).reason());
    await(almanac.remove("hourly")); // repeated: acknowledged

    for (int h = 2; h <= 3; h++) {
      String key = String.format("2026-11-29-%02d", h);
      clock.set(t0.plus(Duration.ofHours(h)));
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "control", key).status()));
    }
    assertEquals(List.of("2026-11-29-00", "2026-11-29-01"),
        await(almanac.windows("hourly")).stream().map(w -> w.window().value()).toList(), "nothing fired after the removal");
    assertEquals(2, job.runs.size());

    job.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.success("back"));
    await(almanac.register(spec));
    assertTrue(await(almanac.taskIds()).contains("hourly"));
    assertFalse(await(almanac.task("hourly")).removed());
    clock.set(t0.plus(Duration.ofHours(4)));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "hourly", "2026-11-29-04").status()));
    assertEquals(List.of("2026-11-29-00", "2026-11-29-01", "2026-11-29-04"),
        await(almanac.windows("hourly")).stream().map(w -> w.window().value()).toList(), "history kept, fresh windows fire");
    assertEquals(RefusedException.Reason.UNKNOWN_TASK, refusal(almanac.remove("never-defined")).reason());
  }

  @Test
  @DisplayName("R1/R4/R34: a one-shot task declared with at fires once, at its instant, for the window keyed by it, "
      + "and never again")
  void oneShotFiresOnce() {
    ScriptedJob job = new ScriptedJob(clock);
    ScriptedJob other = new ScriptedJob(clock);
    Instant at = Instant.parse("2026-11-29T00:00:30Z");
    Almanac almanac = start("almanac.tasks.launch { at = \"" + at + "\", job = j }", Map.of("j", job, "other", other));
    NodeReady.await(almanac);
    await(almanac.register(TaskSpec.builder("control").cron("0 1 0 * * ? UTC").window("daily").job("other").build()));
    assertEquals(at, await(almanac.task("launch")).nextDue());
    clock.set(at);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "launch", at.toString()).status()));
    JobContext ctx = job.runs.get(0);
    assertEquals(WindowKey.of(at.toString()), ctx.window());
    assertEquals(RunKind.FIRST, ctx.runKind());
    assertEquals(at, ctx.scheduledAt());
    assertEquals(null, await(almanac.task("launch")).nextDue(), "never due again");
    Instant later = Instant.parse("2026-11-30T00:01:00Z");
    clock.set(later);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "control", "2026-11-30").status()));
    assertEquals(1, job.runs.size());
    assertEquals(1, await(almanac.windows("launch")).size());
  }

  @Test
  @DisplayName("R12/R14: a one-shot registered after its instant follows the catch-up horizon and backfill policy: "
      + "beyond the horizon it is MISSED, within it it runs as a backfill if the policy allows, else it is MISSED")
  void oneShotRegisteredAfterItsInstant() {
    ScriptedJob job = new ScriptedJob(clock);
    Almanac almanac = start("", Map.of("j", job));
    Instant now = clock.instant();
    Instant old = now.minus(Duration.ofDays(3));
    Instant recent = now.minus(Duration.ofHours(2));
    await(almanac.register(TaskSpec.builder("old").once(old).catchUp(CatchUpPolicy.all()).job("j").build()));
    await(almanac.register(TaskSpec.builder("recent").once(recent).catchUp(CatchUpPolicy.all()).job("j").build()));
    await(almanac.register(TaskSpec.builder("not-backfillable").once(recent).job("j").build()));
    eventually(() -> assertEquals(InstanceStatus.MISSED, window(almanac, "old", old.toString()).status()));
    assertTrue(window(almanac, "old", old.toString()).reason().startsWith("OUTSIDE_HORIZON"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "recent", recent.toString()).status()));
    assertEquals(RunKind.BACKFILL, job.runs.get(0).runKind());
    eventually(() -> assertEquals(InstanceStatus.MISSED, window(almanac, "not-backfillable", recent.toString()).status()));
    assertTrue(window(almanac, "not-backfillable", recent.toString()).reason().startsWith("BACKFILL_NOT_ALLOWED"));
    assertEquals(1, job.runs.size());
  }
}

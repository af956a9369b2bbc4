package io.almanac.bench;

import com.typesafe.config.Config;
import io.almanac.Almanac;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.EventTrigger;
import io.almanac.IncomingEvent;
import io.almanac.JobResult;
import io.almanac.PublishResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Workloads of the event, dependency and condition triggers (Almanac only, one node):
 *
 * <ul>
 *   <li>{@code event-ingest}: N tasks, each listening to its own event type (hourly windows by
 *       event time), P publisher threads calling {@link Almanac#publish} in a loop for a fixed time,
 *       20% of the calls re-sending an id the same publisher sent before.
 *   <li>{@code dependency-latency}: N pairs A -> B (B dependsOn A, SAME_WINDOW), both per-firing
 *       on the same 5 s cron; A's AttemptSucceeded to B's AttemptStarted from the journal.
 *   <li>{@code condition-cpu}: N tasks with a window due at once and a condition polled every 10 s
 *       that stays false, against the same N tasks with nothing due (the idle node), in one JVM.
 * </ul>
 */
final class TriggerBench {
  private TriggerBench() {}

  private static final String SLICK_DB = "pekko-persistence-jdbc.shared-databases.slick.db";

  /** One started node on a fresh store. */
  private static final class Node implements AutoCloseable {
    final Db db;
    final ActorSystem<Void> system;
    final Almanac almanac;
    final Connection probe;

    Node(Db db, Recorder rec, String conditionName, io.almanac.Condition condition) throws Exception {
      this.db = db;
      db.createEmpty();
      Config config = AlmanacSut.config(db);
      String url = config.getString(SLICK_DB + ".url");
      system = ActorSystem.create(Behaviors.empty(), "almanac-bench", config);
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
      Almanac.Builder b = Almanac.builder(system).job("bench", ctx -> {
        rec.record(ctx.taskId(), ctx.windowStart().toEpochMilli());
        return CompletableFuture.completedFuture(JobResult.success(""));
      });
      if (conditionName != null) {
        b = b.condition(conditionName, condition);
      }
      almanac = b.start();
      probe = Db.postgres() ? db.connect() : DriverManager.getConnection(url, "sa", "");
    }

    void register(List<TaskSpec> specs) throws Exception {
      for (int i = 0; i < specs.size(); i += 1000) {
        almanac.registerAll(specs.subList(i, Math.min(specs.size(), i + 1000))).toCompletableFuture().get(300, TimeUnit.SECONDS);
      }
    }

    Map<String, Object> eventsByType() throws Exception {
      Map<String, Object> byType = new TreeMap<>();
      try (var s = probe.createStatement();
          var rs = s.executeQuery("SELECT \"event_ser_manifest\", COUNT(*) FROM \"event_journal\" GROUP BY \"event_ser_manifest\"")) {
        while (rs.next()) {
          String t = rs.getString(1);
          byType.put(t.substring(t.lastIndexOf('$') + 1), rs.getLong(2));
        }
      }
      return byType;
    }

    @Override
    public void close() throws Exception {
      try {
        probe.close();
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } finally {
        db.drop();
      }
    }
  }

  private static double[] arr(List<Double> l) {
    return l.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static String load() {
    return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  // ---------------------------------------------------------------- event-ingest

  static Map<String, Object> eventIngest(int tasks, int publishers, int seconds, double dupShare, int batch, Path dir)
      throws Exception {
    Map<String, Object> out = Workloads.head("almanac", "event-ingest", new AlmanacSut());
    out.put("batch", batch);
    out.put("tasks", tasks);
    out.put("publishers", publishers);
    out.put("seconds", seconds);
    out.put("duplicate_share_sent", dupShare);
    out.put("load_average_before", load());
    Recorder rec = new Recorder();
    try (Node node = new Node(Db.at(dir, "events"), rec, null, null)) {
      List<TaskSpec> specs = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        specs.add(TaskSpec.builder(Plan.id("e", i)).onEvent(EventTrigger.of("bench.e" + i)).zone("UTC")
            .window(WindowSpec.HOURLY).job("bench").build());
      }
      node.register(specs);
      Instant now = Instant.now();
      Instant base = now.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(19)); // 20 hourly windows, inside the 24 h horizon
      long spanMs = Duration.between(base, now).toMillis() - 1000;
      // warm-up: one event per task (not counted in the rates; counted in the window check)
      Map<String, Set<String>> windowsSent = new ConcurrentHashMap<>(); // task -> distinct windows of accepted ids
      for (int i = 0; i < tasks; i++) {
        Instant t = base.plusMillis(i * 1000L);
        node.almanac.publish("bench.e" + i, "warm-" + i, t, null).toCompletableFuture().get(60, TimeUnit.SECONDS);
        windowsSent.computeIfAbsent(Plan.id("e", i), k -> ConcurrentHashMap.newKeySet()).add(t.truncatedTo(ChronoUnit.HOURS).toString());
      }
      Bench.progress("  event-ingest: %d tasks registered and warmed up; %d publishers for %d s", tasks, publishers, seconds);
      AtomicLong calls = new AtomicLong(); // events published (accepted calls x their events)
      AtomicLong callsMade = new AtomicLong(); // publish or publishAll calls answered
      AtomicLong sentDup = new AtomicLong();
      Map<PublishResult.Outcome, AtomicLong> outcomes = new ConcurrentHashMap<>();
      AtomicLong failures = new AtomicLong();
      List<List<Double>> lat = new ArrayList<>();
      List<List<Double>> latDup = new ArrayList<>();
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      List<Thread> threads = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int p = 0; p < publishers; p++) {
        List<Double> mine = new ArrayList<>();
        List<Double> mineDup = new ArrayList<>();
        lat.add(mine);
        latDup.add(mineDup);
        final int pid = p;
        Thread th = new Thread(() -> {
          Random rnd = new Random(pid);
          List<Object[]> sent = new ArrayList<>(); // {task index, id, time}
          long seq = 0;
          while (System.nanoTime() < end) {
            List<Object[]> evs = new ArrayList<>(batch);
            List<Boolean> dups = new ArrayList<>(batch);
            for (int b = 0; b < batch; b++) {
              boolean dup = !sent.isEmpty() && rnd.nextDouble() < dupShare;
              if (dup) {
                evs.add(sent.get(rnd.nextInt(sent.size())));
              } else {
                int task = rnd.nextInt(tasks);
                evs.add(new Object[] {task, "p" + pid + "-" + (seq++), base.plusMillis((long) (rnd.nextDouble() * spanMs))});
              }
              dups.add(dup);
            }
            long s = System.nanoTime();
            try {
              List<PublishResult> rs;
              if (batch == 1) {
                Object[] ev = evs.get(0);
                rs = List.of(node.almanac.publish("bench.e" + ev[0], (String) ev[1], (Instant) ev[2], null)
                    .toCompletableFuture().get(60, TimeUnit.SECONDS));
              } else {
                List<IncomingEvent> list = new ArrayList<>(batch);
                for (Object[] ev : evs) {
                  list.add(IncomingEvent.of("bench.e" + ev[0], (String) ev[1]).withEventTime((Instant) ev[2]));
                }
                rs = node.almanac.publishAll(list).toCompletableFuture().get(60, TimeUnit.SECONDS);
              }
              double ms = (System.nanoTime() - s) / 1e6;
              boolean anyNew = dups.contains(Boolean.FALSE);
              (anyNew ? mine : mineDup).add(ms);
              calls.addAndGet(batch);
              for (int b = 0; b < batch; b++) {
                Object[] ev = evs.get(b);
                if (dups.get(b)) {
                  sentDup.incrementAndGet();
                }
                for (PublishResult.TaskOutcome o : rs.get(b).tasks()) {
                  outcomes.computeIfAbsent(o.outcome(), k -> new AtomicLong()).incrementAndGet();
                }
                if (!dups.get(b)) {
                  sent.add(ev);
                  windowsSent.computeIfAbsent(Plan.id("e", (Integer) ev[0]), k -> ConcurrentHashMap.newKeySet())
                      .add(((Instant) ev[2]).truncatedTo(ChronoUnit.HOURS).toString());
                }
              }
              callsMade.incrementAndGet();
            } catch (Exception e) {
              failures.incrementAndGet();
            }
          }
        }, "publisher-" + p);
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) {
        th.join();
      }
      double elapsed = (System.nanoTime() - t0) / 1e9;
      List<Double> all = new ArrayList<>();
      lat.forEach(all::addAll);
      List<Double> allDup = new ArrayList<>();
      latDup.forEach(allDup::addAll);
      List<Double> both = new ArrayList<>(all);
      both.addAll(allDup);
      long accepted = calls.get() - sentDup.get();
      Map<String, Long> oc = new TreeMap<>();
      outcomes.forEach((k, v) -> oc.put(k.name(), v.get()));
      out.put("elapsed_s", elapsed);
      out.put("publish_calls", callsMade.get());
      out.put("publish_calls_per_s", callsMade.get() / elapsed);
      out.put("events_published", calls.get());
      out.put("events_per_s", calls.get() / elapsed);
      out.put("accepted_new_ids", accepted);
      out.put("accepted_per_s", accepted / elapsed);
      out.put("duplicates_sent", sentDup.get());
      out.put("duplicates_recognised", oc.getOrDefault("DUPLICATE", 0L));
      out.put("outcomes", oc);
      out.put("failed_calls", failures.get());
      out.put("latency_all", Stats.lag(arr(both)));
      out.put("latency_new_id", Stats.lag(arr(all)));
      out.put("latency_duplicate", Stats.lag(arr(allDup)));
      // instance count vs distinct windows
      long expectedWindows = windowsSent.values().stream().mapToLong(Set::size).sum();
      long instances = 0;
      long mismatchedTasks = 0;
      long eventsCounted = 0;
      for (int i = 0; i < tasks; i++) {
        List<WindowView> ws = node.almanac.windows(Plan.id("e", i)).toCompletableFuture().get(60, TimeUnit.SECONDS);
        instances += ws.size();
        Set<String> exp = windowsSent.getOrDefault(Plan.id("e", i), Set.of());
        if (ws.size() != exp.size()) {
          mismatchedTasks++;
        }
      }
      out.put("distinct_windows_sent", expectedWindows);
      out.put("instances", instances);
      out.put("instances_equal_distinct_windows", instances == expectedWindows);
      out.put("tasks_with_instance_count_mismatch", mismatchedTasks);
      out.put("journal_events_by_type", node.eventsByType());
      out.put("load_average_after", load());
      Bench.progress("  event-ingest (batch %d): %.0f accepted/s (new ids), %d of %d duplicates recognised, load %s -> %s", batch,
          accepted / elapsed, oc.getOrDefault("DUPLICATE", 0L), sentDup.get(), out.get("load_average_before"),
          out.get("load_average_after"));
      out.put("note", "each task listens to its own type bench.e<i>; hourly windows (UTC) by event time over the last 20 hours; "
          + "each publisher thread calls publish(...).get() (batch 1) or publishAll(batch events).get() in a loop, choosing a "
          + "random task for each event, and re-sends one of its own earlier ids with the share above; accepted = events with "
          + "a new id; latency = the call's round trip in ms (latency_duplicate: calls of duplicates only); "
          + "warm-up of one event per task before the clock starts (in the window check, not in the rates). The windows' "
          + "jobs (8 at a time) run during the measurement.");
      return out;
    }
  }

  // ---------------------------------------------------------------- dependency-latency

  private static final Pattern WINDOW = Pattern.compile("\"window\":\"(\\d[^\"]+)\"");
  private static final Pattern AT = Pattern.compile("\"at\":\"([^\"]+)\"");

  static Map<String, Object> dependencyLatency(int pairs, int seconds, Path dir) throws Exception {
    Map<String, Object> out = Workloads.head("almanac", "dependency-latency", new AlmanacSut());
    out.put("pairs", pairs);
    out.put("load_average_before", load());
    String cron = "0/5 * * * * ? UTC";
    out.put("cron", cron);
    Recorder rec = new Recorder();
    try (Node node = new Node(Db.at(dir, "deps"), rec, null, null)) {
      List<TaskSpec> ups = new ArrayList<>();
      List<TaskSpec> downs = new ArrayList<>();
      for (int i = 0; i < pairs; i++) {
        ups.add(TaskSpec.builder(Plan.id("a", i)).cron(cron).window(WindowSpec.PER_FIRING).job("bench").build());
        downs.add(TaskSpec.builder(Plan.id("b", i)).cron(cron).window(WindowSpec.PER_FIRING)
            .dependsOn(DependencyTrigger.on(Plan.id("a", i)).mapping(DependencyTrigger.Mapping.SAME_WINDOW)
                .waitAtMost(Duration.ofSeconds(60)))
            .job("bench").build());
      }
      node.register(ups);
      node.register(downs);
      Instant from = Workloads.wholeSecondAfter(3000);
      from = Instant.ofEpochMilli(((from.toEpochMilli() + 4999) / 5000) * 5000); // next 5 s boundary
      Instant to = from.plusSeconds(seconds);
      Bench.progress("  dependency-latency: %d pairs; measuring windows due from %s to %s", pairs, from, to);
      while (System.currentTimeMillis() < to.toEpochMilli() + 10_000) {
        Thread.sleep(200);
      }
      // journal: A's AttemptSucceeded at, B's WindowWaiting / WaitSatisfied / AttemptStarted at, per window
      Map<String, Long> aSucceeded = new HashMap<>();
      Map<String, Long> bStarted = new HashMap<>();
      Map<String, Long> bSatisfied = new HashMap<>();
      Set<String> bWaiting = new HashSet<>();
      try (var ps = node.probe.prepareStatement("SELECT \"persistence_id\", \"event_ser_manifest\", \"write_timestamp\", \"event_payload\""
          + " FROM \"event_journal\" WHERE \"persistence_id\" LIKE 'task|%'")) {
        try (var rs = ps.executeQuery()) {
          while (rs.next()) {
            String task = rs.getString(1).substring(5);
            String type = rs.getString(2);
            String json = new String(rs.getBytes(4), StandardCharsets.UTF_8);
            Matcher wm = WINDOW.matcher(json);
            if (!wm.find()) {
              continue;
            }
            Instant due = Instant.parse(wm.group(1));
            if (due.isBefore(from) || !due.isBefore(to)) {
              continue;
            }
            long at = rs.getLong(3);
            Matcher am = AT.matcher(json);
            if (am.find()) {
              at = Instant.parse(am.group(1)).toEpochMilli();
            }
            String idx = task.substring(1);
            String key = idx + "@" + wm.group(1);
            if (task.startsWith("a") && type.endsWith("AttemptSucceeded")) {
              aSucceeded.put(key, at);
            } else if (task.startsWith("b")) {
              if (type.endsWith("AttemptStarted")) {
                bStarted.put(key, at);
              } else if (type.endsWith("WaitSatisfied")) {
                bSatisfied.put(key, at);
              } else if (type.endsWith("WindowWaiting")) {
                bWaiting.add(key);
              }
            }
          }
        }
      }
      Map<String, Long> bJob = new HashMap<>(); // B's job start (same clock, µs -> ms)
      for (Recorder.Start s : rec.snapshot()) {
        if (s.task().startsWith("b")) {
          bJob.put(s.task().substring(1) + "@" + Instant.ofEpochMilli(s.ownDueMs()), s.startMicros() / 1000);
        }
      }
      List<Double> toStarted = new ArrayList<>();
      List<Double> toSatisfied = new ArrayList<>();
      List<Double> toJob = new ArrayList<>();
      int waitedFirst = 0;
      for (var e : aSucceeded.entrySet()) {
        Long st = bStarted.get(e.getKey());
        if (st != null) {
          toStarted.add((double) (st - e.getValue()));
        }
        Long sat = bSatisfied.get(e.getKey());
        if (sat != null) {
          toSatisfied.add((double) (sat - e.getValue()));
        }
        Long j = bJob.get(e.getKey());
        if (j != null) {
          toJob.add((double) (j - e.getValue()));
        }
        if (bWaiting.contains(e.getKey())) {
          waitedFirst++;
        }
      }
      int expected = pairs * (seconds / 5);
      out.put("windows_expected", expected);
      out.put("a_succeeded", aSucceeded.size());
      out.put("b_started", bStarted.size());
      out.put("b_waiting_before_release", waitedFirst);
      out.put("A_succeeded_to_B_AttemptStarted", Stats.lag(arr(toStarted)));
      out.put("A_succeeded_to_B_WaitSatisfied", Stats.lag(arr(toSatisfied)));
      out.put("A_succeeded_to_B_job_start", Stats.lag(arr(toJob)));
      out.put("journal_events_by_type", node.eventsByType());
      out.put("load_average_after", load());
      out.put("note", "A_i and B_i per-firing on the same cron (every 5 s), B dependsOn A (SAME_WINDOW, waitAtMost 60 s); "
          + "windows due in the measured range; times are each event's at field (entity clock before persist) and "
          + "the job's start on the same machine clock; ms");
      return out;
    }
  }

  // ---------------------------------------------------------------- condition-cpu

  private static Map<String, Object> cpuPhase(Node node, int seconds, AtomicLong polls) throws Exception {
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    var mem = ManagementFactory.getMemoryMXBean();
    long p0 = polls == null ? 0 : polls.get();
    long c0 = os.getProcessCpuTime();
    long w0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long c1 = os.getProcessCpuTime();
    long w1 = System.nanoTime();
    long p1 = polls == null ? 0 : polls.get();
    double wall = (w1 - w0) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", wall);
    m.put("cpu_ms_per_s", (c1 - c0) / 1e6 / wall);
    m.put("cpu_percent_of_one_core", 100.0 * (c1 - c0) / (w1 - w0));
    if (polls != null) {
      m.put("polls", p1 - p0);
      m.put("polls_per_s", (p1 - p0) / wall);
      m.put("cpu_us_per_poll", (p1 - p0) == 0 ? null : (c1 - c0) / 1e3 / (p1 - p0));
    }
    m.put("heap_used_mb_before_gc", mem.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0));
    System.gc();
    System.gc();
    m.put("heap_used_mb_after_gc", mem.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0));
    m.put("load_average", load());
    return m;
  }

  static Map<String, Object> conditionCpu(int tasks, int seconds, int idleSeconds, Path dir) throws Exception {
    Map<String, Object> out = Workloads.head("almanac", "condition-cpu", new AlmanacSut());
    out.put("tasks", tasks);
    out.put("load_average_before", load());
    Recorder rec = new Recorder();
    // 1. the idle node: the same tasks, nothing due
    Map<String, Object> idle;
    try (Node node = new Node(Db.at(dir, "cond-idle"), rec, null, null)) {
      long r0 = System.nanoTime();
      List<TaskSpec> specs = new ArrayList<>();
      Instant later = Instant.now().plus(Duration.ofHours(6));
      for (int i = 0; i < tasks; i++) {
        specs.add(TaskSpec.builder(Plan.id("c", i)).cron(AlmanacSut.cronAt(later)).window(WindowSpec.PER_FIRING).job("bench").build());
      }
      node.register(specs);
      Bench.progress("  condition-cpu: idle node, %d tasks registered in %.1f s; settling 10 s, measuring %d s", tasks,
          (System.nanoTime() - r0) / 1e9, idleSeconds);
      Thread.sleep(10_000);
      idle = cpuPhase(node, idleSeconds, null);
      idle.put("registration_s", (System.nanoTime() - r0) / 1e9);
    }
    out.put("idle_node", idle);
    // 2. the same tasks, a window due at once, waiting for a condition that stays false, polled every 10 s
    AtomicLong polls = new AtomicLong();
    Map<String, Object> cond;
    try (Node node = new Node(Db.at(dir, "cond-poll"), rec, "never", ctx -> {
      polls.incrementAndGet();
      return CompletableFuture.completedFuture(false);
    })) {
      long r0 = System.nanoTime();
      // one registerAll per 1,000 tasks, each chunk's one-shot cron 2 s after that chunk's registration begins
      // (a window due before its registration began is not fired: one due time for all 10,000 left every chunk
      // after the first without a window)
      for (int c = 0; c < tasks; c += 1000) {
        Instant due = Instant.now().plusSeconds(2);
        List<TaskSpec> specs = new ArrayList<>();
        for (int i = c; i < Math.min(tasks, c + 1000); i++) {
          specs.add(TaskSpec.builder(Plan.id("c", i)).cron(AlmanacSut.cronAt(due)).window(WindowSpec.PER_FIRING)
              .when(ConditionTrigger.named("never").every(Duration.ofSeconds(10)).waitAtMost(Duration.ofHours(2)))
              .job("bench").build());
        }
        node.register(specs);
      }
      double regS = (System.nanoTime() - r0) / 1e9;
      Bench.progress("  condition-cpu: %d condition tasks registered in %.1f s; waiting for the first polls", tasks, regS);
      long deadline = System.currentTimeMillis() + 60_000;
      while (polls.get() < tasks && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
      }
      long firstPolls = System.nanoTime();
      out.put("polls_before_measuring", polls.get());
      Thread.sleep(5_000);
      Bench.progress("  condition-cpu: %d polls so far (%.1f s after registration); measuring %d s", polls.get(),
          (firstPolls - r0) / 1e9, seconds);
      cond = cpuPhase(node, seconds, polls);
      cond.put("registration_s", regS);
      cond.put("journal_events_by_type", node.eventsByType());
      cond.put("jobs_run", rec.snapshot().size());
    }
    out.put("condition_node", cond);
    double ci = ((Number) idle.get("cpu_ms_per_s")).doubleValue();
    double cc = ((Number) cond.get("cpu_ms_per_s")).doubleValue();
    out.put("cpu_ratio_condition_to_idle", ci == 0 ? null : cc / ci);
    out.put("cpu_ms_per_s_added_by_polling", cc - ci);
    out.put("note", "same JVM, one node after the other, each on a fresh store; idle: the tasks' one window is 6 h away; "
        + "condition: a per-firing window due 2 s after the registration began, WAITING for a condition polled every "
        + "10 s that answers false at once (waitAtMost 2 h); measured after every task was polled once + 5 s; "
        + "CPU = com.sun.management.OperatingSystemMXBean.getProcessCpuTime over the measured span (whole JVM, harness included)");
    return out;
  }
}

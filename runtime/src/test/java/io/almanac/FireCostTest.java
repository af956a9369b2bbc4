package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingResult;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What one fresh fire costs, counted (operations, not time): journal writes, rows and bytes, and
 * the messages the trigger, the task entity and the executor receive, from the trigger's fire to
 * the recorded result. The regression guard of the fire path's budget (principle 10).
 */
class FireCostTest {

  private ActorTestKit testKit;
  private SettableClock clock;
  /** The deadline of the task "cost" (docs/deadlines.md), or null for none (the budget's tests). */
  private Duration deadline;
  /**
   * How long a wait gives up after (each ends as soon as what it waits for happened): scaled to the
   * node's size, for the trigger of 100,000 tasks answers its first asks after it read them all. What
   * the tests assert are counts, which no deadline changes.
   */
  private Duration patience = PATIENCE;
  /** The first fire of task "cost" (its spec recorded with it): writes, rows, spec rows; ms from ready to its result. */
  private long[] firstFire;
  private long readyToFirstMs;
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  /**
   * Per persistence id: writes (persist calls), rows (events), bytes (serialized events), and the
   * spec rows ({@code SpecDefined}) apart: a task records its registered spec with its first fire, in
   * that fire's first write, so rows and bytes count the fire's own events and the spec is counted on
   * its own.
   */
  static final class Journal {
    final Map<String, long[]> byPid = new ConcurrentHashMap<>();

    final Map<String, java.util.concurrent.CountDownLatch> succeeded = new ConcurrentHashMap<>();

    java.util.concurrent.CountDownLatch awaitSuccess(String window) {
      return succeeded.computeIfAbsent(window, k -> new java.util.concurrent.CountDownLatch(1));
    }

    void wrote(String pid, List<Object> events, Serialization serialization) {
      count(pid, events, serialization);
      for (Object e : events) { // after the counts: a waiter reads them with the success
        if (e instanceof io.almanac.journal.TaskJournal.AttemptSucceeded ok) {
          awaitSuccess(ok.window()).countDown();
        }
      }
    }

    private void count(String pid, List<Object> events, Serialization serialization) {
      long bytes = 0;
      long specs = 0;
      for (Object e : events) {
        if (e instanceof io.almanac.journal.TaskJournal.SpecDefined) {
          specs++;
        } else if (!(e instanceof io.almanac.journal.TriggerJournal.Event)) {
          bytes += serialization.serialize(e).get().length; // the trigger's (specs by the thousand): counted, not sized
        }
      }
      long[] c = byPid.computeIfAbsent(pid, k -> new long[4]);
      synchronized (c) {
        c[0]++;
        c[1] += events.size() - specs;
        c[2] += bytes;
        c[3] += specs;
      }
    }

    long[] of(String pid) {
      long[] c = byPid.getOrDefault(pid, new long[4]);
      synchronized (c) {
        return c.clone();
      }
    }

    /** Writes summed over the task entities' journals ({@code task|...}). */
    long taskWrites() {
      long n = 0;
      for (Map.Entry<String, long[]> e : byPid.entrySet()) {
        if (e.getKey().startsWith("task|")) {
          n += of(e.getKey())[0];
        }
      }
      return n;
    }
  }

  /** Messages by actor and class. */
  static final class Messages {
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    /** Every message but the background ones, counted or not: how {@link #settle} sees that nothing is in flight. */
    final AtomicLong seen = new AtomicLong();
    volatile boolean on;

    void received(String actor, Object message) {
      if (!Cost.background(actor + " <- " + name(message))) {
        seen.incrementAndGet();
      }
      if (on) {
        counts.computeIfAbsent(actor + " <- " + name(message), k -> new AtomicLong()).incrementAndGet();
      }
    }

    static String name(Object m) {
      String n = m.getClass().getName();
      return n.substring(n.lastIndexOf('.') + 1);
    }
  }

  record Cost(long writes, long rows, long bytes, Map<String, Long> messages, long copied, long visited) {
    /**
     * The messages up to the recorded result: all but what answers the result (its acknowledgement to
     * the executor, the task's wake-up report after it, an announced success) and the job's thread's
     * news to the executor that the job ended ({@code JobReturned}: it frees the slot, sent alongside
     * the result's report to the task, not on the way to the recorded result).
     */
    long toResult() {
      return protocolMessages() - messages.getOrDefault("executor <- Executor$ReportDone", 0L)
          - messages.getOrDefault("executor <- Executor$JobReturned", 0L)
          - messages.getOrDefault("trigger <- TriggerProtocol$TaskWakes", 0L)
          - messages.getOrDefault("trigger <- TriggerProtocol$UpstreamDone", 0L);
    }

    long protocolMessages() {
      return messages.entrySet().stream().filter(e -> !background(e.getKey())).mapToLong(Map.Entry::getValue).sum();
    }

    /** Periodic ticks and journal replies: not messages a fire sends. */
    static boolean background(String key) {
      return key.endsWith("Tick") || key.endsWith("Check") || key.contains("GetStatus") || key.contains("HeartbeatLog")
          || key.contains("GetWindows")
          || key.contains("InternalProtocol") || key.contains("JournalResponse") || key.contains("WriteMessage")
          || key.contains("Response") || key.endsWith("$INSTANCE") || key.contains("LeaseTimer");
    }
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  /** A node's test kit on the in-memory journal, its clock at 23:59 the day before, its writes counted. */
  private Journal startKit(String name, String config) {
    clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    testKit = ActorTestKit.create(name, AlmanacNodeTest.config(config));
    Journal journal = new Journal();
    Serialization serialization = SerializationExtension.get(testKit.system());
    PersistenceTestKit.create(testKit.system()).withPolicy((String pid, JournalOperation op) -> {
      if (op instanceof WriteEvents w) {
        journal.wrote(pid, w.getBatch(), serialization);
      }
      return (ProcessingResult) ProcessingSuccess$.MODULE$;
    });
    return journal;
  }

  private Cost fireWithHotWindows(int hot) {
    return fire(hot, 0);
  }

  /**
   * The cost of one fresh fire of task "cost" after {@code hot} windows of it, on a node whose
   * trigger also knows {@code otherTasks} more tasks (daily at noon: none due meanwhile), recorded in
   * the trigger's journal before the node starts, as a node restarted with that many tasks finds them.
   */
  private Cost fire(int hot, int otherTasks) {
    // with other tasks, the in-memory journal keeps events as objects: 100,000 specs go through Jackson
    // only for the counted bytes (a real journal's recovery reads them once; here it would be twice)
    patience = PATIENCE.plusSeconds(otherTasks / 1000);
    // backlog rates high enough for the catch-up of the hot windows to run at once (a fresh fire is never held by them)
    Journal journal = startKit("fire-cost", "almanac.task { hot-windows = 600, max-backfill-windows = 300 }\n"
        + "almanac.executor { backlog-rate = 10000, backlog-burst = 10000, backlog-rate-per-task = 10000,"
        + " backlog-burst-per-task = 10000 }"
        + (otherTasks > 0 ? "\npekko.persistence.testkit.events.serialize = off" : ""));
    if (otherTasks > 0) {
      List<Object> registered = new java.util.ArrayList<>();
      List<io.almanac.journal.SpecRecord> batch = new java.util.ArrayList<>();
      for (int i = 0; i < otherTasks; i++) {
        batch.add(io.almanac.journal.SpecRecord.of(TaskSpec.builder(String.format("other-%06d", i)).cron("0 0 12 * * ? UTC")
            .window("per-firing").job("noop").build()));
        if (batch.size() == 1000 || i == otherTasks - 1) {
          registered.add(new io.almanac.journal.TriggerJournal.TasksRegistered(List.copyOf(batch), clock.instant(), clock.instant()));
          batch.clear();
        }
      }
      PersistenceTestKit.create(testKit.system()).persistForRecovery(io.almanac.journal.TriggerJournal.PERSISTENCE_ID, registered);
    }
    Messages messages = new Messages();
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("noop", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")))
        .messageTap(messages::received).start();
    NodeReady.await(almanac);
    long ready = System.nanoTime();
    // every minute, one window per firing; missed windows are recorded MISSED (catch-up none)
    // with hot windows: the windows the clock jumps over are caught up as backfills that run and stay hot (missed
    // ones would be one skip range, docs/skip-ranges.md, and no hot windows)
    await(almanac.register(TaskSpec.builder("cost").cron("0 * * * * ? UTC").window("per-firing").job("noop")
        .catchUp(hot > 1 ? CatchUpPolicy.all() : CatchUpPolicy.none()).deadline(deadline).build()));
    long[] registered = journal.of("task|cost");
    assertEquals(0, registered[0], "journal writes of the task's registration to its entity");
    Instant first = Instant.parse("2026-11-29T00:00:00Z");
    java.util.concurrent.CountDownLatch firstDone = journal.awaitSuccess(first.toString());
    clock.set(first);
    try {
      assertTrue(firstDone.await(patience.toSeconds(), TimeUnit.SECONDS), "the first fire's result was recorded");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    readyToFirstMs = (System.nanoTime() - ready) / 1_000_000;
    firstFire = journal.of("task|cost");
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, status(almanac, first)));
    if (hot > 1) {
      // the clock jumps: the windows in between are caught up (run as backfills), and stay hot
      Instant later = first.plus(Duration.ofMinutes(hot));
      clock.set(later);
      // 500 backfills on a loaded 2-core machine can take more than a minute: a longer deadline, and a
      // slower poll (each reads every window of the task), for this phase only; what is measured is counted
      backfills(() -> assertTrue(await(almanac.windows("cost")).size() >= hot, "hot windows"));
      backfills(() -> assertTrue(await(almanac.windows("cost")).stream().noneMatch(w -> w.status().isActive()),
          "the backfills ran"));
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, status(almanac, later)));
    }
    settle(messages);
    Instant due = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
    clock.set(due.minusSeconds(1));
    settle(messages);
    long[] before = journal.of("task|cost");
    long copiedBefore = io.almanac.journal.WorkMeter.copied();
    long visitedBefore = io.almanac.journal.WorkMeter.visited();
    messages.on = true;
    java.util.concurrent.CountDownLatch recorded = journal.awaitSuccess(due.toString());
    clock.set(due);
    try {
      assertTrue(recorded.await(patience.toSeconds(), TimeUnit.SECONDS), "the fire's result was recorded");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    // the messages that follow the result (acknowledgements, wake-ups): the executor's receipt of the task's
    // acknowledgement comes last on the result's path; then whatever else was in flight
    eventually(() -> assertTrue(messages.counts.containsKey("executor <- Executor$ReportDone"), "the result acknowledged"));
    settle(messages);
    messages.on = false;
    long copied = io.almanac.journal.WorkMeter.copied() - copiedBefore;
    long visited = io.almanac.journal.WorkMeter.visited() - visitedBefore;
    long[] after = journal.of("task|cost");
    Map<String, Long> counted = new TreeMap<>();
    messages.counts.forEach((k, v) -> counted.put(k, v.get()));
    return new Cost(after[0] - before[0], after[1] - before[1], after[2] - before[2], counted, copied, visited);
  }

  private InstanceStatus status(Almanac almanac, Instant window) {
    return await(almanac.windows("cost")).stream().filter(w -> w.window().value().equals(window.toString()))
        .map(WindowView::status).findFirst().orElse(null);
  }

  private void settle() {
    try {
      Thread.sleep(300); // no clock moves meanwhile: only what is in flight completes
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until what is in flight completed: no message but the background ones for a quiet spell
   * (no clock moves meanwhile, so nothing new starts), at most {@link #patience}. A fixed pause was
   * too short on a loaded machine: the messages after a result then fell outside the count.
   */
  private void settle(Messages messages) {
    long deadline = System.nanoTime() + patience.toNanos();
    long last = -1;
    while (messages.seen.get() != last && System.nanoTime() < deadline) {
      last = messages.seen.get();
      settle();
    }
  }

  private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(patience.toSeconds(), TimeUnit.SECONDS).join();
  }

  private void backfills(Runnable assertion) {
    testKit.createTestProbe().awaitAssert(patience.multipliedBy(3), Duration.ofMillis(500), () -> {
      assertion.run();
      return null;
    });
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(patience, Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  @Test
  @DisplayName("principle 10: a fresh fire of an idle task costs at most 2 journal writes and 2 rows, and at most 6 "
      + "messages from the trigger's fire to the recorded result, with 1 hot window as with 500, on a node of 1 task as "
      + "on a node of 100,000")
  void freshFireBudget() {
    Cost one = fireWithHotWindows(1);
    System.out.println("fire cost, 1 hot window: " + one.writes() + " writes, " + one.rows() + " rows, " + one.bytes()
        + " bytes, " + one.protocolMessages() + " messages, " + one.copied() + " window entries copied, " + one.visited()
        + " windows visited: " + one.messages());
    stop();
    testKit = null;
    Cost many = fireWithHotWindows(500);
    System.out.println("fire cost, 500 hot windows: " + many.writes() + " writes, " + many.rows() + " rows, " + many.bytes()
        + " bytes, " + many.protocolMessages() + " messages, " + many.copied() + " window entries copied, " + many.visited()
        + " windows visited: " + many.messages());
    System.out.println("first fire of a task registered and never written (its spec recorded with it): " + firstFire[0]
        + " writes, " + firstFire[1] + " rows and " + firstFire[3] + " spec row");
    assertTrue(firstFire[0] <= 2, "journal writes of a first fire, its spec included: " + firstFire[0]);
    assertEquals(1, firstFire[3], "the spec is recorded once, with the first fire");
    for (Cost c : List.of(one, many)) {
      assertTrue(c.writes() <= 2, "journal writes per fire: " + c.writes());
      assertTrue(c.rows() <= 2, "journal rows per fire: " + c.rows());
      assertTrue(c.bytes() <= 600, "bytes written per fire: " + c.bytes());
      assertTrue(c.toResult() <= 6, "messages from the fire to the recorded result: " + c.toResult() + " " + c.messages());
      // 9 in all: Fire, Offer, Admitted, Started, FinishAttempt, FireDone (6 to the recorded result),
      // then ReportDone, TaskWakes, and JobReturned (the job's thread tells the executor the job ended
      // so its slot is free at once, not when the result is acknowledged: one message more than when
      // the acknowledgement freed the slot, 8 before)
      assertTrue(c.protocolMessages() <= 9, "messages of a fire in all (acknowledgements after the result included): "
          + c.protocolMessages() + " " + c.messages());
      assertEquals(0, c.copied(), "window entries copied per fire");
    }
    // the work does not grow with the hot windows: the same walks, the same messages
    assertEquals(one.visited(), many.visited(), "windows visited with 1 and with 500 hot windows");
    assertEquals(one.protocolMessages(), many.protocolMessages());
    assertTrue(many.visited() <= 10, "windows visited per fire: " + many.visited());
    // the node's task count: the same fire with 100,000 other tasks in the trigger
    stop();
    testKit = null;
    long t0 = System.nanoTime();
    Cost crowded = fire(1, 100_000);
    System.out.println("fire cost, node of 100,000 tasks: " + crowded.writes() + " writes, " + crowded.rows() + " rows, "
        + crowded.bytes() + " bytes, " + crowded.protocolMessages() + " messages, " + crowded.visited() + " windows visited: "
        + crowded.messages() + " (" + (System.nanoTime() - t0) / 1_000_000 + " ms from the node's start to the fire's end; "
        + readyToFirstMs + " ms from ready to the first fire's result)");
    assertTrue(firstFire[0] <= 2, "journal writes of a first fire on a node of 100,000 tasks: " + firstFire[0]);
    assertEquals(one.writes(), crowded.writes(), "journal writes per fire, 1 task and 100,000");
    assertEquals(one.rows(), crowded.rows(), "journal rows per fire, 1 task and 100,000");
    // the same events: only an instant's text may differ in length (e.g. 00:00:01.5Z and 00:00:01.25Z)
    assertTrue(Math.abs(one.bytes() - crowded.bytes()) <= 8, "bytes per fire: " + one.bytes() + " and " + crowded.bytes());
    assertEquals(protocol(one), protocol(crowded), "messages per fire by receiver and kind, 1 task and 100,000");
    assertEquals(one.visited(), crowded.visited(), "windows visited per fire, 1 task and 100,000");
  }

  @Test
  @DisplayName("skip ranges: a streak of 100 windows skipped while the previous run runs costs at most 3 journal writes "
      + "(one: the range opened by its first window; the close rides on the next window's own write)")
  void skipStreakBudget() {
    Journal journal = startKit("fire-cost-streak", "almanac.task { hot-windows = 600, max-backfill-windows = 300 }");
    Messages messages = new Messages();
    messages.on = true;
    CompletableFuture<JobResult> hold = new CompletableFuture<>();
    Instant first = Instant.parse("2026-11-29T00:00:00Z");
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("hold", ctx -> ctx.window().value().equals(first.toString()) ? hold
            : CompletableFuture.completedFuture(JobResult.success("ok")))
        .messageTap(messages::received).start();
    NodeReady.await(almanac);
    clock.set(first.minusSeconds(1)); // registered a second before its first window: no window before it is due
    await(almanac.register(TaskSpec.builder("streak").cron("* * * * * ? UTC").window("per-firing").job("hold")
        .overlap(io.almanac.OverlapPolicy.SKIP).build()));
    clock.set(first);
    eventually(() -> assertEquals(InstanceStatus.RUNNING, statusOf(almanac, "streak", first)));
    settle(messages);
    long[] before = journal.of("task|streak");
    for (int i = 1; i <= 100; i++) {
      long fired = fires(messages);
      clock.set(first.plusSeconds(i));
      eventually(() -> assertTrue(fires(messages) > fired, "the trigger fired the next window"));
    }
    settle(messages);
    long[] streak = journal.of("task|streak");
    long writes = streak[0] - before[0];
    long rows = streak[1] - before[1];
    System.out.println("skip streak of 100 windows: " + writes + " writes, " + rows + " rows, " + (streak[2] - before[2])
        + " bytes");
    assertTrue(writes <= 3, "journal writes for a streak of 100 skipped windows: " + writes);
    assertTrue(rows <= 3, "journal rows for a streak of 100 skipped windows: " + rows);
    List<WindowView> listed = await(almanac.windows("streak"));
    assertEquals(2, listed.size(), "the running window and the range's first: " + listed);
    // the previous run ends; the next window runs, and its write closes the range
    hold.complete(JobResult.success("ok"));
    Instant next = first.plusSeconds(101);
    clock.set(next);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, statusOf(almanac, "streak", next)));
    settle(messages);
    long[] after = journal.of("task|streak");
    System.out.println("skip streak closed by the next run: " + (after[0] - streak[0]) + " writes, " + (after[1] - streak[1])
        + " rows (the previous run's result, the next window's start with the close, its result)");
    assertTrue(after[0] - streak[0] <= 3, "the close costs no write of its own: " + (after[0] - streak[0]));
  }

  /** Fires the trigger sent (on time or caught up), as counted by the tap. */
  private static long fires(Messages messages) {
    long n = 0;
    for (Map.Entry<String, AtomicLong> e : messages.counts.entrySet()) {
      if (e.getKey().endsWith("$Fire") || e.getKey().endsWith("$CatchUp")) {
        n += e.getValue().get();
      }
    }
    return n;
  }

  private InstanceStatus statusOf(Almanac almanac, String task, Instant window) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(window.toString()))
        .map(WindowView::status).findFirst().orElse(null);
  }

  @Test
  @DisplayName("a deadline that is met costs a fresh fire nothing: the same journal writes, rows and messages as without "
      + "one (its timer is started and cancelled on the entity, no message)")
  void deadlineMetCostsNothing() {
    Cost without = fireWithHotWindows(1);
    stop();
    testKit = null;
    deadline = Duration.ofHours(1);
    Cost with = fireWithHotWindows(1);
    System.out.println("fire cost, with a deadline of 1 h met: " + with.writes() + " writes, " + with.rows() + " rows, "
        + with.bytes() + " bytes, " + with.protocolMessages() + " messages: " + with.messages());
    assertEquals(without.writes(), with.writes(), "journal writes");
    assertEquals(without.rows(), with.rows(), "journal rows");
    assertTrue(Math.abs(without.bytes() - with.bytes()) <= 8, "bytes: " + without.bytes() + " and " + with.bytes());
    assertEquals(without.toResult(), with.toResult(), "messages to the result: " + with.messages());
    assertEquals(without.copied(), with.copied());
  }

  @Test
  @DisplayName("registering 1,000 tasks costs at most 2 trigger journal writes and no task entity write; registering "
      + "them again unchanged writes nothing; a changed spec is recorded by its entity with its next fire")
  void registrationBudget() {
    Journal journal = startKit("registration-cost", "");
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("noop", ctx -> CompletableFuture.completedFuture(JobResult.success("ok"))).start();
    NodeReady.await(almanac);
    String trigger = io.almanac.journal.TriggerJournal.PERSISTENCE_ID;
    long triggerBefore = journal.of(trigger)[0];
    List<TaskSpec> specs = new java.util.ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      specs.add(TaskSpec.builder(String.format("reg-%04d", i)).cron("0 0 12 * * ? UTC").window("per-firing").job("noop").build());
    }
    long t0 = System.nanoTime();
    await(almanac.registerAll(specs));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    long triggerWrites = journal.of(trigger)[0] - triggerBefore;
    System.out.println("registration of 1,000 tasks: " + triggerWrites + " trigger writes, " + journal.taskWrites()
        + " task entity writes, " + ms + " ms");
    assertTrue(triggerWrites <= 2, "trigger writes of registering 1,000 tasks: " + triggerWrites);
    assertEquals(0, journal.taskWrites(), "task entity writes of registering 1,000 tasks");
    // again, unchanged: nothing
    long again = journal.of(trigger)[0];
    long t1 = System.nanoTime();
    await(almanac.registerAll(specs));
    System.out.println("registration of the same 1,000 tasks again (unchanged): " + (System.nanoTime() - t1) / 1_000_000 + " ms");
    assertEquals(again, journal.of(trigger)[0], "trigger writes of registering unchanged specs");
    assertEquals(0, journal.taskWrites(), "task entity writes of registering unchanged specs");
    // the first fire records the spec, with its window, in one write
    clock.set(Instant.parse("2026-11-29T12:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, await(almanac.windows("reg-0007")).stream()
        .filter(w -> w.window().value().equals("2026-11-29T12:00:00Z")).map(WindowView::status).findFirst().orElse(null)));
    long[] fired = journal.of("task|reg-0007");
    assertEquals(1, fired[3], "the spec recorded once");
    // 2 writes (the spec rides in the first), or 3 when it waited for a job slot among the 1,000 due at once
    // (its PENDING schedule, its start, its result: queuedFireBudget)
    assertTrue(fired[0] <= 3, "writes of the first fire, its spec included: " + fired[0]);
    // a changed spec: the trigger writes it; its entity records it with its next fire
    TaskSpec changed = TaskSpec.builder("reg-0007").cron("0 0 12 * * ? UTC").window("per-firing").job("noop")
        .description("changed").build();
    await(almanac.register(changed));
    assertEquals(fired[0], journal.of("task|reg-0007")[0], "a changed spec is not written to the entity at registration");
    clock.set(Instant.parse("2026-11-30T12:00:00Z"));
    eventually(() -> assertEquals(2, journal.of("task|reg-0007")[3], "the changed spec recorded with the next fire"));
    eventually(() -> assertEquals("changed", await(almanac.task("reg-0007")).spec().description()));
  }

  /** The messages a fire sends, by receiver and kind (ticks and journal replies left out). */
  private static Map<String, Long> protocol(Cost c) {
    Map<String, Long> m = new TreeMap<>();
    c.messages().forEach((k, v) -> {
      if (!Cost.background(k)) {
        m.put(k, v);
      }
    });
    return m;
  }


  @Test
  @DisplayName("principle 10: a fire that must wait for a job slot costs at most 3 journal writes and 3 rows (its PENDING "
      + "schedule, its start once admitted, its result)")
  void queuedFireBudget() throws Exception {
    Journal journal = startKit("fire-cost-queued", String.join("\n",
        "almanac.executor.max-concurrent = 1", "almanac.executor.prefetch-per-slot = 0"));
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    java.util.concurrent.CountDownLatch blocking = new java.util.concurrent.CountDownLatch(1);
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { })
        .job("noop", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")))
        .job("hold", ctx -> {
          blocking.countDown();
          return release;
        })
        .start();
    NodeReady.await(almanac);
    // the holder fires a second before the cost task, so its job has the only slot when the cost task fires
    // (due at the same instant, either could take it first)
    Instant holderDue = Instant.parse("2026-11-29T00:00:00Z");
    Instant due = holderDue.plusSeconds(1);
    await(almanac.register(TaskSpec.builder("holder").cron("0 0 0 * * ? UTC").window("per-firing").job("hold").build()));
    await(almanac.register(TaskSpec.builder("cost").cron("1 0 0 * * ? UTC").window("per-firing").job("noop").build()));
    long[] before = journal.of("task|cost"); // nothing: registration writes no entity (its spec comes with its first fire)
    assertEquals(0, before[0], "entity writes of a registration");
    java.util.concurrent.CountDownLatch recorded = journal.awaitSuccess(due.toString());
    clock.set(holderDue);
    assertTrue(blocking.await(patience.toSeconds(), TimeUnit.SECONDS), "the holder's job took the only slot");
    clock.set(due);
    // the cost task's window waits: its PENDING schedule is written, and nothing else until the slot frees
    eventually(() -> assertEquals(InstanceStatus.PENDING, await(almanac.windows("cost")).stream()
        .filter(w -> w.window().value().equals(due.toString())).map(WindowView::status).findFirst().orElse(null)));
    release.complete(JobResult.success("done"));
    assertTrue(recorded.await(patience.toSeconds(), TimeUnit.SECONDS), "the waiting fire's result was recorded");
    settle();
    long[] after = journal.of("task|cost");
    long writes = after[0] - before[0];
    long rows = after[1] - before[1];
    System.out.println("fire cost, waiting for a slot: " + writes + " writes, " + rows + " rows, " + (after[2] - before[2])
        + " bytes, and " + (after[3] - before[3]) + " spec row in its first write");
    assertTrue(writes <= 3, "journal writes of a fire that waited for a slot: " + writes);
    assertTrue(rows <= 3, "journal rows of a fire that waited for a slot: " + rows);
    assertTrue(after[2] - before[2] <= 700, "bytes of a fire that waited for a slot: " + (after[2] - before[2]));
  }
}

package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Overload, played on the executor's pure admission with a model of the rest (no actors, a virtual
 * clock in millisecond steps): 1,000 tasks fire every second, overlap SKIP, on 8 slots; a job takes
 * 1 ms, the journal write of a start 20 ms and that of a result 10 ms. As in the executor, a slot is
 * given back when its job ends; the window stays RUNNING until its result is recorded, and results
 * not recorded yet are bounded (max-pending-results, 4 x max-concurrent = 32): at the bound nothing
 * is admitted or taken into a slot. At every step the windows RUNNING in their tasks are counted
 * against the attempts in slots and the results pending: RUNNING - in slots - results pending never
 * exceeds the prefetch's bound (max-concurrent x prefetch-per-slot), results pending never exceed
 * their bound, and the overlap policy skips a window for PREVIOUS_RUNNING mostly against a window
 * that really runs or has run (R6, R17, R21). The model can also hold the slot through the result's
 * write (the rule before): the figures of both are printed (docs/start-ahead.md).
 */
class AdmissionOverloadTest {
  private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");
  private static final int TASKS = 1000;
  private static final int SLOTS = 8;
  private static final int PER_SLOT = 4;
  private static final long JOB_MS = 1;
  private long startWriteMs = 20;
  private long resultWriteMs = 10;
  /** The rule before: the slot is held until the result is recorded (no results pending outside the slots). */
  private boolean slotHeldThroughResult;
  private static final long SECONDS = 10;

  /** One task's windows as its entity sees them (overlap SKIP, at most 2 fresh windows waiting). */
  private static final class Task {
    final ArrayDeque<String> pending = new ArrayDeque<>();
    String offered; // offered or admitted, not yet started
    String running; // RUNNING: its start is recorded, its result not yet
  }

  private record Slot(String taskId, String window, Instant takenAt) {}

  private final TreeMap<Long, List<Runnable>> events = new TreeMap<>();
  private final Map<String, Task> tasks = new HashMap<>();
  private final List<Slot> slots = new ArrayList<>();
  /** Jobs that ended, their results not recorded yet (by task). */
  private final List<Slot> pending = new ArrayList<>();
  private int maxPending;
  private Admission<String> admission;
  private long now;
  private int started;
  private int ran;
  private int skippedRunning;
  private int skippedRunningPhantom;
  private int skippedQueueFull;
  private int maxStartedWithoutSlot;
  private long busySlotMs;

  private Instant at(long ms) {
    return T0.plusMillis(ms);
  }

  private void at(long ms, Runnable r) {
    events.computeIfAbsent(ms, k -> new ArrayList<>()).add(r);
  }

  @Test
  @DisplayName("R6, R21: under overload RUNNING - in slots <= the prefetch's bound at every step; the slots stay busy; "
      + "overlap skips against windows that really run")
  void overloadDegradesToCapacity() {
    String figures = simulate();
    // with the slot given back at the job's end, the slots (8 / 1 ms), the results pending (32 / 10 ms)
    // and the starts (40 / 20 ms) all allow more than the workload: every window runs, but the
    // first second's (the rings fill) and the last write's
    assertTrue(ran > 0.9 * TASKS * SECONDS, figures);
    assertTrue(skippedRunningPhantom <= 0.2 * skippedRunning, "overlap decides against windows that run: " + figures);
  }

  @Test
  @DisplayName("R21: the slot held through the result's write (the rule before): the node runs at 8 / (job + result write)")
  void heldThroughTheResultTheSlotsAreTheCapacity() {
    slotHeldThroughResult = true;
    String figures = simulate();
    double capacity = SLOTS * 1000.0 / (JOB_MS + resultWriteMs) * SECONDS;
    assertTrue(busy > 0.95, "the node runs at its capacity: " + figures);
    assertTrue(ran > 0.9 * capacity && ran < 1.01 * capacity, figures);
  }

  @Test
  @DisplayName("R21: with a slow journal (a start written in 200 ms, a result in 50 ms) the bound holds all the same")
  void aSlowJournalDoesNotWidenTheBound() {
    startWriteMs = 200;
    resultWriteMs = 50;
    String figures = simulate();
    assertTrue(maxStartedWithoutSlot <= 32, figures);
    assertTrue(maxPending <= 32, figures);
    assertTrue(ran > 0, figures);
  }

  @Test
  @DisplayName("R21: result writes of 200 ms: slot held through the result (before) against released at the job's end "
      + "(after, bounded by max-pending-results)")
  void resultWritesOf200ms() {
    startWriteMs = 20;
    resultWriteMs = 200;
    slotHeldThroughResult = true;
    simulate();
    int before = ran;
    reset();
    slotHeldThroughResult = false;
    String after = simulate();
    // before: 8 slots / 201 ms, about 40 a second; after: 32 results pending / 200 ms, about 160 a second
    assertTrue(before < 45 * SECONDS, "before: " + before);
    assertTrue(ran > 3 * before, "after: " + after + "; before " + before);
    assertTrue(maxPending <= 32, after);
  }

  private void reset() {
    events.clear();
    tasks.clear();
    slots.clear();
    pending.clear();
    started = 0;
    ran = 0;
    skippedRunning = 0;
    skippedRunningPhantom = 0;
    skippedQueueFull = 0;
    maxStartedWithoutSlot = 0;
    maxPending = 0;
    busySlotMs = 0;
  }

  private double busy;
  private ExecutorSettings settings;

  /** Plays SECONDS seconds; asserts the bound at every step; answers the figures (also printed). */
  private String simulate() {
    settings = new ExecutorSettings(SLOTS, 4, PER_SLOT, Duration.ofSeconds(1), 1000, 1000, 1000, 1000,
        Duration.ofMillis(50), Duration.ofSeconds(5), 3, Duration.ofMillis(100), Duration.ofSeconds(10),
        Duration.ofSeconds(30), 10, "");
    assertEquals(32, settings.maxPendingResults());
    admission = new Admission<>(settings, T0, new Admission.Watch<>() {
          @Override
          public void watch(String task) {}

          @Override
          public void unwatch(String task) {}
        });
    int bound = admission.prefetchBound();
    assertEquals(32, bound);
    for (int i = 0; i < TASKS; i++) {
      tasks.put("t" + i, new Task());
    }
    long end = SECONDS * 1000;
    for (now = 0; now < end; now++) {
      for (int i = (int) (now % 1000); i < TASKS; i += 1000) {
        fire("t" + i, "s" + (now / 1000));
      }
      List<Runnable> due = events.remove(now);
      if (due != null) {
        due.forEach(Runnable::run);
      }
      admit();
      long runningInTasks = tasks.values().stream().filter(t -> t.running != null).count();
      long withoutSlot = runningInTasks - slots.size() - pending.size();
      assertTrue(withoutSlot <= bound, "at " + now + " ms: " + runningInTasks + " windows RUNNING, " + slots.size()
          + " in slots, " + pending.size() + " results pending: more than " + bound + " started without a slot");
      assertTrue(pending.size() <= settings.maxPendingResults(), "at " + now + " ms: " + pending.size()
          + " results pending, more than max-pending-results " + settings.maxPendingResults());
      maxPending = Math.max(maxPending, pending.size());
      assertTrue(admission.readyCount() <= bound, "at " + now + " ms: " + admission.readyCount()
          + " started attempts wait for a slot, more than " + bound);
      maxStartedWithoutSlot = (int) Math.max(maxStartedWithoutSlot, withoutSlot);
      if (now >= 1000) {
        busySlotMs += slots.size();
      }
    }
    busy = busySlotMs / (double) (SLOTS * (end - 1000));
    double capacity = SLOTS * 1000.0 / (JOB_MS + (slotHeldThroughResult ? resultWriteMs : 0)) * SECONDS;
    String figures = String.format("%s, start write %d ms, result write %d ms: fired %d, started %d, ran %d (%.0f a "
            + "second; slots' capacity about %.0f), slots busy %.1f%%, skipped PREVIOUS_RUNNING %d (of which against a "
            + "window neither in a slot nor with its result pending: %d), skipped start queue full %d, most RUNNING without "
            + "a slot or a pending result at once %d (bound %d), most results pending %d (bound %d)",
        slotHeldThroughResult ? "slot held through the result (before)" : "slot given back at the job's end (after)",
        startWriteMs, resultWriteMs, TASKS * SECONDS, started, ran, ran / (double) SECONDS, capacity, busy * 100,
        skippedRunning, skippedRunningPhantom, skippedQueueFull, maxStartedWithoutSlot, bound, maxPending,
        settings.maxPendingResults());
    System.out.println("AdmissionOverloadTest: " + figures);
    return figures;
  }

  /** A fresh window of a task fires: overlap SKIP as FireDecider decides it (a RUNNING window, or 2 waiting). */
  private void fire(String taskId, String window) {
    Task t = tasks.get(taskId);
    if (t.running != null) {
      skippedRunning++;
      if (slots.stream().noneMatch(s -> s.taskId().equals(taskId))
          && pending.stream().noneMatch(s -> s.taskId().equals(taskId))) {
        skippedRunningPhantom++;
      }
      return;
    }
    if (t.pending.size() >= 2) {
      skippedQueueFull++;
      return;
    }
    t.pending.addLast(window);
    offerNext(taskId, t);
  }

  /** The entity offers its oldest waiting window when nothing of it is offered or runs (one at a time). */
  private void offerNext(String taskId, Task t) {
    if (t.offered == null && t.running == null && !t.pending.isEmpty()) {
      t.offered = t.pending.pollFirst();
      admission.offer(taskId, t.offered, RunKind.FIRST, taskId, false);
    }
  }

  /** Admits what there is room for; each admitted window's start is written startWriteMs later. */
  private void admit() {
    List<Duration> held = slots.stream().map(s -> Duration.between(s.takenAt(), at(now))).toList();
    for (Admission.Offered<String> o : admission.admit(held, pending.size(), at(now))) {
      at(now + startWriteMs, () -> started(o.taskId(), o.window()));
    }
  }

  /** The start is recorded (the window is RUNNING) and its executor hears of it: a slot takes it, or it waits. */
  private void started(String taskId, String window) {
    Task t = tasks.get(taskId);
    t.offered = null;
    t.running = window;
    started++;
    admission.endReservation(taskId + "|" + window, at(now));
    Admission.Ready r = new Admission.Ready(new AttemptItem(taskId, window, "j", RunKind.FIRST, "UTC"),
        new TaskProtocol.AttemptGrant(taskId, window, 1, RunKind.FIRST, at(now).plusSeconds(60), T0, T0, T0, Map.of(),
            List.of(), "e"), at(now));
    if (admission.slotFree(slots.size(), pending.size())) {
      take(r);
    } else {
      admission.ready(r);
    }
  }

  private void take(Admission.Ready r) {
    Slot s = new Slot(r.item().taskId(), r.item().window(), at(now));
    slots.add(s);
    admission.slotTaken(at(now));
    if (slotHeldThroughResult) {
      at(now + JOB_MS + resultWriteMs, () -> {
        slotFreed(s); // the job, then its result's write, in the slot
        resultRecorded(s);
      });
    } else {
      at(now + JOB_MS, () -> {
        slotFreed(s);
        pending.add(s); // its result is on its way: the window is RUNNING until it is recorded
        at(now + resultWriteMs, () -> resultRecorded(s));
        takeWaiting();
      });
    }
  }

  /** The job ended and gave its slot back (the executor heard of it): its task's count released, the pace. */
  private void slotFreed(Slot s) {
    slots.remove(s);
    ran++;
    admission.jobEnded(Duration.ofMillis(JOB_MS), Duration.between(s.takenAt(), at(now)));
    admission.release(s.taskId());
  }

  /** The result is recorded: the window leaves RUNNING, a waiting attempt may take a slot. */
  private void resultRecorded(Slot s) {
    pending.remove(s);
    Task t = tasks.get(s.taskId());
    t.running = null;
    offerNext(s.taskId(), t);
    takeWaiting();
  }

  private void takeWaiting() {
    Admission.Ready r;
    while ((slotHeldThroughResult ? slots.size() < SLOTS : admission.slotFree(slots.size(), pending.size()))
        && (r = admission.pollReady()) != null) {
      take(r);
    }
  }
}

package io.almanac.internal.meter;

import io.almanac.InstanceStatus;
import io.almanac.journal.TaskJournal.State;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gauges of the tasks a node hosts, as each task's last write left it: the intervention queue
 * ({@code almanac.intervention.queue}), windows by status ({@code almanac.windows}), defined and
 * paused tasks ({@code almanac.tasks}, {@code almanac.tasks.paused}), each task's last success
 * ({@code almanac.task.last.success.timestamp}) and whether it never succeeded ({@code
 * almanac.task.never.succeeded}). INTERNAL API.
 */
final class HostedGauges {

  private final MeterRegistry registry;
  private final TaskTags taskTags;
  /** What the gauges say of each task hosted here, as its last write left it. */
  private final Map<String, Hosted> hosted = new ConcurrentHashMap<>();
  /** The tasks whose own series of the last-success and never-succeeded gauges are registered. */
  private final Map<String, Boolean> taskGauges = new ConcurrentHashMap<>();
  /**
   * Tasks the trigger registered here that it did not have before, not fired since: they cannot have
   * succeeded. Forgotten at their first fire's answer (their entity, wherever it runs, knows then).
   */
  private final Map<String, Boolean> neverFired = new ConcurrentHashMap<>();

  /** Registers the gauges, which read what {@link #hosted} keeps at each scrape. */
  HostedGauges(MeterRegistry registry, TaskTags taskTags) {
    this.registry = registry;
    this.taskTags = taskTags;
    Gauge.builder("almanac.intervention.queue", hosted, h -> sum(h, InstanceStatus.FINAL_FAILED))
        .description("FINAL_FAILED windows (the intervention queue) of the tasks this node hosts").register(registry);
    for (InstanceStatus st : Hosted.GAUGED) {
      Gauge.builder("almanac.windows", hosted, h -> sum(h, st)).tag("status", Counts.name(st))
          .description("windows of the tasks this node hosts that have this status now").register(registry);
    }
    Gauge.builder("almanac.tasks.paused", hosted, h -> h.values().stream().filter(Hosted::paused).count())
        .description("paused tasks among those this node hosts").register(registry);
    Gauge.builder("almanac.tasks", hosted, Map::size)
        .description("defined tasks this node hosts").register(registry);
  }

  /**
   * @param taskId a task
   * @return when its newest SUCCEEDED window succeeded, as its last write told, or null
   */
  Instant lastSuccess(String taskId) {
    Hosted was = hosted.get(taskId);
    return was != null ? was.lastSuccess() : null;
  }

  /**
   * Keeps what the gauges say of a hosted task: its windows by status (O(1): the table counts them),
   * whether it is paused, when it last succeeded. A removed or undefined task leaves the gauges.
   *
   * @return whether the task is new to this node's gauges (its first write or recovery here)
   */
  boolean hosted(String taskId, State state, Instant lastSuccess) {
    if (!state.defined() || state.removed()) {
      hosted.remove(taskId);
      return false;
    }
    var t = state.table();
    int[] n = new int[Hosted.GAUGED.size()];
    for (int i = 0; i < n.length; i++) {
      n[i] = t.count(Hosted.GAUGED.get(i));
    }
    // never succeeded: no success known, and every window it ever had still in the hot state (none archived)
    double never = lastSuccess != null ? 0 : state.archivedCount() == 0 ? 1 : Double.NaN;
    return hosted.put(taskId, new Hosted(n, state.paused(), lastSuccess, never)) == null;
  }

  /**
   * Registers a task's gauges of its own ({@code almanac.task.last.success.timestamp} and {@code
   * almanac.task.never.succeeded}) while the cap allows; a task under {@value TaskTags#OTHER} has none
   * (its tag is shared). Once per task.
   */
  void taskGauges(String taskId, String tag) {
    if (TaskTags.OTHER.equals(tag) || taskGauges.putIfAbsent(taskId, Boolean.TRUE) != null) {
      return;
    }
    Gauge.builder("almanac.task.last.success.timestamp", hosted, h -> {
      Hosted x = h.get(taskId);
      return x == null || x.lastSuccess() == null ? Double.NaN : x.lastSuccess().toEpochMilli() / 1000.0;
    }).tag("task", tag).baseUnit("seconds").description("when the task's newest SUCCEEDED window succeeded, in seconds "
        + "since the epoch (NaN while no success is known on this node)").register(registry);
    Gauge.builder("almanac.task.never.succeeded", hosted, h -> {
      Hosted x = h.get(taskId);
      return x != null ? x.neverSucceeded() : neverFired.containsKey(taskId) ? 1 : Double.NaN;
    }).tag("task", tag).description("1 while the task is known never to have succeeded, 0 once it has (NaN: not known on "
        + "this node)").register(registry);
  }

  /** A task new to the trigger, registered on this node's trigger: it cannot have succeeded until it is fired. */
  void firstRegistered(String taskId) {
    neverFired.put(taskId, Boolean.TRUE);
  }

  /** The trigger had an answer to a fire of the task: its entity knows from now on whether it succeeded. */
  void fired(String taskId) {
    if (!neverFired.isEmpty()) {
      neverFired.remove(taskId);
    }
  }

  /**
   * A hosted task's figures for the gauges.
   *
   * @param counts windows by status, in the order of {@link #GAUGED}
   * @param paused whether the task is paused
   * @param lastSuccess when its newest SUCCEEDED window succeeded, or null
   * @param neverSucceeded 1 when no window of the task ever succeeded, 0 when one did, NaN when its
   *     hot windows hold no success but older windows left the hot state (not known)
   */
  private record Hosted(int[] counts, boolean paused, Instant lastSuccess, double neverSucceeded) {
    /** The statuses the {@code almanac.windows} gauge shows. */
    static final List<InstanceStatus> GAUGED = List.of(InstanceStatus.PENDING, InstanceStatus.WAITING,
        InstanceStatus.RUNNING, InstanceStatus.RETRY_WAIT, InstanceStatus.FINAL_FAILED);
  }

  private static double sum(Map<String, Hosted> hosted, InstanceStatus status) {
    int i = Hosted.GAUGED.indexOf(status);
    long n = 0;
    for (Hosted h : hosted.values()) {
      n += h.counts()[i];
    }
    return n;
  }
}

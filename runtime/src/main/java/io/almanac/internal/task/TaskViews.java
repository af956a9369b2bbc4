package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.OverlapPolicy;
import io.almanac.ScheduleComputationException;
import io.almanac.TaskView;
import io.almanac.WindowView;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.WindowList;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * What a task entity shows of itself (its view, its windows) and what it derives from its
 * schedule for that: the schedule built once per spec, its shortest interval and the R8 warning.
 * A schedule that fails never fails the view: the next due time and the interval read as unknown.
 * INTERNAL API.
 */
final class TaskViews {

  private final String taskId;
  private final Clock clock;
  private final Logger log;
  private SpecRecord scheduleOf;
  private TaskSchedule schedule;
  private Duration minInterval;
  private boolean intervalWarned;
  /** Running attempts' live progress, in memory for these views only. */
  private final LiveProgress live = new LiveProgress();

  TaskViews(String taskId, Clock clock, Logger log) {
    this.taskId = taskId;
    this.clock = clock;
    this.log = log;
  }

  /** @return the running attempts' live progress shown by these views */
  LiveProgress live() {
    return live;
  }

  TaskSchedule schedule(State state) {
    if (schedule == null || scheduleOf != state.spec()) {
      schedule = Schedules.of(state.spec().toSpec()); // may refuse a spec stored by an older build
      scheduleOf = state.spec();
      minInterval = null;
      intervalWarned = false;
    }
    return schedule;
  }

  /** The shortest interval between firings, or null while the schedule cannot say. */
  private Duration minInterval(State state) {
    if (minInterval == null) {
      try {
        minInterval = schedule(state).minInterval(clock.instant());
      } catch (InvalidSpecException | ScheduleComputationException e) {
        return null;
      }
    }
    return minInterval;
  }

  private boolean intervalWarning(State state) {
    // The cheap checks first: the minimum interval walks a stretch of the schedule, and every task
    // would pay for it after its first attempt if it came first.
    if (state.samples().count() < state.spec().lease().minSamples()) {
      return false;
    }
    Optional<Duration> p99 = state.samples().p99();
    Duration interval = p99.isPresent() ? minInterval(state) : null;
    return interval != null && p99.get().compareTo(interval) > 0;
  }

  /** R8: warn once per spec when the cron fires more often than a run lasts at P99. */
  void checkInterval(State state) {
    if (!intervalWarned && intervalWarning(state)) {
      intervalWarned = true;
      log.warn("task '{}': cron '{}' fires every {} but its P99 duration is {} (R8); with overlap {} windows will be {}",
          taskId, state.spec().cron(), minInterval(state), state.samples().p99().get(), state.spec().overlap(),
          state.spec().overlap() == OverlapPolicy.SKIP ? "skipped" : "affected");
    }
  }

  TaskView view(State state) {
    Optional<Duration> p99 = state.samples().p99();
    int queue = state.table().finalFailedCount();
    // leniently: a task whose stored spec today's rules refuse (an older build's) can still be viewed
    return TaskView.builder().spec(state.spec().toSpecLeniently()).paused(state.paused())
        .hotWindows(state.windows().size()).archivedWindows(state.archivedCount()).interventionQueue(queue)
        .durationSamples(state.samples().count()).p99(p99.orElse(null)).lease(AttemptLifecycle.currentLease(state))
        .minInterval(minInterval(state)).intervalShorterThanP99(intervalWarning(state))
        .nextDue(state.removed() ? null : nextDue(state)).removedAt(state.removedAt())
        .archivedThrough(state.archivedThrough()).build();
  }

  /**
   * @param state the task's state
   * @param key a window's key
   * @param unknown the refusal when the task has no such window
   * @return the window's view, or that refusal
   */
  Decided<TaskProtocol.WindowList> window(State state, io.almanac.WindowKey key,
      java.util.function.Function<io.almanac.WindowKey, Decided<TaskProtocol.WindowList>> unknown) {
    if (state.window(key.value()).isEmpty()) {
      return unknown.apply(key);
    }
    return Decided.reply(windows(state, w -> w.key().equals(key.value())));
  }

  /** The next due instant, or null when the schedule never fires again or cannot say. */
  private Instant nextDue(State state) {
    try {
      io.almanac.schedule.TaskSchedule schedule = schedule(state);
      return schedule.nextFireAfter(clock.instant()).map(schedule::fireAt).orElse(null); // with jitter: its fire time
    } catch (InvalidSpecException | ScheduleComputationException e) {
      return null;
    }
  }

  WindowList windows(State state, java.util.function.Predicate<WindowState> which) {
    // The cap that applies: 0 for a task not marked for retry (R12).
    int cap = state.spec().retry().maxRetries();
    List<WindowView> out = new ArrayList<>();
    state.windows().values().stream()
        .filter(which)
        .sorted(Comparator.comparing(WindowState::start).thenComparing(WindowState::key))
        .forEach(w -> {
          WindowView v = w.view(taskId, cap);
          WindowView.Progress p = live.of(w);
          out.add(p == null ? v : v.withProgress(p));
        });
    return new WindowList(List.copyOf(out));
  }
}

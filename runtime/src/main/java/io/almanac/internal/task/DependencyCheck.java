package io.almanac.internal.task;

import io.almanac.DependencyTrigger;
import io.almanac.InstanceStatus;
import io.almanac.RefusedException;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.UpstreamReport;
import io.almanac.internal.protocol.TaskProtocol.UpstreamWindow;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pekko.pattern.StatusReply;

/**
 * Dependencies as pure functions (R9): what an upstream task reports about its windows, and whether
 * a dependent window's dependency is met by those reports. INTERNAL API.
 */
final class DependencyCheck {

  /** The most upstream windows one report names. */
  static final int MAX_REPORTED = 1_000;

  private DependencyCheck() {}

  /** Whether a dependency is met, and why (or why not), for people. */
  record Verdict(boolean met, String detail) {}

  /**
   * An upstream task's report for a dependent window: its hot windows with that key or starting in
   * [from, to), and the windows its schedule fires that start in [from, to).
   *
   * @param taskId the upstream task
   * @param state its state
   * @param schedule its schedule, or null when it has none that computes (then nothing is expected)
   */
  static UpstreamReport report(String taskId, State state, TaskSchedule schedule, String key, Instant from, Instant to) {
    if (!state.defined() || state.removed()) {
      return new UpstreamReport(taskId, false, List.of(), List.of());
    }
    List<UpstreamWindow> windows = new ArrayList<>();
    WindowState same = state.windows().get(key);
    if (same != null && (same.start() == null || same.start().isBefore(from) || !same.start().isBefore(to))) {
      windows.add(new UpstreamWindow(same.key(), same.start(), same.end(), same.status(), same.updatedAt()));
    }
    for (WindowState w : state.table().startingIn(from, to)) {
      if (windows.size() >= MAX_REPORTED) {
        break;
      }
      windows.add(new UpstreamWindow(w.key(), w.start(), w.end(), w.status(), w.updatedAt()));
    }
    List<String> expected = new ArrayList<>();
    if (schedule != null && (schedule.cron() != null || schedule.once() != null)) {
      for (DueWindow d : schedule.dueBetween(from.minusNanos(1), to.minusNanos(1), MAX_REPORTED)) {
        Instant start = d.window().start();
        String k = d.window().key().value();
        if (!start.isBefore(from) && start.isBefore(to) && !expected.contains(k)) {
          expected.add(k);
        }
      }
    }
    return new UpstreamReport(taskId, true, windows, expected);
  }

  /**
   * The answer to a dependent's question: the report, or a refusal when the task's cron's firings
   * cannot be computed (the dependent records that it did not answer). A task whose schedule cannot
   * be had reports its windows and expects none.
   *
   * @param taskId this task
   * @param state its state
   * @param schedule its schedule (called only for a defined task; may throw)
   * @param ask the question
   * @param log where a missing schedule is noted
   */
  static StatusReply<UpstreamReport> answer(String taskId, State state, Supplier<TaskSchedule> schedule,
      TaskProtocol.GetUpstreamReport ask, org.slf4j.Logger log) {
    TaskSchedule s = null;
    if (state.defined() && !state.removed()) {
      try {
        s = schedule.get();
      } catch (RuntimeException e) {
        log.debug("task '{}': no schedule to report expected windows from: {}", taskId, e.toString());
      }
    }
    try {
      return StatusReply.success(report(taskId, state, s, ask.key(), ask.from(), ask.to()));
    } catch (RuntimeException e) {
      return StatusReply.error(new RefusedException(RefusedException.Reason.SCHEDULE_FAILED,
          "task '" + taskId + "' cannot list its windows: " + e.getMessage()));
    }
  }

  /**
   * Whether a window's dependency is met by the upstream reports.
   *
   * @param dep the dependency
   * @param window the dependent window
   * @param reports the reports by upstream task id (an absent one is not met)
   * @param errors why a report is absent, by task id
   */
  static Verdict evaluate(SpecRecord.Dependency dep, WindowState window, Map<String, UpstreamReport> reports,
      Map<String, String> errors) {
    List<String> met = new ArrayList<>();
    List<String> unmet = new ArrayList<>();
    for (String upstream : dep.upstream()) {
      UpstreamReport r = reports == null ? null : reports.get(upstream);
      Verdict v = r == null
          ? new Verdict(false, "upstream " + upstream + " did not answer" + (errors != null && errors.get(upstream) != null
              ? " (" + errors.get(upstream) + ")" : ""))
          : one(dep.mapping(), window, r);
      (v.met() ? met : unmet).add(v.detail());
    }
    boolean ok = dep.require() == DependencyTrigger.Require.ALL ? unmet.isEmpty() : !met.isEmpty();
    return new Verdict(ok, String.join("; ", ok ? met : unmet));
  }

  private static Verdict one(DependencyTrigger.Mapping mapping, WindowState window, UpstreamReport r) {
    String u = r.taskId();
    if (!r.defined()) {
      // registration writes no entity: an upstream never fired yet has recorded nothing either
      return new Verdict(false, "upstream " + u + " has recorded nothing (not fired yet, or not registered)");
    }
    switch (mapping) {
      case SAME_WINDOW:
        return single(u, window.key(), r);
      case LATEST_WITHIN: {
        List<String> keys = keysInRange(r);
        return keys.isEmpty() ? new Verdict(false, "upstream " + u + " has no window starting in [" + window.start() + ", "
            + window.end() + ")") : single(u, keys.get(keys.size() - 1), r);
      }
      case ALL_WITHIN:
      default: {
        List<String> keys = keysInRange(r);
        if (keys.isEmpty()) {
          return new Verdict(false, "upstream " + u + " has no window starting in [" + window.start() + ", " + window.end() + ")");
        }
        List<String> waiting = new ArrayList<>();
        for (String k : keys) {
          if (!single(u, k, r).met()) {
            waiting.add(k);
          }
        }
        if (waiting.isEmpty()) {
          return new Verdict(true, "upstream " + u + " succeeded for all " + keys.size() + " of its windows in ["
              + window.start() + ", " + window.end() + ")");
        }
        return new Verdict(false, "upstream " + u + ": " + (keys.size() - waiting.size()) + " of " + keys.size()
            + " windows succeeded; waiting for " + String.join(", ", waiting.subList(0, Math.min(3, waiting.size())))
            + (waiting.size() > 3 ? " and " + (waiting.size() - 3) + " more" : ""));
      }
    }
  }

  /** The keys a range mapping waits for: those the schedule fires, or else those the upstream has. */
  private static List<String> keysInRange(UpstreamReport r) {
    if (!r.expected().isEmpty()) {
      return r.expected();
    }
    return r.windows().stream().sorted(Comparator.comparing(UpstreamWindow::start)).map(UpstreamWindow::key).toList();
  }

  private static Verdict single(String u, String key, UpstreamReport r) {
    for (UpstreamWindow w : r.windows()) {
      if (w.key().equals(key)) {
        boolean ok = w.status() == InstanceStatus.SUCCEEDED || w.status() == InstanceStatus.RESOLVED;
        return new Verdict(ok, "upstream " + u + " window " + key + " is " + w.status()
            + (ok ? " (since " + w.updatedAt() + ")" : ""));
      }
    }
    return new Verdict(false, "upstream " + u + " window " + key + " has no instance yet");
  }
}

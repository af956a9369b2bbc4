package io.almanac.internal.meter;

import io.almanac.SkipReason;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.WindowMissed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's tally of windows that did not run (skipped or missed) and of the REPEATED_SKIPS alerts
 * they raised, logged as one line per interval ({@code almanac.alerts.summary-interval}) instead of a
 * line per window or per alert: under overload thousands of windows a second are skipped, and a line
 * each would cost more than the skips and bury everything else. Each window is still recorded in its
 * task's journal, and each alert still reaches the alert sink. Thread-safe: every task entity of the
 * node counts into it. INTERNAL API.
 */
public final class SkipSummary {
  private static final Logger LOG = LoggerFactory.getLogger(SkipSummary.class);

  /** How many task ids a line names as examples. */
  static final int EXAMPLES = 3;

  private final Object lock = new Object();
  private final Map<String, Long> reasons = new TreeMap<>();
  private final Set<String> tasks = new HashSet<>();
  private final List<String> examples = new ArrayList<>(EXAMPLES);
  private final Set<String> alerted = new HashSet<>();
  private long windows;
  private boolean overload;

  /**
   * Counts the skipped and missed windows among a task's written events (a fresh fire writes neither:
   * one type test per event, no lock).
   *
   * @param taskId the task
   * @param events what it wrote
   */
  public void written(String taskId, List<? extends Event> events) {
    for (Event e : events) {
      if (e instanceof FireSkipped fs) {
        count(taskId, fs.reason().name(), fs.reason() == SkipReason.PREVIOUS_RUNNING || fs.reason() == SkipReason.BUFFER_FULL);
      } else if (e instanceof WindowMissed m) {
        count(taskId, m.reason().name(), false);
      } else if (e instanceof io.almanac.journal.TaskJournal.SkipRangeOpened r) {
        count(taskId, r.range(), 1);
      } else if (e instanceof io.almanac.journal.TaskJournal.WindowsSkipped r) {
        count(taskId, r.range(), r.count());
      }
    }
  }

  /**
   * Counts a REPEATED_SKIPS alert, which the summary names instead of a line of its own.
   *
   * @param taskId the task that raised it
   */
  public void alerted(String taskId) {
    synchronized (lock) {
      alerted.add(taskId);
    }
  }

  /**
   * Counts a window an open skip range covered (no event is written for it: docs/skip-ranges.md).
   *
   * @param taskId the task
   * @param range the open range that covered it
   */
  public void covered(String taskId, io.almanac.journal.SkipRange range) {
    count(taskId, range, 1);
  }

  private void count(String taskId, io.almanac.journal.SkipRange range, long n) {
    SkipReason skip = range.skipReason();
    count(taskId, range.reason(), skip == SkipReason.PREVIOUS_RUNNING || skip == SkipReason.BUFFER_FULL, n);
  }

  private void count(String taskId, String reason, boolean overlap) {
    count(taskId, reason, overlap, 1);
  }

  private void count(String taskId, String reason, boolean overlap, long n) {
    synchronized (lock) {
      windows += n;
      reasons.merge(reason, n, Long::sum);
      if (tasks.add(taskId) && examples.size() < EXAMPLES) {
        examples.add(taskId);
      }
      overload |= overlap;
    }
  }

  /**
   * What was counted since the last call, as a line, and starts counting afresh.
   *
   * @param interval the span the line covers (for its text)
   * @return the line, or null when nothing was skipped or missed
   */
  public Line drain(Duration interval) {
    synchronized (lock) {
      if (windows == 0 && alerted.isEmpty()) {
        return null;
      }
      String span = interval.toMillis() % 1000 == 0 ? interval.toSeconds() + " s" : interval.toMillis() + " ms";
      StringBuilder b = new StringBuilder();
      if (windows > 0) {
        b.append(windows).append(windows == 1 ? " window" : " windows").append(" of ").append(tasks.size())
            .append(tasks.size() == 1 ? " task" : " tasks").append(" did not run in the last ").append(span).append(" (");
        String sep = "";
        for (Map.Entry<String, Long> r : reasons.entrySet()) {
          b.append(sep).append(r.getKey()).append(' ').append(r.getValue());
          sep = ", ";
        }
        b.append("; e.g. task");
        sep = " ";
        for (String id : examples) {
          b.append(sep).append('\'').append(id).append('\'');
          sep = ", ";
        }
        b.append(')');
      }
      if (!alerted.isEmpty()) {
        b.append(windows > 0 ? "; " : "in the last " + span + " ").append(alerted.size())
            .append(alerted.size() == 1 ? " task" : " tasks").append(" raised REPEATED_SKIPS (each alert went to the alert sink)");
      }
      b.append("; each window is recorded in its task's journal");
      Line line = new Line(overload || !alerted.isEmpty(), b.toString());
      windows = 0;
      reasons.clear();
      tasks.clear();
      examples.clear();
      alerted.clear();
      overload = false;
      return line;
    }
  }

  /**
   * Logs what was counted since the last call, if anything: at WARN when windows were skipped because
   * their previous window still ran or waited (the node is behind) or an alert was raised, at INFO
   * otherwise (paused tasks, duplicates, misses by policy).
   *
   * @param interval the span the line covers
   */
  public void log(Duration interval) {
    Line line = drain(interval);
    if (line == null) {
      return;
    }
    if (line.warn()) {
      LOG.warn(line.text());
    } else {
      LOG.info(line.text());
    }
  }

  /**
   * A summary line.
   *
   * @param warn whether it reports windows skipped for being behind, or alerts
   * @param text the line
   */
  public record Line(boolean warn, String text) {}
}

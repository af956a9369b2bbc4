package io.almanac.persistence.audit;

import io.almanac.Usage;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.UsageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A window's durable steps per attempt, from its events in the task's journal: each step an attempt
 * ran and recorded ({@code TaskJournal.StepRecorded}), and each step a later attempt got from that
 * record without running it ({@code TaskJournal.StepsReplayed}, told with the attempt's result). Kept
 * with the window's history, so a done window's steps are shown as long as its journal is.
 */
public final class WindowSteps {
  private WindowSteps() {}

  /** Whether the attempt ran the step or got its recorded result. */
  public enum Kind {
    /** The attempt ran the step and recorded its result (its usage counted here). */
    RECORDED,
    /** The attempt got the result an earlier attempt recorded, without running the step (no usage). */
    REPLAYED
  }

  /**
   * One step of one attempt.
   *
   * @param attempt the attempt
   * @param name the step's name
   * @param kind whether the attempt ran it or replayed it
   * @param recordedBy the attempt that ran and recorded it (this one for {@link Kind#RECORDED}), or 0
   *     when the record is not among the events read
   * @param duration how long the step ran when recorded (also shown on its replays), or null when unknown
   * @param usage what the job reported using inside the step when it was recorded; null for none, and
   *     always null for a replay (which used nothing)
   * @param resultBytes the size of the recorded result, in characters of JSON (0 when unknown)
   * @param at when it was recorded, or when the replaying attempt's result was
   */
  public record Step(int attempt, String name, Kind kind, int recordedBy, Duration duration, Usage usage, int resultBytes,
      Instant at) {
    /** Refuses a missing name or kind. */
    public Step {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(kind, "kind");
    }
  }

  /**
   * @param windowEvents one window's events, in journal order
   * @return its steps, attempt by attempt in journal order (an attempt's replays come with its result)
   */
  public static List<Step> of(List<AuditEvent> windowEvents) {
    List<Step> out = new ArrayList<>();
    Map<String, TaskJournal.StepRecorded> recorded = new HashMap<>();
    for (AuditEvent a : windowEvents) {
      if (a.event() instanceof TaskJournal.StepRecorded r) {
        recorded.putIfAbsent(r.name(), r);
        out.add(new Step(r.attempt(), r.name(), Kind.RECORDED, r.attempt(), r.duration(), usage(r.usage()),
            r.result() == null ? 0 : r.result().length(), r.at()));
      } else if (a.event() instanceof TaskJournal.StepsReplayed p) {
        for (String name : p.names()) {
          TaskJournal.StepRecorded r = recorded.get(name);
          out.add(new Step(p.attempt(), name, Kind.REPLAYED, r == null ? 0 : r.attempt(), r == null ? null : r.duration(),
              null, r == null || r.result() == null ? 0 : r.result().length(), p.at()));
        }
      } else if (a.event() instanceof TaskJournal.WindowEvent e) {
        io.almanac.InstanceStatus to = e.statusAfter(io.almanac.InstanceStatus.RUNNING);
        if (to != null && to.isTerminal()) {
          recorded.clear(); // a done window keeps no steps: a later run of it runs them again
        }
      }
    }
    return out;
  }

  private static Usage usage(UsageRecord u) {
    return u == null ? null : Usage.ofMicros(u.model(), u.tokensIn(), u.tokensOut(), u.costMicros());
  }

  // words for "why"

  static String duration(Duration d) {
    return WindowExplanation.human(d);
  }

  static String cost(UsageRecord u) {
    if (u == null) {
      return "";
    }
    return ", using " + u.tokensIn() + " tokens in and " + u.tokensOut() + " out"
        + (u.costMicros() == 0 ? "" : ", cost " + Usage.fromMicros(u.costMicros()).toPlainString());
  }

  static String quoted(List<String> names) {
    List<String> q = new ArrayList<>();
    for (String n : names) {
      q.add("'" + n + "'");
    }
    return String.join(", ", q);
  }
}

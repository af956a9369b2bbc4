package io.almanac.internal.task;

import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What an operator's run of one window decides (a window of a backfill, a run now, R7, R31), from
 * the window's status alone: a window with no instance is scheduled, one older than the task's hot
 * state is left to the journal (R30), a {@link #REOPENABLE} one is reopened, any other is recorded
 * as existing ({@link SkipReason#WINDOW_EXISTS}). Pure: the task's decision ({@code OperatorActions})
 * writes what it says, and the HTTP API's backfill dry run answers it without writing, so the dry run
 * is the run's own decision. INTERNAL API.
 */
public final class OperatorRun {

  /** Statuses an operator may run again (R15, R31); RETRY_WAIT is not one: the retry cap holds. */
  public static final Set<InstanceStatus> REOPENABLE = Collections.unmodifiableSet(
      EnumSet.of(InstanceStatus.FINAL_FAILED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED, InstanceStatus.MISSED));

  /** What the run does to the window. */
  public enum Action {
    /** Nothing: the window is older than the hot state. */
    ARCHIVED,
    /** The window gets its instance. */
    SCHEDULE,
    /** The window's instance is scheduled again. */
    REOPEN,
    /** A skip is recorded beside the window's instance, which is unchanged. */
    RECORD_EXISTING
  }

  /**
   * The decision about one window.
   *
   * @param action what the run does
   * @param decision the decision as the outcome reports it
   * @param reason its reason, as the outcome words it
   * @param skipDetail the detail of the skip {@link Action#RECORD_EXISTING} records, else null
   */
  public record Decided(Action action, Decision decision, String reason, String skipDetail) {}

  private OperatorRun() {}

  /**
   * @param existing the window's status, or null when it has no instance in the hot state
   * @param archived whether the window is older than the task's hot state (asked only when it has no instance)
   * @param kind what the run schedules (BACKFILL, MANUAL)
   * @return what the run decides
   */
  public static Decided decide(InstanceStatus existing, boolean archived, RunKind kind) {
    if (existing == null && archived) {
      return new Decided(Action.ARCHIVED, Decision.ARCHIVED, "window is older than the hot state; see the journal (R30)", null);
    }
    if (existing == null) {
      return new Decided(Action.SCHEDULE, Decision.SCHEDULED, kind.name(), null);
    }
    if (REOPENABLE.contains(existing)) {
      return new Decided(Action.REOPEN, Decision.SCHEDULED, kind + " (was " + existing + ")", null);
    }
    Causes.WindowExists exists = new Causes.WindowExists(existing);
    return new Decided(Action.RECORD_EXISTING, Decision.SKIPPED, exists.text(), exists.detail());
  }
}

package io.almanac.journal;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.SkipReason;
import java.time.Instant;

/**
 * Consecutive due windows of one task that did not run for the same reason, kept as one record
 * (docs/skip-ranges.md): its first window (which is also a window of the task's state, SKIPPED or
 * MISSED), its last, and how many windows it accounts for. A range is <i>open</i> ({@link
 * TaskJournal.SkipRangeOpened}, no last window yet) while the fires of its task are decided the same
 * way: it covers every scheduled window due at or after its first window's due time until it is
 * closed ({@link TaskJournal.SkipRangeClosed}); a range written closed at once ({@link
 * TaskJournal.WindowsSkipped}) is what a catch-up writes for the windows of its batch.
 *
 * @param firstWindow the first window's key
 * @param firstStart the first window's start
 * @param firstDue when the first window was due
 * @param lastWindow the last window's key, or null while open
 * @param lastStart the last window's start, or null while open
 * @param lastDue when the last window was due, or null while open
 * @param count how many windows it accounts for, its first and last included (0 while open)
 * @param outcome {@link InstanceStatus#SKIPPED} or {@link InstanceStatus#MISSED}
 * @param skipReason why, when skipped (null when missed)
 * @param missReason why, when missed (null when skipped)
 * @param detail details for people, as of its first window
 * @param openedAt when it was recorded
 * @param closedAt when it was closed, or null while open
 */
public record SkipRange(String firstWindow, Instant firstStart, Instant firstDue,
    @JsonInclude(JsonInclude.Include.NON_NULL) String lastWindow,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant lastStart,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant lastDue,
    long count, InstanceStatus outcome,
    @JsonInclude(JsonInclude.Include.NON_NULL) SkipReason skipReason,
    @JsonInclude(JsonInclude.Include.NON_NULL) MissReason missReason,
    String detail, Instant openedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant closedAt) {

  /** @return whether it is still open (no last window yet) */
  public boolean open() {
    return closedAt == null;
  }

  /** @return its reason's name (a {@link SkipReason} or a {@link MissReason}) */
  public String reason() {
    return skipReason != null ? skipReason.name() : missReason != null ? missReason.name() : "UNKNOWN";
  }

  /**
   * @param dueAt a window's due time
   * @return whether this range accounts for a window due then: between its first and last due
   *     times (inclusive) when closed, at or after its first when open
   */
  public boolean covers(Instant dueAt) {
    if (dueAt == null || dueAt.isBefore(firstDue)) {
      return false;
    }
    return open() || !dueAt.isAfter(lastDue);
  }

  /**
   * @param outcome SKIPPED or MISSED
   * @param skip a skip's reason, or null
   * @param miss a miss's reason, or null
   * @return whether a decision with this outcome and reason is the same as this range's
   */
  public boolean sameAs(InstanceStatus outcome, SkipReason skip, MissReason miss) {
    return this.outcome == outcome && this.skipReason == skip && this.missReason == miss;
  }

  /**
   * @param last the last window's key
   * @param start its start
   * @param due its due time
   * @param n how many windows in all
   * @param at when closed
   * @return this range closed
   */
  public SkipRange closed(String last, Instant start, Instant due, long n, Instant at) {
    return new SkipRange(firstWindow, firstStart, firstDue, last, start, due, n, outcome, skipReason, missReason, detail,
        openedAt, at);
  }

  /** @return for people: e.g. {@code SKIPPED PREVIOUS_RUNNING: 12 windows from A to B} */
  public String describe() {
    if (open()) {
      return outcome + " " + reason() + ": windows from " + firstWindow + " on (open since " + openedAt + ")";
    }
    return outcome + " " + reason() + ": " + count + (count == 1 ? " window " : " windows from ") + firstWindow
        + (count == 1 ? "" : " to " + lastWindow);
  }
}

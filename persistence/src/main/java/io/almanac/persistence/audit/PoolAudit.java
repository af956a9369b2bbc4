package io.almanac.persistence.audit;

import io.almanac.journal.PoolJournal;
import io.almanac.journal.PoolState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A resource pool's day from its journal ({@code pool|<name>}), folded with the runtime's own
 * {@link PoolState#evolve}: its invariants, checked by {@code audit --verify} (R11: never more live
 * holds than max-concurrent at any admission, and never more starts than the rate's N in any span of
 * one period, across the cluster, since one entity writes the pool's journal), and its narration (who
 * took and gave back which hold, pauses, usage, and budget raises with who raised them and why). Pure.
 */
public final class PoolAudit {

  private PoolAudit() {}

  /**
   * What the audit found in one pool's journal.
   *
   * @param pool the pool
   * @param events how many events it has
   * @param admissions how many holds it granted
   * @param peakHolders the most live holds right after an admission
   * @param peakStarts the most starts in any span of one rate period (0 without a rate)
   * @param raises the budget raises, described with who and why
   * @param violations the broken invariants, one line each (empty when it holds up)
   */
  public record Report(String pool, int events, int admissions, int peakHolders, int peakStarts, List<String> raises,
      List<String> violations) {
    /** @return whether every invariant holds */
    public boolean ok() {
      return violations.isEmpty();
    }
  }

  /**
   * Folds a pool's journal and checks its invariants at every admission, with the limits in force then.
   *
   * @param pool the pool
   * @param events its events, in journal order
   * @return the report
   */
  public static Report verify(String pool, List<PoolJournal.Event> events) {
    PoolState s = PoolState.empty(pool);
    ArrayDeque<Instant> recent = new ArrayDeque<>();
    List<String> violations = new ArrayList<>();
    List<String> raises = new ArrayList<>();
    int admissions = 0;
    int peakHolders = 0;
    int peakStarts = 0;
    for (PoolJournal.Event e : events) {
      if (e instanceof PoolJournal.HoldAcquired a && !s.declared()) {
        violations.add(a.at() + ": hold of " + a.taskId() + " " + a.window() + " granted before the pool was declared");
      }
      s = s.evolve(e);
      if (e instanceof PoolJournal.HoldAcquired a) {
        admissions++;
        int live = s.liveHolds(a.at());
        peakHolders = Math.max(peakHolders, live);
        if (s.declared() && live > s.maxConcurrent()) {
          violations.add(a.at() + ": " + live + " live holds after admitting " + a.taskId() + " " + a.window() + " on "
              + a.node() + ", max-concurrent " + s.maxConcurrent());
        }
        Duration per = s.ratePer();
        if (s.ratePermits() > 0 && per != null) {
          recent.addLast(a.at());
          while (Duration.between(recent.peekFirst(), a.at()).compareTo(per) > 0) {
            recent.removeFirst();
          }
          peakStarts = Math.max(peakStarts, recent.size());
          if (recent.size() > s.ratePermits()) {
            violations.add(a.at() + ": " + recent.size() + " starts within " + per + " (since " + recent.peekFirst()
                + "), the rate allows " + s.ratePermits());
          }
        }
      } else if (e instanceof PoolJournal.PoolBudgetRaised r) {
        raises.add(describe(r));
      }
    }
    return new Report(pool, events.size(), admissions, peakHolders, peakStarts, List.copyOf(raises),
        List.copyOf(violations));
  }

  /**
   * @param e an event of a pool's journal
   * @return one line for people
   */
  public static String describe(PoolJournal.Event e) {
    if (e instanceof PoolJournal.PoolDeclared d) {
      return d.at() + " declared by " + d.node() + ": max-concurrent " + d.maxConcurrent()
          + (d.ratePer() == null ? "" : ", rate " + d.ratePermits() + "/" + d.ratePer());
    }
    if (e instanceof PoolJournal.HoldAcquired a) {
      return a.at() + " hold taken: " + a.taskId() + " " + a.window() + " on " + a.node();
    }
    if (e instanceof PoolJournal.HoldReleased r) {
      return r.at() + " hold given back: " + r.taskId() + " " + r.window();
    }
    if (e instanceof PoolJournal.HoldsRenewed r) {
      return r.at() + " holds of " + r.node() + " renewed until " + r.until();
    }
    if (e instanceof PoolJournal.PoolPaused p) {
      return p.at() + " paused until " + p.until() + " (throttled)";
    }
    if (e instanceof PoolJournal.UsageAdded u) {
      return u.at() + " cost " + io.almanac.Usage.fromMicros(u.costMicros()).toPlainString() + " added to " + u.day();
    }
    return describe((PoolJournal.PoolBudgetRaised) e); // sealed: the last kind
  }

  private static String describe(PoolJournal.PoolBudgetRaised r) {
    return r.at() + " budget of " + r.day() + " raised by " + io.almanac.Usage.fromMicros(r.amountMicros()).toPlainString()
        + " by " + r.actor() + (r.note() == null ? "" : ": " + r.note());
  }
}

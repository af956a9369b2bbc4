package io.almanac.journal;

import io.almanac.spi.PoolRules;
import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A resource pool's state as its journal folds it ({@link #evolve}): its limits, its holds (each
 * with its node and when it stops counting), its latest starts (at most the rate's N), its pause and
 * its latest days of usage. Immutable; the entity decides with it ({@link #refusal}) and the audit
 * folds the same journal with the same code. Bounded: holds are dropped when given back or expired,
 * starts beyond N and days beyond {@link #KEEP_DAYS} are forgotten, so the state does not grow with
 * the pool's history. Persisted in snapshots: a component is never renamed without a migration.
 *
 * @param pool the pool
 * @param maxConcurrent most live holds at once (0 before it is declared)
 * @param ratePermits starts per {@code ratePer}, 0 for no rate
 * @param ratePer the rate's period, or null
 * @param holds the holds, by {@link #key(String, String)}
 * @param starts with a rate of N: the latest starts, oldest first, at most N
 * @param pausedUntil the pause's end, or null
 * @param days the latest days with usage or raises, oldest first
 */
public record PoolState(String pool, int maxConcurrent, int ratePermits, Duration ratePer, Map<String, Hold> holds,
    List<Instant> starts, Instant pausedUntil, List<PoolStore.PoolDay> days) implements JournalSerializable {

  /** Days of usage kept before the latest (older ones are never asked for). */
  public static final int KEEP_DAYS = 3;

  /**
   * One admitted attempt's place in the pool.
   *
   * @param taskId the task
   * @param window the window's key
   * @param node the node that admitted it
   * @param incarnation that node's incarnation
   * @param expiresAt when it stops counting unless renewed
   * @param since when it was taken (null in a snapshot written before this part was kept)
   */
  public record Hold(String taskId, String window, String node, String incarnation, Instant expiresAt, Instant since) {
    /** A hold without its start (tests, and holds of snapshots written before it was kept). */
    public Hold(String taskId, String window, String node, String incarnation, Instant expiresAt) {
      this(taskId, window, node, incarnation, expiresAt, null);
    }
  }

  /** Copies the collections (immutable) and fills nulls. */
  public PoolState {
    Objects.requireNonNull(pool, "pool");
    holds = holds == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(holds));
    starts = starts == null ? List.of() : List.copyOf(starts);
    days = days == null ? List.of() : List.copyOf(days);
  }

  /**
   * @param pool a pool
   * @return its state before any event
   */
  public static PoolState empty(String pool) {
    return new PoolState(pool, 0, 0, null, Map.of(), List.of(), null, List.of());
  }

  /**
   * @param taskId a task
   * @param window a window's key
   * @return the key of its hold
   */
  public static String key(String taskId, String window) {
    return taskId + "|" + window;
  }

  /** @return the pool's limits, as the stores' rule takes them */
  public PoolStore.Limit limit() {
    return new PoolStore.Limit(pool, maxConcurrent, ratePermits, ratePer);
  }

  /** @return whether a node declared the pool */
  public boolean declared() {
    return maxConcurrent > 0;
  }

  /**
   * @param now a time
   * @return the holds that count at {@code now} (not expired), in the order taken
   */
  public List<Hold> liveHoldList(Instant now) {
    List<Hold> out = new ArrayList<>();
    for (Hold h : holds.values()) {
      if (h.expiresAt().isAfter(now)) {
        out.add(h);
      }
    }
    return out;
  }

  /**
   * @param now a time
   * @return how many holds count at {@code now} (not expired)
   */
  public int liveHolds(Instant now) {
    int n = 0;
    for (Hold h : holds.values()) {
      if (h.expiresAt().isAfter(now)) {
        n++;
      }
    }
    return n;
  }

  /** @return the N-th latest start with a rate of N, or null when fewer were recorded */
  public Instant nthLatestStart() {
    return ratePermits > 0 && ratePer != null && starts.size() >= ratePermits ? starts.get(0) : null;
  }

  /**
   * @param day a day
   * @return the pool's usage and raises that day (empty when none is kept)
   */
  public PoolStore.PoolDay day(LocalDate day) {
    for (PoolStore.PoolDay d : days) {
      if (d.day().equals(day)) {
        return d;
      }
    }
    return PoolStore.PoolDay.empty(pool, day);
  }

  /**
   * The admission rule at {@code now} ({@link PoolRules}): the budget first, then the pause, the
   * live holds and the rate.
   *
   * @param budget the budget to check, or null
   * @param now the entity's time
   * @return the refusal, or null when an attempt may take a hold now
   */
  public PoolStore.Answer refusal(PoolStore.Budget budget, Instant now) {
    if (budget != null) {
      PoolStore.Answer spent = PoolRules.checkBudget(day(budget.day()), budget);
      if (spent != null) {
        return spent;
      }
    }
    return PoolRules.check(pool, limit(), liveHolds(now), nthLatestStart(), pausedUntil, now);
  }

  /**
   * The one fold of a pool's journal (the entity's event handler and the audit's).
   *
   * @param e an event of this pool
   * @return the state after it
   */
  public PoolState evolve(PoolJournal.Event e) {
    PoolState s = e instanceof PoolJournal.HoldAcquired || e instanceof PoolJournal.PoolDeclared ? dropExpired(e.at())
        : this;
    if (e instanceof PoolJournal.PoolDeclared d) {
      Map<String, Hold> kept = new LinkedHashMap<>();
      s.holds.forEach((k, h) -> {
        if (!(h.node().equals(d.node()) && !h.incarnation().equals(d.incarnation()))) {
          kept.put(k, h);
        }
      });
      return new PoolState(pool, d.maxConcurrent(), d.ratePermits(), d.ratePer(), kept,
          trim(s.starts, d.ratePermits(), d.ratePer()), s.pausedUntil, s.days);
    }
    if (e instanceof PoolJournal.HoldAcquired a) {
      Map<String, Hold> held = new LinkedHashMap<>(s.holds);
      held.put(key(a.taskId(), a.window()), new Hold(a.taskId(), a.window(), a.node(), a.incarnation(), a.expiresAt(), a.at()));
      List<Instant> st = s.starts;
      if (ratePermits > 0 && ratePer != null) {
        st = new ArrayList<>(s.starts);
        st.add(a.at());
        st = trim(st, ratePermits, ratePer);
      }
      return new PoolState(pool, maxConcurrent, ratePermits, ratePer, held, st, pausedUntil, days);
    }
    if (e instanceof PoolJournal.HoldReleased r) {
      Map<String, Hold> held = new LinkedHashMap<>(holds);
      held.remove(key(r.taskId(), r.window()));
      return new PoolState(pool, maxConcurrent, ratePermits, ratePer, held, starts, pausedUntil, days);
    }
    if (e instanceof PoolJournal.HoldsRenewed r) {
      Map<String, Hold> held = new LinkedHashMap<>();
      holds.forEach((k, h) -> held.put(k, h.node().equals(r.node()) && h.incarnation().equals(r.incarnation())
          && r.until().isAfter(h.expiresAt()) ? new Hold(h.taskId(), h.window(), h.node(), h.incarnation(), r.until(), h.since()) : h));
      return new PoolState(pool, maxConcurrent, ratePermits, ratePer, held, starts, pausedUntil, days);
    }
    if (e instanceof PoolJournal.PoolPaused p) {
      Instant until = pausedUntil == null || p.until().isAfter(pausedUntil) ? p.until() : pausedUntil;
      return new PoolState(pool, maxConcurrent, ratePermits, ratePer, holds, starts, until, days);
    }
    if (e instanceof PoolJournal.UsageAdded u) {
      PoolStore.PoolDay d = day(u.day());
      return withDay(new PoolStore.PoolDay(pool, u.day(), PoolRules.plus(d.costMicros(), u.costMicros()),
          d.attempts() + 1, d.raisedMicros()));
    }
    if (e instanceof PoolJournal.PoolBudgetRaised r) {
      PoolStore.PoolDay d = day(r.day());
      return withDay(new PoolStore.PoolDay(pool, r.day(), d.costMicros(), d.attempts(),
          PoolRules.plus(d.raisedMicros(), r.amountMicros())));
    }
    throw new IllegalArgumentException("not an event of a pool: " + e); // sealed: unreachable
  }

  /** @return this state without the holds expired at {@code at} */
  private PoolState dropExpired(Instant at) {
    if (holds.values().stream().allMatch(h -> h.expiresAt().isAfter(at))) {
      return this;
    }
    Map<String, Hold> kept = new LinkedHashMap<>();
    holds.forEach((k, h) -> {
      if (h.expiresAt().isAfter(at)) {
        kept.put(k, h);
      }
    });
    return new PoolState(pool, maxConcurrent, ratePermits, ratePer, kept, starts, pausedUntil, days);
  }

  private PoolState withDay(PoolStore.PoolDay day) {
    List<PoolStore.PoolDay> ds = new ArrayList<>();
    for (PoolStore.PoolDay d : days) {
      if (!d.day().equals(day.day())) {
        ds.add(d);
      }
    }
    ds.add(day);
    ds.sort(Comparator.comparing(PoolStore.PoolDay::day));
    LocalDate keepFrom = ds.get(ds.size() - 1).day().minusDays(KEEP_DAYS);
    ds.removeIf(d -> d.day().isBefore(keepFrom));
    return new PoolState(pool, maxConcurrent, ratePermits, ratePer, holds, starts, pausedUntil, ds);
  }

  /** The latest N starts (the only ones the rate's rule reads); none without a rate. */
  private static List<Instant> trim(List<Instant> starts, int permits, Duration per) {
    if (permits <= 0 || per == null) {
      return List.of();
    }
    return starts.size() <= permits ? starts : List.copyOf(starts.subList(starts.size() - permits, starts.size()));
  }
}

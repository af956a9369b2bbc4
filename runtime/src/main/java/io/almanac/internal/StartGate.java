package io.almanac.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Job slots a node's executor offers to the task entities of its node, so that an entity firing a
 * window it may start at once records the schedule and the start in one journal write
 * ({@code InstanceScheduled} and {@code AttemptStarted} together) instead of two round trips. The
 * persistence stack's cost is per write, not per event (bench: about 3,000 writes/s on H2 with one
 * event or with three), so this is what the fire path's throughput is made of.
 *
 * <p>Entities only {@link #tryTake() take} a slot, from any thread. The executor alone (on its
 * actor) counts the slots taken since its last offer as in transit until the started attempt
 * {@link #arrived() arrives}, and offers again what it has room for. A slot taken by an entity whose
 * write then failed never arrives; it is forgotten after {@code forget}, so capacity cannot leak.
 *
 * INTERNAL API.
 */
public final class StartGate {

  private final AtomicInteger free = new AtomicInteger();

  // The executor's side: only ever touched by the executor actor.
  private int offered;
  private final ArrayDeque<long[]> transit = new ArrayDeque<>(); // {taken at epoch ms, count}
  private int inTransit;

  /** @return a gate with nothing offered (for an entity without an executor) */
  public static StartGate closed() {
    return new StartGate();
  }

  /**
   * Takes a slot if one is offered (an entity about to start a window with its schedule).
   *
   * @return whether a slot was taken
   */
  public boolean tryTake() {
    while (true) {
      int f = free.get();
      if (f <= 0) {
        return false;
      }
      if (free.compareAndSet(f, f - 1)) {
        return true;
      }
    }
  }

  /**
   * Closes the offer and counts what was taken from it as in transit (executor only).
   *
   * @param now the executor's clock
   * @param forget after how long a taken slot whose attempt never arrived is forgotten
   * @return slots taken whose started attempt has not arrived yet
   */
  int collect(Instant now, Duration forget) {
    int taken = offered - free.getAndSet(0);
    offered = 0;
    if (taken > 0) {
      transit.addLast(new long[] {now.toEpochMilli(), taken});
      inTransit += taken;
    }
    long cutoff = now.minus(forget).toEpochMilli();
    while (!transit.isEmpty() && transit.peekFirst()[0] < cutoff) {
      inTransit -= (int) transit.pollFirst()[1];
    }
    return inTransit;
  }

  /**
   * A started attempt taken from this gate reached the executor (executor only). Closes the offer
   * first, so a slot taken since the last collect is counted before its arrival is.
   *
   * @param now the executor's clock
   * @param forget as for {@link #collect}
   */
  void arrived(Instant now, Duration forget) {
    collect(now, forget);
    long[] oldest = transit.peekFirst();
    if (oldest == null) {
      return; // already forgotten
    }
    inTransit--;
    if (--oldest[1] == 0) {
      transit.pollFirst();
    }
  }

  /**
   * Offers slots (executor only, after {@link #collect}).
   *
   * @param slots how many attempts the executor can take now
   */
  void offer(int slots) {
    offered = Math.max(0, slots);
    free.set(offered);
  }
}

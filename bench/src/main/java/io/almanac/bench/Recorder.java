package io.almanac.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The one job body every system runs: record the start instant (and the due time the system
 * itself reports) and return. Kept as small as possible so the schedulers, not the job, are
 * measured.
 */
public final class Recorder {

  /** One job start. Times in epoch microseconds (start) and milliseconds (due). */
  public record Start(String task, long ownDueMs, long startMicros) {
    /** @return the due time truncated to its whole second (the cron's intended second) */
    long secondMs() {
      return Math.floorDiv(ownDueMs, 1000) * 1000;
    }
  }

  /** The recorder used by job classes a scheduler instantiates itself (Quartz). */
  public static volatile Recorder global = new Recorder();

  private final ConcurrentLinkedQueue<Start> starts = new ConcurrentLinkedQueue<>();
  private volatile Consumer<Start> listener;

  /** @param l called on each start (the restart node prints it) */
  public void onStart(Consumer<Start> l) {
    this.listener = l;
  }

  /**
   * The job body.
   *
   * @param task the task's id
   * @param ownDueMs the due time as the scheduler reports it
   */
  public void record(String task, long ownDueMs) {
    Instant now = Instant.now();
    Start s = new Start(task, ownDueMs, now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
    starts.add(s);
    Consumer<Start> l = listener;
    if (l != null) {
      l.accept(s);
    }
  }

  public int count() {
    return starts.size();
  }

  public List<Start> snapshot() {
    return new ArrayList<>(starts);
  }

  public void clear() {
    starts.clear();
  }

  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}

package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.time.Duration;
import java.time.Instant;

/**
 * A task as an operator sees it. Made by the runtime and read by callers; it has no public
 * constructor, so that a part added later changes no caller's build (the runtime makes these with
 * {@link Builder}, which is INTERNAL API). Two views are equal when all their parts are, like a
 * record's; {@link #toString()} names every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = TaskView.Builder.class)
public final class TaskView {
  private final TaskSpec spec;
  private final boolean paused;
  private final int hotWindows;
  private final long archivedWindows;
  private final int interventionQueue;
  private final int durationSamples;
  private final Duration p99;
  private final Duration lease;
  private final Duration minInterval;
  private final boolean intervalShorterThanP99;
  private final Instant nextDue;
  private final Instant removedAt;
  private final Instant archivedThrough;

  private TaskView(Builder b) {
    this.spec = b.spec;
    this.paused = b.paused;
    this.hotWindows = b.hotWindows;
    this.archivedWindows = b.archivedWindows;
    this.interventionQueue = b.interventionQueue;
    this.durationSamples = b.durationSamples;
    this.p99 = b.p99;
    this.lease = b.lease;
    this.minInterval = b.minInterval;
    this.intervalShorterThanP99 = b.intervalShorterThanP99;
    this.nextDue = b.nextDue;
    this.removedAt = b.removedAt;
    this.archivedThrough = b.archivedThrough;
  }

  /**
   * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
   *
   * @return a builder with every part null, 0 or false
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the task's current spec */
  public TaskSpec spec() {
    return spec;
  }

  /** @return whether the task is paused (R31) */
  public boolean paused() {
    return paused;
  }

  /** @return how many windows the task keeps in its hot state */
  public int hotWindows() {
    return hotWindows;
  }

  /** @return how many windows left the hot state (they stay in the journal, R30) */
  public long archivedWindows() {
    return archivedWindows;
  }

  /** @return how many windows are FINAL_FAILED, waiting for an operator (R15) */
  public int interventionQueue() {
    return interventionQueue;
  }

  /** @return how many attempt durations the P99 is computed from */
  public int durationSamples() {
    return durationSamples;
  }

  /** @return the P99 of observed attempt durations, or null before the first sample */
  public Duration p99() {
    return p99;
  }

  /** @return the lease an attempt would get now (R23) */
  public Duration lease() {
    return lease;
  }

  /** @return the shortest interval between the cron's next firings, or null when the schedule failed */
  public Duration minInterval() {
    return minInterval;
  }

  /** @return true when the cron fires more often than a run lasts at P99 (R8) */
  public boolean intervalShorterThanP99() {
    return intervalShorterThanP99;
  }

  /**
   * @return the next firing after now, or null if the cron never fires again, past its end bound (or the task was
   *     removed); for a task with jitter, when that window fires (its due time plus its offset, docs/schedules.md)
   */
  public Instant nextDue() {
    return nextDue;
  }

  /**
   * @return when the task was removed ({@link Almanac#remove(String)}), or null while it is defined; a removed task's
   *     view and windows are its history
   */
  public Instant removedAt() {
    return removedAt;
  }

  /**
   * @return the latest start of a window that left the hot state, or null when none did: a backfill finds a window
   *     starting at or before it, and not in the hot state, archived ({@link Decision#ARCHIVED})
   */
  public Instant archivedThrough() {
    return archivedThrough;
  }

  /** @return whether the task was removed */
  public boolean removed() {
    return removedAt != null;
  }

  /**
   * @param other another object
   * @return whether it is a TaskView with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof TaskView o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("TaskView[");
    Object[] parts = parts();
    for (int i = 0; i < parts.length; i++) {
      b.append(i == 0 ? "" : ", ").append(NAMES[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private static final String[] NAMES = {
      "spec", "paused", "hotWindows", "archivedWindows", "interventionQueue", "durationSamples", "p99", "lease",
      "minInterval", "intervalShorterThanP99", "nextDue", "removedAt", "archivedThrough"};

  private Object[] parts() {
    return new Object[] {
        spec, paused, hotWindows, archivedWindows, interventionQueue, durationSamples, p99, lease, minInterval,
        intervalShorterThanP99, nextDue, removedAt, archivedThrough};
  }

  /**
   * INTERNAL API: makes a {@link TaskView}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false; the JSON of one between nodes is read
   * through it too, so a part a node did not send reads so.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private TaskSpec spec;
    private boolean paused;
    private int hotWindows;
    private long archivedWindows;
    private int interventionQueue;
    private int durationSamples;
    private Duration p99;
    private Duration lease;
    private Duration minInterval;
    private boolean intervalShorterThanP99;
    private Instant nextDue;
    private Instant removedAt;
    private Instant archivedThrough;

    private Builder() {}

    /**
     * @param v see {@link TaskView#spec()}
     * @return this builder
     */
    public Builder spec(TaskSpec v) {
      spec = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#paused()}
     * @return this builder
     */
    public Builder paused(boolean v) {
      paused = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#hotWindows()}
     * @return this builder
     */
    public Builder hotWindows(int v) {
      hotWindows = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#archivedWindows()}
     * @return this builder
     */
    public Builder archivedWindows(long v) {
      archivedWindows = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#interventionQueue()}
     * @return this builder
     */
    public Builder interventionQueue(int v) {
      interventionQueue = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#durationSamples()}
     * @return this builder
     */
    public Builder durationSamples(int v) {
      durationSamples = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#p99()}
     * @return this builder
     */
    public Builder p99(Duration v) {
      p99 = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#lease()}
     * @return this builder
     */
    public Builder lease(Duration v) {
      lease = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#minInterval()}
     * @return this builder
     */
    public Builder minInterval(Duration v) {
      minInterval = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#intervalShorterThanP99()}
     * @return this builder
     */
    public Builder intervalShorterThanP99(boolean v) {
      intervalShorterThanP99 = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#nextDue()}
     * @return this builder
     */
    public Builder nextDue(Instant v) {
      nextDue = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#removedAt()}
     * @return this builder
     */
    public Builder removedAt(Instant v) {
      removedAt = v;
      return this;
    }

    /**
     * @param v see {@link TaskView#archivedThrough()}
     * @return this builder
     */
    public Builder archivedThrough(Instant v) {
      archivedThrough = v;
      return this;
    }

    /** @return the TaskView */
    public TaskView build() {
      return new TaskView(this);
    }
  }
}

package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The cluster as an operator sees it ({@link Almanac#nodes()}): its members with their executors'
 * slots, where the trigger runs, and the resource pools with their holders and waiters. Each node's
 * executor is asked over the cluster with a timeout: a node that did not answer in time has a null
 * {@link Member#executor()} and says why, and never holds the answer up.
 * Made by the runtime and read by the caller: it has no public constructor, so that a part added
 * later changes no caller's build (the runtime makes these with {@link Builder}, which is INTERNAL
 * API). Two of them are equal when all their parts are, like a record's; {@link #toString()} names
 * every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = ClusterView.Builder.class)
public final class ClusterView {
  private final Instant at;
  private final String self;
  private final String triggerNode;
  private final boolean triggerAnswers;
  private final List<Member> members;
  private final List<Pool> pools;

  private ClusterView(Builder b) {
    this.at = b.at;
    this.self = b.self;
    this.triggerNode = b.triggerNode;
    this.triggerAnswers = b.triggerAnswers;
    this.members = b.members == null ? List.of() : List.copyOf(b.members);
    this.pools = b.pools == null ? List.of() : List.copyOf(b.pools);
  }

  /**
   * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
   *
   * @return a builder with every part null or false (no members, no pools)
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return when it was read, by this node's clock (UTC) */
  public Instant at() {
    return at;
  }

  /** @return this node's address */
  public String self() {
    return self;
  }

  /** @return where the trigger (the cluster singleton) runs: the oldest up member, or null when no member is up */
  public String triggerNode() {
    return triggerNode;
  }

  /** @return whether the trigger answered within the timeout */
  public boolean triggerAnswers() {
    return triggerAnswers;
  }

  /** @return the cluster's members, oldest first (never null) */
  public List<Member> members() {
    return members;
  }

  /** @return the pools declared on this node, by name (never null) */
  public List<Pool> pools() {
    return pools;
  }

  /**
   * @param other another object
   * @return whether it is a ClusterView with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof ClusterView o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    String[] names = {"at", "self", "triggerNode", "triggerAnswers", "members", "pools"};
    Object[] parts = parts();
    StringBuilder b = new StringBuilder("ClusterView[");
    for (int i = 0; i < names.length; i++) {
      b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private Object[] parts() {
    return new Object[] {at, self, triggerNode, triggerAnswers, members, pools};
  }

  /**
   * A member of the cluster.
   * Made by the runtime, like {@link ClusterView}: no public constructor, and its {@link Builder} is
   * INTERNAL API; equal when all its parts are.
   */
  @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
      isGetterVisibility = JsonAutoDetect.Visibility.NONE)
  @JsonDeserialize(builder = ClusterView.Member.Builder.class)
  public static final class Member {
    private final String address;
    private final List<String> roles;
    private final String status;
    private final boolean reachable;
    private final boolean self;
    private final Executor executor;
    private final String problem;

    private Member(Builder b) {
      this.address = b.address;
      this.roles = b.roles == null ? List.of() : List.copyOf(b.roles);
      this.status = b.status;
      this.reachable = b.reachable;
      this.self = b.self;
      this.executor = b.executor;
      this.problem = b.problem;
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

    /** @return its address */
    public String address() {
      return address;
    }

    /** @return its roles (never null) */
    public List<String> roles() {
      return roles;
    }

    /** @return its membership status ({@code Up}, {@code Joining}, {@code Leaving}, ...) */
    public String status() {
      return status;
    }

    /** @return whether this node sees it reachable */
    public boolean reachable() {
      return reachable;
    }

    /** @return whether it is this node */
    public boolean self() {
      return self;
    }

    /** @return its executor's slots and lease, or null when it did not answer */
    public Executor executor() {
      return executor;
    }

    /** @return why {@link #executor()} is null, or null */
    public String problem() {
      return problem;
    }

    /**
     * @param other another object
     * @return whether it is a Member with equal parts
     */
    @Override
    public boolean equals(Object other) {
      return this == other || other instanceof Member o && java.util.Arrays.equals(parts(), o.parts());
    }

    /** @return a hash of every part */
    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(parts());
    }

    /** @return every part, named, as a record shows them */
    @Override
    public String toString() {
      String[] names = {"address", "roles", "status", "reachable", "self", "executor", "problem"};
      Object[] parts = parts();
      StringBuilder b = new StringBuilder("Member[");
      for (int i = 0; i < names.length; i++) {
        b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
      }
      return b.append(']').toString();
    }

    private Object[] parts() {
      return new Object[] {address, roles, status, reachable, self, executor, problem};
    }

    /**
     * INTERNAL API: makes a {@link ClusterView.Member}, part by part (for the runtime and its modules: a user reads
     * these, never makes one). A part not set is null, 0 or false, and no roles.
     *
     * @hidden
     */
    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
      private String address;
      private List<String> roles;
      private String status;
      private boolean reachable;
      private boolean self;
      private Executor executor;
      private String problem;

      private Builder() {}

      /**
       * @param v see {@link ClusterView.Member#address()}
       * @return this builder
       */
      public Builder address(String v) {
        address = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#roles()}
       * @return this builder
       */
      public Builder roles(List<String> v) {
        roles = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#status()}
       * @return this builder
       */
      public Builder status(String v) {
        status = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#reachable()}
       * @return this builder
       */
      public Builder reachable(boolean v) {
        reachable = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#self()}
       * @return this builder
       */
      public Builder self(boolean v) {
        self = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#executor()}
       * @return this builder
       */
      public Builder executor(Executor v) {
        executor = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Member#problem()}
       * @return this builder
       */
      public Builder problem(String v) {
        problem = v;
        return this;
      }

      /** @return the member */
      public Member build() {
        return new Member(this);
      }
    }
  }

  /**
   * A node's executor: its lease and slots.
   * Made by the runtime, like {@link ClusterView}: no public constructor, and its {@link Builder} is
   * INTERNAL API; equal when all its parts are.
   */
  @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
      isGetterVisibility = JsonAutoDetect.Visibility.NONE)
  @JsonDeserialize(builder = ClusterView.Executor.Builder.class)
  public static final class Executor {
    private final String identity;
    private final boolean holdsLease;
    private final Instant upSince;
    private final int slots;
    private final int running;
    private final int queuedFresh;
    private final int queuedBacklog;
    private final int stuck;
    private final Map<String, Integer> poolWaiting;

    private Executor(Builder b) {
      this.identity = b.identity;
      this.holdsLease = b.holdsLease;
      this.upSince = b.upSince;
      this.slots = b.slots;
      this.running = b.running;
      this.queuedFresh = b.queuedFresh;
      this.queuedBacklog = b.queuedBacklog;
      this.stuck = b.stuck;
      this.poolWaiting = b.poolWaiting == null ? Map.of() : Map.copyOf(b.poolWaiting);
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

    /** @return its identity (the owner of its node lease) */
    public String identity() {
      return identity;
    }

    /** @return whether it holds its node lease now (jobs run only while it does) */
    public boolean holdsLease() {
      return holdsLease;
    }

    /** @return when the executor started, by that node's clock */
    public Instant upSince() {
      return upSince;
    }

    /** @return its slots ({@code almanac.executor.max-concurrent}) */
    public int slots() {
      return slots;
    }

    /** @return jobs holding a slot */
    public int running() {
      return running;
    }

    /** @return first and manual runs waiting for a slot */
    public int queuedFresh() {
      return queuedFresh;
    }

    /** @return retries, backfills and catch-ups waiting for a slot */
    public int queuedBacklog() {
      return queuedBacklog;
    }

    /** @return cancelled jobs whose thread has not returned */
    public int stuck() {
      return stuck;
    }

    /** @return per resource pool, how many of its queued windows name it (never null) */
    public Map<String, Integer> poolWaiting() {
      return poolWaiting;
    }

    /**
     * @param other another object
     * @return whether it is an Executor with equal parts
     */
    @Override
    public boolean equals(Object other) {
      return this == other || other instanceof Executor o && java.util.Arrays.equals(parts(), o.parts());
    }

    /** @return a hash of every part */
    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(parts());
    }

    /** @return every part, named, as a record shows them */
    @Override
    public String toString() {
      String[] names = {"identity", "holdsLease", "upSince", "slots", "running", "queuedFresh", "queuedBacklog", "stuck", "poolWaiting"};
      Object[] parts = parts();
      StringBuilder b = new StringBuilder("Executor[");
      for (int i = 0; i < names.length; i++) {
        b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
      }
      return b.append(']').toString();
    }

    private Object[] parts() {
      return new Object[] {identity, holdsLease, upSince, slots, running, queuedFresh, queuedBacklog, stuck, poolWaiting};
    }

    /**
     * INTERNAL API: makes a {@link ClusterView.Executor}, part by part (for the runtime and its modules: a user reads
     * these, never makes one). A part not set is null, 0 or false, and no pool waiting.
     *
     * @hidden
     */
    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
      private String identity;
      private boolean holdsLease;
      private Instant upSince;
      private int slots;
      private int running;
      private int queuedFresh;
      private int queuedBacklog;
      private int stuck;
      private Map<String, Integer> poolWaiting;

      private Builder() {}

      /**
       * @param v see {@link ClusterView.Executor#identity()}
       * @return this builder
       */
      public Builder identity(String v) {
        identity = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#holdsLease()}
       * @return this builder
       */
      public Builder holdsLease(boolean v) {
        holdsLease = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#upSince()}
       * @return this builder
       */
      public Builder upSince(Instant v) {
        upSince = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#slots()}
       * @return this builder
       */
      public Builder slots(int v) {
        slots = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#running()}
       * @return this builder
       */
      public Builder running(int v) {
        running = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#queuedFresh()}
       * @return this builder
       */
      public Builder queuedFresh(int v) {
        queuedFresh = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#queuedBacklog()}
       * @return this builder
       */
      public Builder queuedBacklog(int v) {
        queuedBacklog = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#stuck()}
       * @return this builder
       */
      public Builder stuck(int v) {
        stuck = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Executor#poolWaiting()}
       * @return this builder
       */
      public Builder poolWaiting(Map<String, Integer> v) {
        poolWaiting = v;
        return this;
      }

      /** @return the executor */
      public Executor build() {
        return new Executor(this);
      }
    }
  }

  /**
   * A resource pool.
   * Made by the runtime, like {@link ClusterView}: no public constructor, and its {@link Builder} is
   * INTERNAL API; equal when all its parts are.
   */
  @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
      isGetterVisibility = JsonAutoDetect.Visibility.NONE)
  @JsonDeserialize(builder = ClusterView.Pool.Builder.class)
  public static final class Pool {
    private final String pool;
    private final int maxConcurrent;
    private final List<Holder> holders;
    private final int waiting;

    private Pool(Builder b) {
      this.pool = b.pool;
      this.maxConcurrent = b.maxConcurrent;
      this.holders = b.holders == null ? null : List.copyOf(b.holders);
      this.waiting = b.waiting;
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

    /** @return its name */
    public String pool() {
      return pool;
    }

    /** @return its {@code max-concurrent} */
    public int maxConcurrent() {
      return maxConcurrent;
    }

    /** @return its holds that count now, oldest first, or null when the pools could not be asked */
    public List<Holder> holders() {
      return holders;
    }

    /** @return windows queued for it on the members that answered */
    public int waiting() {
      return waiting;
    }

    /**
     * @param other another object
     * @return whether it is a Pool with equal parts
     */
    @Override
    public boolean equals(Object other) {
      return this == other || other instanceof Pool o && java.util.Arrays.equals(parts(), o.parts());
    }

    /** @return a hash of every part */
    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(parts());
    }

    /** @return every part, named, as a record shows them */
    @Override
    public String toString() {
      String[] names = {"pool", "maxConcurrent", "holders", "waiting"};
      Object[] parts = parts();
      StringBuilder b = new StringBuilder("Pool[");
      for (int i = 0; i < names.length; i++) {
        b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
      }
      return b.append(']').toString();
    }

    private Object[] parts() {
      return new Object[] {pool, maxConcurrent, holders, waiting};
    }

    /**
     * INTERNAL API: makes a {@link ClusterView.Pool}, part by part (for the runtime and its modules: a user reads
     * these, never makes one). A part not set is null, 0 or false (holders null: the pools could not be asked).
     *
     * @hidden
     */
    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
      private String pool;
      private int maxConcurrent;
      private List<Holder> holders;
      private int waiting;

      private Builder() {}

      /**
       * @param v see {@link ClusterView.Pool#pool()}
       * @return this builder
       */
      public Builder pool(String v) {
        pool = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Pool#maxConcurrent()}
       * @return this builder
       */
      public Builder maxConcurrent(int v) {
        maxConcurrent = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Pool#holders()}
       * @return this builder
       */
      public Builder holders(List<Holder> v) {
        holders = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Pool#waiting()}
       * @return this builder
       */
      public Builder waiting(int v) {
        waiting = v;
        return this;
      }

      /** @return the pool */
      public Pool build() {
        return new Pool(this);
      }
    }
  }

  /**
   * A hold of a pool: one running attempt's place in it.
   * Made by the runtime, like {@link ClusterView}: no public constructor, and its {@link Builder} is
   * INTERNAL API; equal when all its parts are.
   */
  @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
      isGetterVisibility = JsonAutoDetect.Visibility.NONE)
  @JsonDeserialize(builder = ClusterView.Holder.Builder.class)
  public static final class Holder {
    private final String taskId;
    private final String window;
    private final String node;
    private final Instant since;
    private final Instant expiresAt;

    private Holder(Builder b) {
      this.taskId = b.taskId;
      this.window = b.window;
      this.node = b.node;
      this.since = b.since;
      this.expiresAt = b.expiresAt;
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

    /** @return the task */
    public String taskId() {
      return taskId;
    }

    /** @return the window */
    public String window() {
      return window;
    }

    /** @return the node that took it */
    public String node() {
      return node;
    }

    /** @return when it was taken, or null when not known (a hold older than this version) */
    public Instant since() {
      return since;
    }

    /** @return when it stops counting unless its node renews it */
    public Instant expiresAt() {
      return expiresAt;
    }

    /**
     * @param other another object
     * @return whether it is a Holder with equal parts
     */
    @Override
    public boolean equals(Object other) {
      return this == other || other instanceof Holder o && java.util.Arrays.equals(parts(), o.parts());
    }

    /** @return a hash of every part */
    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(parts());
    }

    /** @return every part, named, as a record shows them */
    @Override
    public String toString() {
      String[] names = {"taskId", "window", "node", "since", "expiresAt"};
      Object[] parts = parts();
      StringBuilder b = new StringBuilder("Holder[");
      for (int i = 0; i < names.length; i++) {
        b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
      }
      return b.append(']').toString();
    }

    private Object[] parts() {
      return new Object[] {taskId, window, node, since, expiresAt};
    }

    /**
     * INTERNAL API: makes a {@link ClusterView.Holder}, part by part (for the runtime and its modules: a user reads
     * these, never makes one). A part not set is null, 0 or false.
     *
     * @hidden
     */
    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
      private String taskId;
      private String window;
      private String node;
      private Instant since;
      private Instant expiresAt;

      private Builder() {}

      /**
       * @param v see {@link ClusterView.Holder#taskId()}
       * @return this builder
       */
      public Builder taskId(String v) {
        taskId = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Holder#window()}
       * @return this builder
       */
      public Builder window(String v) {
        window = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Holder#node()}
       * @return this builder
       */
      public Builder node(String v) {
        node = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Holder#since()}
       * @return this builder
       */
      public Builder since(Instant v) {
        since = v;
        return this;
      }

      /**
       * @param v see {@link ClusterView.Holder#expiresAt()}
       * @return this builder
       */
      public Builder expiresAt(Instant v) {
        expiresAt = v;
        return this;
      }

      /** @return the hold */
      public Holder build() {
        return new Holder(this);
      }
    }
  }

  /**
   * INTERNAL API: makes a {@link ClusterView}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false, and no members or pools.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private Instant at;
    private String self;
    private String triggerNode;
    private boolean triggerAnswers;
    private List<Member> members;
    private List<Pool> pools;

    private Builder() {}

    /**
     * @param v see {@link ClusterView#at()}
     * @return this builder
     */
    public Builder at(Instant v) {
      at = v;
      return this;
    }

    /**
     * @param v see {@link ClusterView#self()}
     * @return this builder
     */
    public Builder self(String v) {
      self = v;
      return this;
    }

    /**
     * @param v see {@link ClusterView#triggerNode()}
     * @return this builder
     */
    public Builder triggerNode(String v) {
      triggerNode = v;
      return this;
    }

    /**
     * @param v see {@link ClusterView#triggerAnswers()}
     * @return this builder
     */
    public Builder triggerAnswers(boolean v) {
      triggerAnswers = v;
      return this;
    }

    /**
     * @param v see {@link ClusterView#members()}
     * @return this builder
     */
    public Builder members(List<Member> v) {
      members = v;
      return this;
    }

    /**
     * @param v see {@link ClusterView#pools()}
     * @return this builder
     */
    public Builder pools(List<Pool> v) {
      pools = v;
      return this;
    }

    /** @return the cluster's view */
    public ClusterView build() {
      return new ClusterView(this);
    }
  }
}

package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A dependency trigger (R9): a window of this task runs only after its upstream tasks (all of them,
 * or any one, {@link #require()}) have succeeded for it. The task's own time trigger (its cron or
 * one-shot instant) or event trigger says when a window comes due; from then the window is
 * {@link InstanceStatus#WAITING} until its dependency is met (then it runs, as its overlap policy
 * decides) or until its deadline (then it is SKIPPED with {@link SkipReason#DEPENDENCY_NOT_MET} and
 * an alert is raised). So every window of the task is accounted for even when an upstream never runs.
 *
 * <p>Which upstream windows a window of this task waits for is {@link #mapping()}: the upstream
 * window with the same key, or the upstream windows that start inside this window's range (all of
 * them, or only the latest). A {@link InstanceStatus#RESOLVED} upstream window (an operator did its
 * work by hand) counts as succeeded.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"upstream", "require", "mapping", "waitAtMost", "missingUpstream", "onUpstreamRerun"})
public final class DependencyTrigger extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(),
      "upstream", "require", "mapping", "waitAtMost", "missingUpstream", "onUpstreamRerun");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final List<String> upstream;
  private final Require require;
  private final Mapping mapping;
  private final Duration waitAtMost;
  private final MissingUpstream missingUpstream;
  private final Rerun onUpstreamRerun;

  /** Whether all upstream tasks or any one must have succeeded. Persisted by name. */
  public enum Require {
    /** Every upstream task. */
    ALL,
    /** At least one upstream task. */
    ANY
  }

  /** Which upstream windows a window of this task waits for. Persisted by name. */
  public enum Mapping {
    /** The upstream window with the same key (e.g. both daily: {@code 2026-11-29}). */
    SAME_WINDOW,
    /**
     * Every window the upstream task's schedule fires whose start lies in this window's range (a
     * daily window waits for the 24 hourly windows of that day); an upstream without a time trigger:
     * every window it has in the range, at least one.
     */
    ALL_WITHIN,
    /** Only the latest of the upstream windows {@link #ALL_WITHIN} would name. */
    LATEST_WITHIN
  }

  /** What a registration naming an upstream task that is not registered does. Persisted by name. */
  public enum MissingUpstream {
    /** The registration is refused, naming the missing task. */
    REJECT,
    /** It is accepted; windows wait for the upstream task to be registered and to succeed. */
    WAIT
  }

  /** What an upstream success that arrives after this task's window already ran does. Persisted by name. */
  public enum Rerun {
    /** The window is kept as it is; the late success is recorded. */
    KEEP,
    /**
     * The window runs again if it ended without success (FINAL_FAILED, CANCELLED); a window that
     * succeeded is kept (a window never succeeds twice) and that is recorded.
     */
    RUN_AGAIN
  }

  /** Longest wait accepted: 31 days. */
  public static final Duration MAX_WAIT = Duration.ofDays(31);

  /** Most upstream tasks accepted. */
  public static final int MAX_UPSTREAM = 50;

  /** Fills unset parts with their defaults; it does not validate. */
  @JsonCreator
  private DependencyTrigger(
      @JsonProperty("upstream") List<String> upstream,
      @JsonProperty("require") Require require,
      @JsonProperty("mapping") Mapping mapping,
      @JsonProperty("waitAtMost") Duration waitAtMost,
      @JsonProperty("missingUpstream") MissingUpstream missingUpstream,
      @JsonProperty("onUpstreamRerun") Rerun onUpstreamRerun) {
    if (upstream != null && upstream.stream().anyMatch(java.util.Objects::isNull)) { // List.of refuses contains(null)
      throw new InvalidSpecException("dependency.upstream", upstream, "a task id must not be null");
    }
    upstream = upstream == null ? List.of() : List.copyOf(upstream);
    require = require == null ? Require.ALL : require;
    mapping = mapping == null ? Mapping.SAME_WINDOW : mapping;
    missingUpstream = missingUpstream == null ? MissingUpstream.REJECT : missingUpstream;
    onUpstreamRerun = onUpstreamRerun == null ? Rerun.KEEP : onUpstreamRerun;
    this.upstream = upstream;
    this.require = require;
    this.mapping = mapping;
    this.waitAtMost = waitAtMost;
    this.missingUpstream = missingUpstream;
    this.onUpstreamRerun = onUpstreamRerun;
  }

  /**
   * @param upstream the upstream task ids
   * @return a dependency on all of them, window by same key, until the window's end, refusing a
   *     missing upstream, keeping windows that already ran
   */
  public static DependencyTrigger on(String... upstream) {
    return new DependencyTrigger(upstream == null ? null : java.util.Arrays.asList(upstream), null, null, null, null, null);
  }

  /** @return this dependency, met when any one upstream task succeeded */
  public DependencyTrigger any() {
    return new DependencyTrigger(upstream, Require.ANY, mapping, waitAtMost, missingUpstream, onUpstreamRerun);
  }

  /** @return this dependency, met when every upstream task succeeded */
  public DependencyTrigger all() {
    return new DependencyTrigger(upstream, Require.ALL, mapping, waitAtMost, missingUpstream, onUpstreamRerun);
  }

  /**
   * @param m which upstream windows a window waits for
   * @return this dependency with that mapping
   */
  public DependencyTrigger mapping(Mapping m) {
    return new DependencyTrigger(upstream, require, m, waitAtMost, missingUpstream, onUpstreamRerun);
  }

  /**
   * @param d how long after it came due a window waits (its deadline)
   * @return this dependency with that deadline
   */
  public DependencyTrigger waitAtMost(Duration d) {
    return new DependencyTrigger(upstream, require, mapping, d, missingUpstream, onUpstreamRerun);
  }

  /**
   * @param m what a missing upstream task does at registration
   * @return this dependency with that choice
   */
  public DependencyTrigger missingUpstream(MissingUpstream m) {
    return new DependencyTrigger(upstream, require, mapping, waitAtMost, m, onUpstreamRerun);
  }

  /**
   * @param r what a late upstream success does to a window that already ran
   * @return this dependency with that choice
   */
  public DependencyTrigger onUpstreamRerun(Rerun r) {
    return new DependencyTrigger(upstream, require, mapping, waitAtMost, missingUpstream, r);
  }

  /**
   * Checks the parts.
   *
   * @param self the id of the task that depends
   * @return this dependency
   * @throws InvalidSpecException naming the field ({@code dependency.upstream}, {@code
   *     dependency.wait-at-most}) and the value
   */
  public DependencyTrigger validate(String self) {
    if (upstream.isEmpty()) {
      throw new InvalidSpecException("dependency.upstream", upstream, "name at least one upstream task");
    }
    if (upstream.size() > MAX_UPSTREAM) {
      throw new InvalidSpecException("dependency.upstream", upstream.size() + " tasks", "at most " + MAX_UPSTREAM);
    }
    Set<String> seen = new HashSet<>();
    for (String u : new ArrayList<>(upstream)) {
      try {
        TaskSpec.validateId(u);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException("dependency.upstream", u, "is not a valid task id");
      }
      if (u.equals(self)) {
        throw new InvalidSpecException("dependency.upstream", u, "a task cannot depend on itself (cycle " + u + " -> " + u + ")");
      }
      if (!seen.add(u)) {
        throw new InvalidSpecException("dependency.upstream", u, "is named twice");
      }
    }
    if (waitAtMost != null && (waitAtMost.isNegative() || waitAtMost.isZero() || waitAtMost.compareTo(MAX_WAIT) > 0)) {
      throw new InvalidSpecException("dependency.wait-at-most", waitAtMost, "must be positive and at most " + MAX_WAIT);
    }
    return this;
  }

  /** @return the upstream task ids, at least one, no duplicates, not the task itself */
  public List<String> upstream() {
    return upstream;
  }

  /** @return whether all upstream tasks or any one must have succeeded */
  public Require require() {
    return require;
  }

  /** @return which upstream windows a window waits for */
  public Mapping mapping() {
    return mapping;
  }

  /**
   * @return how long after the window came due it waits; null: until the window's end (or 24 h after
   *     it came due, for a window that ends when it starts)
   */
  public Duration waitAtMost() {
    return waitAtMost;
  }

  /** @return what a registration naming an upstream task that is not registered does */
  public MissingUpstream missingUpstream() {
    return missingUpstream;
  }

  /**
   * @return what an upstream success that arrives after this task's window already ran does
   *     (recorded either way)
   */
  public Rerun onUpstreamRerun() {
    return onUpstreamRerun;
  }
}

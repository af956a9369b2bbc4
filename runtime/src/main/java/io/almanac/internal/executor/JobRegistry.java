package io.almanac.internal.executor;

import io.almanac.AgentJob;
import io.almanac.InvalidSpecException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs a node can run, by name: a task names its job ({@code TaskSpec.job}) by the name it is
 * registered under or by its {@link AgentJob} class, or is bound to a job under its own id. Jobs are code, so they are registered on every node, not persisted.
 * Thread-safe. INTERNAL API.
 */
public final class JobRegistry {
  private final Map<String, AgentJob> jobs = new ConcurrentHashMap<>();
  /** Where the node's attempt spans go (docs/tracing.md); null: none (no tracing). */
  private volatile io.opentelemetry.api.OpenTelemetry openTelemetry;

  /**
   * @param openTelemetry where the node's attempt and step spans go; the no-op (or null) traces nothing
   */
  public void openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
    this.openTelemetry = openTelemetry;
  }

  /** @return where the node's attempt and step spans go, or null for none */
  public io.opentelemetry.api.OpenTelemetry openTelemetry() {
    return openTelemetry;
  }
  private final Map<String, io.almanac.Condition> conditions = new ConcurrentHashMap<>();
  /** Exclusion calendars declared in code, by name: held here with the node's other code-declared parts. */
  private final Map<String, io.almanac.ExclusionCalendar> calendars = new ConcurrentHashMap<>();

  /**
   * Declares an exclusion calendar that tasks of {@code almanac.tasks} may name (docs/schedules.md).
   *
   * @param calendar the calendar
   */
  public void registerCalendar(io.almanac.ExclusionCalendar calendar) {
    calendars.put(calendar.name(), Objects.requireNonNull(calendar, "calendar"));
  }

  /** @return the calendars declared in code, by name */
  public Map<String, io.almanac.ExclusionCalendar> calendars() {
    return Map.copyOf(calendars);
  }

  /**
   * Registers a condition under the name condition triggers use ({@link io.almanac.ConditionTrigger#name()}).
   *
   * @param name the name
   * @param condition the predicate
   * @throws InvalidSpecException (field {@code condition.name}) if the name is empty
   */
  public void registerCondition(String name, io.almanac.Condition condition) {
    if (name == null || name.isBlank()) {
      throw new InvalidSpecException("condition.name", name, "a condition name must not be empty");
    }
    conditions.put(name, Objects.requireNonNull(condition, "condition"));
  }

  /**
   * @param name a condition's name
   * @return the condition, or null if none is registered under it on this node
   */
  public io.almanac.Condition condition(String name) {
    return name == null ? null : conditions.get(name);
  }

  /**
   * @param name the job's name
   * @param job the job
   */
  public void register(String name, AgentJob job) {
    if (name == null || name.isBlank()) {
      throw new InvalidSpecException("job", name, "a job name must not be empty");
    }
    jobs.put(name, Objects.requireNonNull(job, "job"));
  }

  /**
   * Instantiates a job class by its name (public no-argument constructor), registering it under
   * that name, so that a spec can name its job by class ({@code TaskSpec.job}).
   *
   * @param className the class name
   * @return the job
   * @throws InvalidSpecException ({@code job}) if the class is missing, not an AgentJob, or cannot be created
   */
  public AgentJob registerClass(String className) {
    AgentJob job = classJob(className);
    if (job == null) {
      throw new InvalidSpecException("job", className, "no job is registered under this name on this node and no class"
          + " of this name is on the classpath: register the job first (Almanac.Builder#job), or name an"
          + " io.almanac.AgentJob class");
    }
    return job;
  }

  /**
   * The job a task runs, checked at its registration: the job registered under {@code name}, else
   * the {@link AgentJob} class of that name (instantiated and registered under it), else the job
   * registered under the task's id.
   *
   * @param name the spec's job: a registered name or a class name (may be null)
   * @param taskId the task's id
   * @return the job
   * @throws InvalidSpecException ({@code job}) naming the value, if none of these is found, or the
   *     class is not an AgentJob or cannot be created
   */
  public AgentJob resolve(String name, String taskId) {
    AgentJob job = name == null ? null : jobs.get(name);
    if (job != null) {
      return job;
    }
    AgentJob byClass = name == null ? null : classJob(name);
    if (byClass != null) {
      return byClass;
    }
    AgentJob byId = jobs.get(taskId);
    if (byId != null) {
      return byId;
    }
    if (name == null) {
      throw new InvalidSpecException("job", null, "a task names the job it runs");
    }
    return registerClass(name);
  }

  /** The job of a class name, registered under it; null when no class has that name. */
  private AgentJob classJob(String className) {
    AgentJob existing = jobs.get(className);
    if (existing != null) {
      return existing;
    }
    Class<?> c;
    try {
      c = Class.forName(className, true, Thread.currentThread().getContextClassLoader() != null
          ? Thread.currentThread().getContextClassLoader() : JobRegistry.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
    if (!AgentJob.class.isAssignableFrom(c)) {
      throw new InvalidSpecException("job", className, "is a class but not an io.almanac.AgentJob");
    }
    try {
      AgentJob job = (AgentJob) c.getConstructor().newInstance();
      AgentJob raced = jobs.putIfAbsent(className, job);
      return raced != null ? raced : job;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new InvalidSpecException("job", className, "cannot be created with a public no-argument constructor: " + e);
    }
  }

  /**
   * The job an attempt runs: as {@link #resolve} finds it, or null when it finds none (a node that
   * lacks the job fails the attempt with a reason, it does not throw).
   *
   * @param name the job's name or class name (may be null)
   * @param taskId the task's id, the fallback name
   * @return the job, or null if none is found
   */
  public AgentJob find(String name, String taskId) {
    AgentJob job = name == null ? null : jobs.get(name);
    if (job != null) {
      return job;
    }
    try {
      AgentJob byClass = name == null ? null : classJob(name);
      return byClass != null ? byClass : jobs.get(taskId);
    } catch (InvalidSpecException e) {
      return jobs.get(taskId);
    }
  }

  /**
   * @param name a job name
   * @return whether a job is registered under it
   */
  public boolean has(String name) {
    return name != null && jobs.containsKey(name);
  }

  // ---- resource pools (declared on every node, like jobs)

  private final Map<String, io.almanac.PoolSpec> pools = new java.util.concurrent.ConcurrentSkipListMap<>();

  /**
   * Declares a resource pool on this node.
   *
   * @param pool the pool
   * @throws InvalidSpecException ({@code almanac.pools.<name>}) if another pool of that name with other limits is declared
   */
  public void registerPool(io.almanac.PoolSpec pool) {
    Objects.requireNonNull(pool, "pool");
    io.almanac.PoolSpec before = pools.putIfAbsent(pool.name(), pool);
    if (before != null && !before.equals(pool)) {
      throw new InvalidSpecException("almanac.pools." + pool.name(), pool.toString(),
          "is declared twice with other limits: " + before);
    }
  }

  /** @return the pools declared on this node, by name (sorted) */
  public Map<String, io.almanac.PoolSpec> pools() {
    return java.util.Collections.unmodifiableMap(pools);
  }
}

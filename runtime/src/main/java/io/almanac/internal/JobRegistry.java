package io.almanac.internal;

import io.almanac.AgentJob;
import io.almanac.InvalidSpecException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs a node can run, by name: a task names its job ({@code TaskSpec.job}), or is bound to a
 * job under its own id. Jobs are code, so they are registered on every node, not persisted.
 * Thread-safe. INTERNAL API.
 */
public final class JobRegistry {
  private final Map<String, AgentJob> jobs = new ConcurrentHashMap<>();
  private final Map<String, io.almanac.Condition> conditions = new ConcurrentHashMap<>();

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
   * that name, as for tasks declared in {@code almanac.tasks}.
   *
   * @param className the class name
   * @return the job
   * @throws InvalidSpecException if the class is missing, not an AgentJob, or cannot be created
   */
  public AgentJob registerClass(String className) {
    AgentJob existing = jobs.get(className);
    if (existing != null) {
      return existing;
    }
    try {
      Class<?> c = Class.forName(className, true, Thread.currentThread().getContextClassLoader() != null
          ? Thread.currentThread().getContextClassLoader() : JobRegistry.class.getClassLoader());
      if (!AgentJob.class.isAssignableFrom(c)) {
        throw new InvalidSpecException("job", className, "is not an io.almanac.AgentJob");
      }
      AgentJob job = (AgentJob) c.getDeclaredConstructor().newInstance();
      jobs.put(className, job);
      return job;
    } catch (ClassNotFoundException e) {
      throw new InvalidSpecException("job", className, "no such class on the classpath");
    } catch (ReflectiveOperationException e) {
      throw new InvalidSpecException("job", className, "cannot be created with a public no-argument constructor: " + e);
    }
  }

  /**
   * @param name the job's name (may be null)
   * @param taskId the task's id, the fallback name
   * @return the job, or null if neither is registered
   */
  public AgentJob find(String name, String taskId) {
    AgentJob job = name == null ? null : jobs.get(name);
    return job != null ? job : jobs.get(taskId);
  }

  /**
   * @param name a job name
   * @return whether a job is registered under it
   */
  public boolean has(String name) {
    return name != null && jobs.containsKey(name);
  }
}

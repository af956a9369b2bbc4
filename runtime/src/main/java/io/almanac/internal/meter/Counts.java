package io.almanac.internal.meter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The node's counters and job-duration timers, made on first use and kept by name and tags: what
 * {@link NodeMeters} and the write's meters ({@link WrittenMeters}) count into. Also the usage
 * counters, by task and by model (at most {@value #MAX_MODEL_TAGS} model names get their own
 * series). INTERNAL API.
 */
final class Counts {

  /**
   * The job-duration histogram's buckets: fixed and few (14 per task), so thousands of tasks stay
   * thousands of series, not 95 times that; sized for agent jobs that run seconds to hours.
   */
  static final Duration[] JOB_BUCKETS = {
    Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5),
    Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2),
    Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1),
    Duration.ofHours(2), Duration.ofHours(4)};

  /** How many model names get their own series of the by-model usage counters on a node. */
  static final int MAX_MODEL_TAGS = 32;

  private final MeterRegistry registry;
  private final Map<String, Counter> counters;
  private final Map<String, Timer> jobDurations = new ConcurrentHashMap<>();
  private final Map<String, Boolean> modelTags = new ConcurrentHashMap<>();

  /**
   * @param registry where the meters are registered
   * @param counters the counters by name and tags, shared with the node's other meters
   */
  Counts(MeterRegistry registry, Map<String, Counter> counters) {
    this.registry = registry;
    this.counters = counters;
  }

  /** A decision on windows, as written to the journal ({@code almanac.decisions}), counted {@code n} times. */
  void decision(String task, String kind, String decision, String reason, long n) {
    String key = "almanac.decisions|" + task + "|" + kind + "|" + decision + "|" + reason;
    counters.computeIfAbsent(key, k -> Counter.builder("almanac.decisions").tag("task", task).tag("kind", kind)
        .tag("decision", decision).tag("reason", reason).description("decisions on windows, as written to the journal")
        .register(registry)).increment(n);
  }

  /** A counter of a task's (its tag: {@link TaskTags}) with one more tag. */
  void count(String name, String task, String tag, String value) {
    counters.computeIfAbsent(name + "|" + task + "|" + value, k -> Counter.builder(name).tag("task", task).tag(tag, value)
        .register(registry)).increment();
  }

  /** A counter with one tag, or none when {@code tag} is null. */
  void count(String name, String tag, String value) {
    counters.computeIfAbsent(name + "|" + value, k -> {
      Counter.Builder b = Counter.builder(name);
      return (tag == null ? b : b.tag(tag, value)).register(registry);
    }).increment();
  }

  /** A job's duration, in its task's histogram ({@code almanac.job.duration}); nothing when not reported. */
  void jobDuration(String taskId, Duration took) {
    if (took == null) {
      return;
    }
    jobDurations.computeIfAbsent(taskId, id -> Timer.builder("almanac.job.duration").tag("task", id)
        .description("durations of attempts that succeeded or failed")
        .serviceLevelObjectives(JOB_BUCKETS).register(registry)).record(took);
  }

  /** What an attempt reported using, by task and by model ({@code almanac.usage.*}). */
  void usage(String taskId, io.almanac.journal.UsageRecord u) {
    if (u == null) {
      return;
    }
    add("almanac.usage.tokens|" + taskId + "|in", () -> Counter.builder("almanac.usage.tokens").tag("task", taskId)
        .tag("direction", "in").description("tokens the attempts of a task reported").register(registry), u.tokensIn());
    add("almanac.usage.tokens|" + taskId + "|out", () -> Counter.builder("almanac.usage.tokens").tag("task", taskId)
        .tag("direction", "out").description("tokens the attempts of a task reported").register(registry), u.tokensOut());
    add("almanac.usage.cost|" + taskId, () -> Counter.builder("almanac.usage.cost").tag("task", taskId)
        .description("cost the attempts of a task reported").register(registry), u.costMicros() / 1e6);
    String model = modelTag(u.model());
    add("almanac.usage.model.tokens|" + model + "|in", () -> Counter.builder("almanac.usage.model.tokens")
        .tag("model", model).tag("direction", "in").description("tokens reported, by model").register(registry), u.tokensIn());
    add("almanac.usage.model.tokens|" + model + "|out", () -> Counter.builder("almanac.usage.model.tokens")
        .tag("model", model).tag("direction", "out").description("tokens reported, by model").register(registry),
        u.tokensOut());
    add("almanac.usage.model.cost|" + model, () -> Counter.builder("almanac.usage.model.cost").tag("model", model)
        .description("cost reported, by model").register(registry), u.costMicros() / 1e6);
  }

  /** A model's tag: its name while fewer than MAX_MODEL_TAGS names have one, then {@code other}. */
  private String modelTag(String model) {
    if (model == null) {
      return "unknown";
    }
    if (modelTags.containsKey(model)) {
      return model;
    }
    synchronized (modelTags) {
      if (modelTags.size() < MAX_MODEL_TAGS) {
        modelTags.put(model, Boolean.TRUE);
        return model;
      }
    }
    return modelTags.containsKey(model) ? model : "other";
  }

  private void add(String key, Supplier<Counter> make, double amount) {
    if (amount > 0) {
      counters.computeIfAbsent(key, k -> make.get()).increment(amount);
    }
  }

  /** An enum's tag value: its name in lower case, {@code unknown} for null. */
  static String name(Enum<?> e) {
    return e == null ? "unknown" : e.name().toLowerCase(Locale.ROOT);
  }
}

package io.almanac.internal.meter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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

  /**
   * The {@code # HELP} text of each counter made here (Prometheus prints no HELP line for a meter
   * without a description): one place, so that a counter made at its first count and the same
   * counter made at zero by {@link #taskSeries} or at the node's start read the same.
   */
  static final Map<String, String> HELP = Map.ofEntries(
      Map.entry("almanac.fires", "fires the trigger sent, by their answer"),
      Map.entry("almanac.decisions", "decisions on windows, as written to the journal"),
      Map.entry("almanac.attempts.started", "attempts started (PENDING to RUNNING), by run kind"),
      Map.entry("almanac.attempts", "attempts ended, by outcome"),
      Map.entry("almanac.steps", "durable steps recorded, and steps an attempt got from their record"),
      Map.entry("almanac.retries.scheduled", "retries planned by a retry policy"),
      Map.entry("almanac.windows.final.failed", "windows that entered the intervention queue (FINAL_FAILED)"),
      Map.entry("almanac.lease.expiries", "running attempts timed out: their lease ended or their executor left"),
      Map.entry("almanac.deadlines.missed", "windows recorded DEADLINE_MISSED, by their status then"),
      Map.entry("almanac.budget.raises", "operators' raises of a task's budget for the day"),
      Map.entry("almanac.publishes", "publishes this node answered, by outcome"),
      Map.entry("almanac.alerts.webhook.sent", "alerts the webhook delivered (a 2xx answer)"),
      Map.entry("almanac.alerts.webhook.failed.attempts", "attempts to POST an alert to the webhook that failed"),
      Map.entry("almanac.alerts.webhook.dropped", "alerts the webhook did not deliver, by reason"));

  /** The attempts' outcomes ({@code almanac.attempts}): a closed set, each made at zero per task. */
  static final List<String> OUTCOMES = List.of("succeeded", "failed", "throttled", "timed_out", "interrupted", "cancelled",
      "late_result");

  /** A decision on windows, as written to the journal ({@code almanac.decisions}), counted {@code n} times. */
  void decision(String task, String kind, String decision, String reason, long n) {
    decisionCounter(task, kind, decision, reason).increment(n);
  }

  private Counter decisionCounter(String task, String kind, String decision, String reason) {
    String key = "almanac.decisions|" + task + "|" + kind + "|" + decision + "|" + reason;
    return counters.computeIfAbsent(key, k -> Counter.builder("almanac.decisions").tag("task", task).tag("kind", kind)
        .tag("decision", decision).tag("reason", reason).description(HELP.get("almanac.decisions"))
        .register(registry));
  }

  /** A fire's answer ({@code almanac.fires}). */
  void fire(String task, String kind, String result) {
    fireCounter(task, kind, result).increment();
  }

  private Counter fireCounter(String task, String kind, String result) {
    return counters.computeIfAbsent("almanac.fires|" + task + "|" + kind + "|" + result, x -> Counter.builder("almanac.fires")
        .tag("task", task).tag("kind", kind).tag("result", result).description(HELP.get("almanac.fires"))
        .register(registry));
  }

  /** A counter of a task's (its tag: {@link TaskTags}) with one more tag. */
  void count(String name, String task, String tag, String value) {
    counter(name, task, tag, value).increment();
  }

  private Counter counter(String name, String task, String tag, String value) {
    return counters.computeIfAbsent(name + "|" + task + "|" + value, k -> Counter.builder(name).tag("task", task)
        .tag(tag, value).description(HELP.get(name)).register(registry));
  }

  /** A counter with one tag, or none when {@code tag} is null. */
  void count(String name, String tag, String value) {
    counter(name, tag, value).increment();
  }

  /** The counter {@link #count(String, String, String)} counts into, made at zero if it is not yet. */
  Counter counter(String name, String tag, String value) {
    return counters.computeIfAbsent(name + "|" + value, k -> {
      Counter.Builder b = Counter.builder(name).description(HELP.get(name));
      return (tag == null ? b : b.tag(tag, value)).register(registry);
    });
  }

  /**
   * Makes a task's series at zero, so that the first fire, decision, attempt or report of the task
   * is an increase Prometheus sees ({@code increase()} of a series that appears at 1 is 0). Made
   * once per task tag, at its registration or its entity's start, never per fire: the closed sets
   * of each counter's tags on the common path, not every combination ({@code almanac.fires}: kind
   * on_time, each result; {@code almanac.decisions}: kind on_time with scheduled, each skip reason
   * and each miss reason; {@code almanac.attempts.started}: each run kind; {@code almanac.attempts}:
   * each outcome; {@code almanac.steps}: both kinds; {@code almanac.usage.tokens} both directions and
   * {@code almanac.usage.cost}; the {@code almanac.job.duration} histogram). Other combinations
   * (catch-up fires, decisions of other kinds) appear at their first count.
   *
   * @param task the task's tag ({@link TaskTags})
   */
  void taskSeries(String task) {
    for (String result : List.of("acknowledged", "refused", "unanswered")) {
      fireCounter(task, "on_time", result);
    }
    decisionCounter(task, "on_time", "scheduled", "none");
    for (io.almanac.SkipReason r : io.almanac.SkipReason.values()) {
      decisionCounter(task, "on_time", "skipped", name(r));
    }
    for (io.almanac.MissReason r : io.almanac.MissReason.values()) {
      decisionCounter(task, "on_time", "missed", name(r));
    }
    for (io.almanac.RunKind k : io.almanac.RunKind.values()) {
      counter("almanac.attempts.started", task, "kind", name(k));
    }
    for (String outcome : OUTCOMES) {
      counter("almanac.attempts", task, "outcome", outcome);
    }
    counter("almanac.steps", task, "kind", "recorded");
    counter("almanac.steps", task, "kind", "replayed");
    tokens(task, "in");
    tokens(task, "out");
    cost(task);
    jobTimer(task);
  }

  /** A job's duration, in its task's histogram ({@code almanac.job.duration}); nothing when not reported. */
  void jobDuration(String taskId, Duration took) {
    if (took == null) {
      return;
    }
    jobTimer(taskId).record(took);
  }

  private Timer jobTimer(String task) {
    return jobDurations.computeIfAbsent(task, id -> Timer.builder("almanac.job.duration").tag("task", id)
        .description("durations of attempts that succeeded or failed")
        .serviceLevelObjectives(JOB_BUCKETS).register(registry));
  }

  private Counter tokens(String task, String direction) {
    return counters.computeIfAbsent("almanac.usage.tokens|" + task + "|" + direction, k -> Counter.builder(
        "almanac.usage.tokens").tag("task", task).tag("direction", direction)
        .description("tokens the attempts of a task reported").register(registry));
  }

  private Counter cost(String task) {
    return counters.computeIfAbsent("almanac.usage.cost|" + task, k -> Counter.builder("almanac.usage.cost").tag("task", task)
        .description("cost the attempts of a task reported").register(registry));
  }

  /** What an attempt reported using, by task and by model ({@code almanac.usage.*}). */
  void usage(String taskId, io.almanac.journal.UsageRecord u) {
    if (u == null) {
      return;
    }
    if (u.tokensIn() > 0) {
      tokens(taskId, "in").increment(u.tokensIn());
    }
    if (u.tokensOut() > 0) {
      tokens(taskId, "out").increment(u.tokensOut());
    }
    if (u.costMicros() > 0) {
      cost(taskId).increment(u.costMicros() / 1e6);
    }
    String model = modelTag(u.model());
    if (u.tokensIn() > 0) {
      modelTokens(model, "in").increment(u.tokensIn());
    }
    if (u.tokensOut() > 0) {
      modelTokens(model, "out").increment(u.tokensOut());
    }
    if (u.costMicros() > 0) {
      modelCost(model).increment(u.costMicros() / 1e6);
    }
  }

  /**
   * Makes the by-model usage series of reports that name no model ({@code model="unknown"}) at zero:
   * the only model tag known before the first report (the node's start).
   */
  void unknownModelSeries() {
    modelTokens("unknown", "in");
    modelTokens("unknown", "out");
    modelCost("unknown");
  }

  private Counter modelTokens(String model, String direction) {
    return counters.computeIfAbsent("almanac.usage.model.tokens|" + model + "|" + direction, k -> Counter.builder(
        "almanac.usage.model.tokens").tag("model", model).tag("direction", direction)
        .description("tokens reported, by model").register(registry));
  }

  private Counter modelCost(String model) {
    return counters.computeIfAbsent("almanac.usage.model.cost|" + model, k -> Counter.builder("almanac.usage.model.cost")
        .tag("model", model).description("cost reported, by model").register(registry));
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

  /** An enum's tag value: its name in lower case, {@code unknown} for null. */
  static String name(Enum<?> e) {
    return e == null ? "unknown" : e.name().toLowerCase(Locale.ROOT);
  }
}

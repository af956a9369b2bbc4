package io.almanac.internal.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.almanac.CatchUpPolicy;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.DstPolicy;
import io.almanac.EventTrigger;
import io.almanac.ExclusionCalendar;
import io.almanac.InvalidSpecException;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Reads the tasks declared under {@code almanac.tasks} (R34). INTERNAL API.
 *
 * <p>Every refusal is an {@link InvalidSpecException} whose {@linkplain InvalidSpecException#field()
 * field} is the full config path of the key, e.g. {@code almanac.tasks.daily-digest.lease.factor},
 * and whose value is the value as written in the configuration (R33); no {@link ConfigException}
 * escapes. A task id that is not a plain HOCON key appears quoted in the path, as {@link
 * ConfigUtil#joinPath} writes it ({@code almanac.tasks."a.b".job}); ids are read from the object's
 * keys, never parsed as paths, so any id is safe to read, and one outside the charset of {@link
 * TaskSpec#validateId} (letters, digits, {@code . _ -}) is refused.
 *
 * <p>Decisions: an unknown key is refused (a misspelt {@code max-retry} would otherwise be silently
 * ignored), in a task and in its {@code retry}, {@code catch-up}, {@code lease} and {@code dst}
 * blocks; so is a {@code retry} key that the chosen back-off does not use (e.g. {@code delays} with
 * {@code backoff = exponential}), and a key of the old shape ({@code backfill}, {@code max-retries}
 * and {@code catch-up-horizon} at the task's level) with a pointer to its replacement. A {@code
 * retry} block marks the task for retry: {@code max-retries} defaults to {@value
 * RetryPolicy#DEFAULT_MAX_RETRIES} inside it (R15); without one the task is not retried (R12).
 * {@code dst} in a one-shot task ({@code at}), which fires at one instant, is refused, as are
 * {@code cron} and {@code at} together. {@code at} is an ISO-8601 instant with its offset ({@code
 * 2026-12-01T08:00:00Z}, {@code 2026-12-01T16:00:00+08:00}); one without an offset is refused rather
 * than read in a default zone. Integers must be whole numbers ({@code 2.0} is 2, {@code 2.5} is
 * refused); a null value counts as
 * absent.
 *
 * <p>Event, dependency and condition triggers (docs/triggers.md): {@code event { type, map-by =
 * event-time|arrival-time }} makes {@code cron} optional (a task with neither cron, at nor event is
 * refused), and such a task may name its {@code zone} (UTC by default); {@code zone} next to a {@code
 * cron} is refused, the cron's last token being its zone. {@code depends-on { upstream = [..],
 * require = all|any, mapping = same-window|all-within|latest-within, wait-at-most, missing-upstream
 * = reject|wait, on-upstream-rerun = keep|run-again }} and {@code condition { name, every, timeout,
 * debounce, hold-for, wait-at-most }} are read into the same triggers as the Java builder's; their
 * bounds (an {@code every} below 1 s, a {@code debounce} of 0, ...) are the triggers' own, refused
 * naming the full key. Unknown keys in these blocks are refused too. Whether the named condition is
 * registered on the node, and whether the upstream tasks exist, is checked at registration.
 * {@code deadline = 1h} (a positive duration after each window's due time) and {@code
 * pause-after-failures = 3} (windows in a row that end FINAL_FAILED, at least 1) are read into the
 * builder's {@code deadline} and {@code pauseAfterFailures}; docs/deadlines.md says what they do.
 * {@code on-interruption = resume|fail} is read into the builder's {@code onInterruption}
 * (docs/long-jobs/interruption.md).
 */
public final class ConfigTasks {
  private static final String ROOT = "almanac.tasks";
  private static final Set<String> KEYS = Set.of("cron", "at", "job", "window", "overlap", "retry", "catch-up", "lease",
      "dst", "description", "zone", "event", "depends-on", "condition", "pools", "deadline", "pause-after-failures",
      "budget-per-day", "on-interruption",
      "crons", "from", "until", "calendars", "jitter");
  private static final Set<String> EVENT_KEYS = Set.of("type", "map-by");
  private static final Set<String> DEPENDS_ON_KEYS = Set.of("upstream", "require", "mapping", "wait-at-most",
      "missing-upstream", "on-upstream-rerun");
  private static final Set<String> CONDITION_KEYS = Set.of("name", "every", "timeout", "debounce", "hold-for",
      "wait-at-most");
  private static final Set<String> LEASE_KEYS = Set.of("floor", "ceiling", "factor", "min-samples");
  private static final Set<String> DST_KEYS = Set.of("gap", "overlap");
  private static final Set<String> CATCH_UP_KEYS = Set.of("mode", "horizon", "span");
  /** The keys every back-off reads, and those only one back-off reads. */
  private static final Set<String> RETRY_KEYS = Set.of("max-retries", "backoff", "span");
  private static final Map<String, Set<String>> BACKOFF_KEYS = Map.of(
      "immediate", Set.of(),
      "delays", Set.of("delays"),
      "exponential", Set.of("initial-delay", "multiplier", "max-delay", "jitter"));
  private static final List<String> BACKOFFS = List.of("immediate", "delays", "exponential");
  /** Keys of the shape before retries and catch-up were separate policies: refused, naming the new keys. */
  private static final Map<String, String> REPLACED_KEYS = Map.of(
      "backfill", "backfill was split in two: retry { max-retries, backoff = immediate|delays|exponential, delays,"
          + " initial-delay, multiplier, max-delay, jitter, span } for failed attempts, and catch-up { mode = none|all,"
          + " horizon, span } for windows missed while nothing fired them",
      "max-retries", "moved into the retry block: retry { max-retries = ... }",
      "catch-up-horizon", "moved into the catch-up block: catch-up { horizon = ... }");

  /** The Java field a policy names, and the config key (relative to the task) it comes from. */
  private static final Map<String, String> FIELD_TO_KEY = Map.ofEntries(
      Map.entry("cron", "cron"),
      Map.entry("zone", "cron"),
      Map.entry("once", "at"),
      Map.entry("window", "window"),
      Map.entry("description", "description"),
      Map.entry("job", "job"),
      Map.entry("retry.maxRetries", "retry.max-retries"),
      Map.entry("retry.backoff", "retry.backoff"),
      Map.entry("retry.delays", "retry.delays"),
      Map.entry("retry.initialDelay", "retry.initial-delay"),
      Map.entry("retry.multiplier", "retry.multiplier"),
      Map.entry("retry.maxDelay", "retry.max-delay"),
      Map.entry("retry.jitter", "retry.jitter"),
      Map.entry("retry.span", "retry.span"),
      Map.entry("catchUp.mode", "catch-up.mode"),
      Map.entry("catchUp.horizon", "catch-up.horizon"),
      Map.entry("catchUp.span", "catch-up.span"),
      Map.entry("lease.floor", "lease.floor"),
      Map.entry("lease.ceiling", "lease.ceiling"),
      Map.entry("lease.factor", "lease.factor"),
      Map.entry("lease.minSamples", "lease.min-samples"),
      Map.entry("dst.gap", "dst.gap"),
      Map.entry("dst.overlap", "dst.overlap"),
      Map.entry("event.type", "event.type"),
      Map.entry("dependency.upstream", "depends-on.upstream"),
      Map.entry("dependency.wait-at-most", "depends-on.wait-at-most"),
      Map.entry("condition.name", "condition.name"),
      Map.entry("condition.every", "condition.every"),
      Map.entry("condition.timeout", "condition.timeout"),
      Map.entry("condition.debounce", "condition.debounce"),
      Map.entry("condition.hold-for", "condition.hold-for"),
      Map.entry("condition.wait-at-most", "condition.wait-at-most"),
      Map.entry("pools", "pools"),
      Map.entry("deadline", "deadline"),
      Map.entry("pauseAfterFailures", "pause-after-failures"),
      Map.entry("onInterruption", "on-interruption"),

      Map.entry("crons", "crons"),
      Map.entry("from", "from"),
      Map.entry("until", "until"),
      Map.entry("calendars", "calendars"),
      Map.entry("jitter", "jitter"));

  private ConfigTasks() {}

  /**
   * @param config the whole configuration
   * @return the declared tasks, validated, sorted by id
   * @throws InvalidSpecException naming the full key and the value of the first problem
   */
  public static List<TaskSpec> parse(Config config) {
    return parse(config, Map.of());
  }

  /**
   * @param config the whole configuration
   * @param declared exclusion calendars declared in code ({@code Almanac.Builder.calendar}), by name
   * @return the declared tasks, validated, sorted by id
   * @throws InvalidSpecException naming the full key and the value of the first problem
   */
  public static List<TaskSpec> parse(Config config, Map<String, ExclusionCalendar> declared) {
    Map<String, ExclusionCalendar> calendars = calendars(config, declared);
    if (!config.hasPath(ROOT)) {
      return List.of();
    }
    ConfigValue root = config.getValue(ROOT);
    if (root.valueType() != ConfigValueType.OBJECT) {
      throw new InvalidSpecException(ROOT, text(root), "must be an object with one entry per task, keyed by its id");
    }
    ConfigObject tasks = (ConfigObject) root;
    List<TaskSpec> out = new ArrayList<>();
    for (String id : new TreeSet<>(tasks.keySet())) {
      String at = ConfigUtil.joinPath("almanac", "tasks", id);
      ConfigValue task = tasks.get(id);
      try {
        TaskSpec.validateId(id);
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(at, id, e.reason());
      }
      if (task.valueType() != ConfigValueType.OBJECT) {
        throw new InvalidSpecException(at, text(task), "must be an object with cron (or at) and job");
      }
      out.add(parseOne(id, new Node((ConfigObject) task, at), tasks, calendars));
    }
    return out;
  }

  private static TaskSpec parseOne(String id, Node t, ConfigObject tasks, Map<String, ExclusionCalendar> calendars) {
    for (String key : new TreeSet<>(t.obj.keySet())) {
      if (REPLACED_KEYS.containsKey(key)) {
        throw t.refuse(key, REPLACED_KEYS.get(key));
      }
    }
    t.refuseUnknown(KEYS, "known: " + new TreeSet<>(KEYS));
    TaskSpec.Builder b = TaskSpec.builder(id);
    if (t.has("at")) {
      if (t.has("cron")) {
        throw t.refuse("cron", "a task has either cron or at (a one-shot instant), not both");
      }
      if (t.has("dst")) {
        throw t.refuse("dst", "not used by a one-shot task (at): it fires at one instant");
      }
      b.once(t.instant("at"));
    } else if (t.has("cron") || !t.has("event") && !t.has("crons")) {
      if (!t.has("cron")) {
        throw t.refuse("cron", "a cron expression is required (or at, the instant of a one-shot task, or event, for a "
            + "task triggered by events)");
      }
      String cron = t.string("cron", true);
      t.mapped(() -> b.cron(cron));
    }
    if (t.has("zone")) {
      if (t.has("cron") || t.has("crons")) {
        throw t.refuse("zone", "a task with a cron takes its zone from the cron's last token (e.g. \"0 30 0 * * ?"
            + " Asia/Shanghai\"); zone is for a task without cron");
      }
      String zone = t.string("zone", false).trim();
      try {
        ZoneId.of(zone);
      } catch (DateTimeException e) {
        throw t.refuse("zone", "unknown time zone (a region id such as Asia/Shanghai, or UTC)");
      }
      b.zone(zone);
    }
    if (t.has("event")) {
      b.onEvent(event(t.object("event")));
    }
    if (t.has("depends-on")) {
      b.dependsOn(dependsOn(t.object("depends-on")));
    }
    if (t.has("condition")) {
      b.when(condition(t.object("condition")));
    }
    b.job(t.string("job", true));
    if (t.has("window")) {
      b.window(t.string("window", false));
    }
    if (t.has("overlap")) {
      b.overlap(t.enumOf("overlap", OverlapPolicy.class));
    }
    if (t.has("retry")) {
      Node r = t.object("retry");
      b.retry(t.mapped(() -> retry(r)));
    }
    if (t.has("catch-up")) {
      Node c = t.object("catch-up");
      b.catchUp(t.mapped(() -> catchUp(c)));
    }
    if (t.has("lease")) {
      Node l = t.object("lease");
      l.refuseUnknown(LEASE_KEYS, "known: " + new TreeSet<>(LEASE_KEYS));
      LeasePolicy d = LeasePolicy.DEFAULT;
      Duration floor = l.has("floor") ? l.duration("floor") : d.floor();
      Duration ceiling = l.has("ceiling") ? l.duration("ceiling") : d.ceiling();
      double factor = l.has("factor") ? l.number("factor") : d.factor();
      int minSamples = l.has("min-samples") ? l.integer("min-samples") : d.minSamples();
      b.lease(t.mapped(() -> LeasePolicy.builder().floor(floor).ceiling(ceiling).factor(factor).minSamples(minSamples)
          .build()));
    }
    if (t.has("dst")) {
      Node d = t.object("dst");
      d.refuseUnknown(DST_KEYS, "known: " + new TreeSet<>(DST_KEYS));
      DstPolicy.Gap gap = d.has("gap") ? d.enumOf("gap", DstPolicy.Gap.class) : DstPolicy.DEFAULT.gap();
      DstPolicy.Overlap overlap = d.has("overlap") ? d.enumOf("overlap", DstPolicy.Overlap.class)
          : DstPolicy.DEFAULT.overlap();
      b.dst(t.mapped(() -> new DstPolicy(gap, overlap)));
    }
    if (t.has("description")) {
      b.description(t.string("description", false));
    }
    if (t.has("pools")) {
      b.pools(t.strings("pools", "a list of pool names declared under almanac.pools, e.g. [openai]"));
    }
    if (t.has("deadline")) { // a duration after each window's due time, positive
      Duration deadline = t.duration("deadline");
      t.mapped(() -> b.deadline(deadline));
    }
    if (t.has("pause-after-failures")) { // windows in a row that end FINAL_FAILED, at least 1
      int failures = t.integer("pause-after-failures");
      t.mapped(() -> b.pauseAfterFailures(failures));
    }
    if (t.has("budget-per-day")) {
      b.budgetPerDay(budgetPerDay(t));
    }
    if (t.has("on-interruption")) { // resume (default) or fail; docs/long-jobs/interruption.md
      b.onInterruption(t.enumOf("on-interruption", io.almanac.OnInterruption.class));
    }
    richSchedule(t, b, calendars);
    return t.mapped(b::build);
  }

  /**
   * A task's {@code budget-per-day}: a number at least 0 with at most 6 decimal places (as written,
   * {@code 5.00} or {@code "5.00"}), refused naming the key and the value otherwise.
   */
  private static java.math.BigDecimal budgetPerDay(Node t) {
    ConfigValue v = t.obj.get("budget-per-day");
    java.math.BigDecimal amount = null;
    if (v.valueType() == ConfigValueType.NUMBER || v.valueType() == ConfigValueType.STRING) {
      try {
        amount = new java.math.BigDecimal(t.obj.toConfig().getString("budget-per-day").trim());
      } catch (NumberFormatException | ConfigException e) {
        amount = null;
      }
    }
    if (amount == null) {
      throw t.refuse("budget-per-day", "must be a number (an amount in the unit jobs report cost in), e.g. 5.00");
    }
    if (amount.signum() < 0) {
      throw t.refuse("budget-per-day", "must be >= 0");
    }
    try {
      long micros = io.almanac.Usage.toMicros("budget-per-day", amount);
      if (micros > TaskSpec.MAX_BUDGET_MICROS) {
        throw t.refuse("budget-per-day", "at most " + io.almanac.Usage.fromMicros(TaskSpec.MAX_BUDGET_MICROS).toPlainString());
      }
    } catch (InvalidSpecException e) {
      if (e.field().startsWith(ROOT + ".")) {
        throw e;
      }
      throw t.refuse("budget-per-day", e.reason());
    }
    return amount;
  }

  /** Where exclusion calendars are declared. */
  private static final String CALENDARS = "almanac.calendars";

  /**
   * The exclusion calendars of {@code almanac.calendars} and those declared in code, by name; a name
   * declared in both is refused.
   */
  static Map<String, ExclusionCalendar> calendars(Config config, Map<String, ExclusionCalendar> declared) {
    Map<String, ExclusionCalendar> out = new java.util.TreeMap<>(declared);
    if (!config.hasPath(CALENDARS)) {
      return out;
    }
    ConfigValue root = config.getValue(CALENDARS);
    if (root.valueType() != ConfigValueType.OBJECT) {
      throw new InvalidSpecException(CALENDARS, text(root), "must be an object with one entry per calendar, keyed by its name");
    }
    ConfigObject all = (ConfigObject) root;
    for (String name : new TreeSet<>(all.keySet())) {
      String at = ConfigUtil.joinPath("almanac", "calendars", name);
      ConfigValue v = all.get(name);
      if (v.valueType() != ConfigValueType.OBJECT) {
        throw new InvalidSpecException(at, text(v), "must be an object { dates = [\"2027-01-01\", \"2027-02-10..2027-02-16\"] }");
      }
      Node c = new Node((ConfigObject) v, at);
      c.refuseUnknown(Set.of("dates"), "known: [dates]");
      List<String> dates = c.strings("dates", "a list of ISO dates and ranges, e.g. [\"2027-01-01\", \"2027-02-10..2027-02-16\"]");
      if (out.containsKey(name)) {
        throw new InvalidSpecException(at, name, "a calendar of this name is declared in code too (Almanac.Builder.calendar)");
      }
      try {
        out.put(name, ExclusionCalendar.of(name, dates));
      } catch (InvalidSpecException e) {
        String field = e.field().startsWith("calendars." + name + ".")
            ? at + e.field().substring(("calendars." + name).length()) : at;
        throw new InvalidSpecException(field, e.value(), e.reason());
      }
    }
    return out;
  }

  /** A task's crons, bounds, calendars and jitter (docs/schedules.md). */
  private static void richSchedule(Node t, TaskSpec.Builder b, Map<String, ExclusionCalendar> calendars) {
    if (t.has("crons")) {
      List<String> crons = t.strings("crons", "a list of crons, e.g. [\"0 0 9 ? * MON-FRI Europe/Paris\", \"0 0 9 1 * ?\"]");
      if (crons.isEmpty()) {
        throw t.refuse("crons", "lists at least one cron");
      }
      int first = 0;
      if (!t.has("cron")) {
        if (t.has("at")) {
          throw t.refuse("crons", "a task has either crons or at (a one-shot instant), not both");
        }
        String head = crons.get(0);
        try {
          b.cron(head);
        } catch (InvalidSpecException e) {
          InvalidSpecException cause = e.getCause() instanceof InvalidSpecException c ? c : e;
          throw new InvalidSpecException(t.path("crons"), head, cause.field() + " " + cause.reason());
        }
        first = 1;
      }
      for (String more : crons.subList(first, crons.size())) {
        b.alsoCron(more);
      }
    }
    if (t.has("from")) {
      b.from(t.string("from", false));
    }
    if (t.has("until")) {
      b.until(t.string("until", false));
    }
    if (t.has("calendars")) {
      for (String name : t.strings("calendars", "a list of calendar names, e.g. [holidays-cn-2027]")) {
        ExclusionCalendar c = calendars.get(name);
        if (c == null) {
          throw new InvalidSpecException(t.path("calendars"), name, "unknown calendar: declare it in almanac.calendars"
              + " (known: " + calendars.keySet() + ")");
        }
        b.exclude(c);
      }
    }
    if (t.has("jitter")) {
      b.jitter(t.duration("jitter"));
    }
  }

  /** A retry block: declaring one marks the task for retry (max-retries 3 unless set, R15). */
  private static RetryPolicy retry(Node c) {
    String backoff = c.has("backoff") ? c.string("backoff", false).trim().toLowerCase(Locale.ROOT) : "immediate";
    if (!BACKOFF_KEYS.containsKey(backoff)) {
      throw c.refuse("backoff", "must be one of " + BACKOFFS);
    }
    Set<String> used = new TreeSet<>(RETRY_KEYS);
    used.addAll(BACKOFF_KEYS.get(backoff));
    for (String key : new TreeSet<>(c.obj.keySet())) {
      if (used.contains(key)) {
        continue;
      }
      boolean known = BACKOFF_KEYS.values().stream().anyMatch(keys -> keys.contains(key));
      Set<String> all = new TreeSet<>(RETRY_KEYS);
      BACKOFF_KEYS.values().forEach(all::addAll);
      throw c.refuse(key, known ? "not used by backoff " + backoff + " (it reads " + used + ")"
          : "unknown key; known: " + all);
    }
    RetryPolicy policy = switch (backoff) {
      case "immediate" -> RetryPolicy.immediate();
      case "delays" -> RetryPolicy.delayed(c.durations("delays").toArray(new Duration[0]));
      default -> {
        Duration initial = c.duration("initial-delay");
        double multiplier = c.number("multiplier");
        Duration max = c.duration("max-delay");
        double jitter = c.has("jitter") ? c.number("jitter") : 0.0;
        yield RetryPolicy.exponential(initial, multiplier, max, jitter);
      }
    };
    if (c.has("max-retries")) {
      policy = policy.withMaxRetries(c.integer("max-retries"));
    }
    if (c.has("span")) {
      policy = policy.withinSpan(c.duration("span"));
    }
    return policy;
  }

  /** A catch-up block: missed windows run only with mode = all (R12). */
  private static CatchUpPolicy catchUp(Node c) {
    c.refuseUnknown(CATCH_UP_KEYS, "known: " + new TreeSet<>(CATCH_UP_KEYS));
    CatchUpPolicy policy = CatchUpPolicy.none();
    if (c.has("mode") && c.enumOf("mode", CatchUpPolicy.Mode.class) == CatchUpPolicy.Mode.ALL) {
      policy = CatchUpPolicy.all();
    }
    if (c.has("horizon")) {
      policy = policy.withHorizon(c.duration("horizon"));
    }
    if (c.has("span")) {
      policy = policy.withinSpan(c.duration("span"));
    }
    return policy;
  }

  /** An event block: the type is required; events map by their own time unless map-by says otherwise. */
  private static EventTrigger event(Node e) {
    e.refuseUnknown(EVENT_KEYS, "known: " + new TreeSet<>(EVENT_KEYS));
    String type = e.string("type", true);
    EventTrigger.TimeBasis basis = e.has("map-by") ? e.enumOf("map-by", EventTrigger.TimeBasis.class)
        : EventTrigger.TimeBasis.EVENT_TIME;
    return new EventTrigger(type, basis);
  }

  /** A depends-on block: upstream is required, every other key has the Java API's default. */
  private static DependencyTrigger dependsOn(Node d) {
    d.refuseUnknown(DEPENDS_ON_KEYS, "known: " + new TreeSet<>(DEPENDS_ON_KEYS));
    List<String> upstream = d.strings("upstream", "a list of upstream task ids such as [order-export]");
    DependencyTrigger.Require require = d.has("require") ? d.enumOf("require", DependencyTrigger.Require.class) : null;
    DependencyTrigger.Mapping mapping = d.has("mapping") ? d.enumOf("mapping", DependencyTrigger.Mapping.class) : null;
    Duration waitAtMost = d.has("wait-at-most") ? d.duration("wait-at-most") : null;
    DependencyTrigger.MissingUpstream missing = d.has("missing-upstream")
        ? d.enumOf("missing-upstream", DependencyTrigger.MissingUpstream.class) : null;
    DependencyTrigger.Rerun rerun = d.has("on-upstream-rerun")
        ? d.enumOf("on-upstream-rerun", DependencyTrigger.Rerun.class) : null;
    DependencyTrigger t = DependencyTrigger.on(upstream.toArray(new String[0]));
    return (require == DependencyTrigger.Require.ANY ? t.any() : t).mapping(mapping).waitAtMost(waitAtMost)
        .missingUpstream(missing).onUpstreamRerun(rerun);
  }

  /** A condition block: name is required, every other key has the Java API's default. */
  private static ConditionTrigger condition(Node c) {
    c.refuseUnknown(CONDITION_KEYS, "known: " + new TreeSet<>(CONDITION_KEYS));
    String name = c.string("name", true);
    Duration every = c.has("every") ? c.duration("every") : null;
    Duration timeout = c.has("timeout") ? c.duration("timeout") : null;
    int debounce = c.has("debounce") ? c.integer("debounce") : 1;
    Duration holdFor = c.has("hold-for") ? c.duration("hold-for") : null;
    Duration waitAtMost = c.has("wait-at-most") ? c.duration("wait-at-most") : null;
    // every first: it may lower the default timeout, which a configured one then replaces
    return ConditionTrigger.named(name).every(every).timeout(timeout).debounce(debounce).holdFor(holdFor)
        .waitAtMost(waitAtMost);
  }

  /** A value as written: strings bare, anything else as its unwrapped form ({@code [5m, abc]}). */
  private static String text(ConfigValue v) {
    if (v == null || v.valueType() == ConfigValueType.NULL) {
      return null;
    }
    return String.valueOf(v.unwrapped());
  }

  /** One object of the configuration and its full path. */
  private static final class Node {
    final ConfigObject obj;
    final String at;

    Node(ConfigObject obj, String at) {
      this.obj = obj;
      this.at = at;
    }

    String path(String key) {
      return at + "." + ConfigUtil.joinPath(key);
    }

    boolean has(String key) {
      ConfigValue v = obj.get(key);
      return v != null && v.valueType() != ConfigValueType.NULL;
    }

    ConfigValue value(String key) {
      return has(key) ? obj.get(key) : null;
    }

    InvalidSpecException refuse(String key, String reason) {
      return new InvalidSpecException(path(key), text(value(key)), reason);
    }

    void refuseUnknown(Set<String> known, String hint) {
      for (String key : new TreeSet<>(obj.keySet())) {
        if (!known.contains(key)) {
          throw new InvalidSpecException(path(key), text(obj.get(key)), "unknown key; " + hint);
        }
      }
    }

    ConfigValue required(String key) {
      if (!has(key)) {
        throw InvalidSpecException.missing(path(key));
      }
      return obj.get(key);
    }

    Node object(String key) {
      ConfigValue v = required(key);
      if (v.valueType() != ConfigValueType.OBJECT) {
        throw refuse(key, "must be an object { ... }");
      }
      return new Node((ConfigObject) v, path(key));
    }

    String string(String key, boolean required) {
      ConfigValue v = required ? required(key) : value(key);
      return switch (v.valueType()) {
        case STRING, NUMBER, BOOLEAN -> text(v);
        default -> throw refuse(key, "must be a string");
      };
    }

    int integer(String key) {
      ConfigValue v = required(key);
      String raw = text(v).trim();
      String why = "must be a whole number (an integer)";
      if (v.valueType() != ConfigValueType.NUMBER && v.valueType() != ConfigValueType.STRING) {
        throw refuse(key, why);
      }
      try {
        return Integer.parseInt(raw);
      } catch (NumberFormatException notAnInt) {
        try {
          double d = Double.parseDouble(raw);
          if (d == Math.rint(d) && d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE) {
            return (int) d;
          }
        } catch (NumberFormatException notANumber) {
          // refused below
        }
        throw refuse(key, why);
      }
    }

    double number(String key) {
      ConfigValue v = required(key);
      if (v.valueType() == ConfigValueType.NUMBER) {
        return ((Number) v.unwrapped()).doubleValue();
      }
      if (v.valueType() == ConfigValueType.STRING) {
        try {
          return Double.parseDouble(text(v).trim());
        } catch (NumberFormatException e) {
          // refused below
        }
      }
      throw refuse(key, "must be a number");
    }

    Instant instant(String key) {
      String value = string(key, true);
      try {
        return OffsetDateTime.parse(value.trim(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
      } catch (DateTimeParseException e) {
        throw refuse(key, "must be an ISO-8601 instant with its offset, e.g. 2026-12-01T08:00:00Z or "
            + "2026-12-01T16:00:00+08:00");
      }
    }

    Duration duration(String key) {
      required(key);
      try {
        return obj.toConfig().getDuration(ConfigUtil.joinPath(key));
      } catch (ConfigException e) {
        throw refuse(key, "must be a duration such as 15m");
      }
    }

    List<String> strings(String key, String what) {
      ConfigValue v = required(key);
      if (v.valueType() != ConfigValueType.LIST) {
        throw refuse(key, "must be " + what);
      }
      List<String> out = new ArrayList<>();
      for (ConfigValue item : (com.typesafe.config.ConfigList) v) {
        switch (item.valueType()) {
          case STRING, NUMBER, BOOLEAN -> out.add(text(item));
          default -> throw refuse(key, "must be " + what);
        }
      }
      return out;
    }

    List<Duration> durations(String key) {
      ConfigValue v = required(key);
      if (v.valueType() != ConfigValueType.LIST) {
        throw refuse(key, "must be a list of durations such as [5m, 15m, 30m]");
      }
      try {
        return obj.toConfig().getDurationList(ConfigUtil.joinPath(key));
      } catch (ConfigException e) {
        throw refuse(key, "must be a list of durations such as [5m, 15m, 30m]");
      }
    }

    <E extends Enum<E>> E enumOf(String key, Class<E> type) {
      String value = string(key, true);
      try {
        return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
      } catch (IllegalArgumentException e) {
        List<String> names = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
          names.add(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw refuse(key, "must be one of " + names);
      }
    }

    /**
     * Runs code that refuses with Java field names (the policies, the builder) and renames its
     * refusal to the full config key and the value as written.
     */
    <T> T mapped(Supplier<T> code) {
      try {
        return code.get();
      } catch (InvalidSpecException e) {
        throw rename(e);
      }
    }

    private InvalidSpecException rename(InvalidSpecException e) {
      if (e.field().startsWith(ROOT + ".")) {
        return e; // refused by this class, already named by its key
      }
      String key = FIELD_TO_KEY.get(e.field());
      if (key == null) {
        return new InvalidSpecException(at, e.value(), e.field() + " " + e.reason());
      }
      String reason = e.reason();
      for (Map.Entry<String, String> f : FIELD_TO_KEY.entrySet()) {
        if (f.getKey().contains(".")) {
          reason = reason.replace(f.getKey(), at + "." + f.getValue());
        }
      }
      if (e.field().equals("zone") && e.value() != null) {
        reason = "zone '" + e.value() + "': " + reason; // the zone is the cron's last token
      }
      ConfigValue written = valueAt(key);
      if (written == null || "description".equals(key) || "crons".equals(key)) {
        // A default the task did not set (named as such), or a value too long to repeat in full.
        String value = written == null && e.value() != null ? e.value() + " (default)" : e.value();
        return new InvalidSpecException(at + "." + key, value, reason);
      }
      return new InvalidSpecException(at + "." + key, text(written), reason);
    }

    private ConfigValue valueAt(String key) {
      ConfigValue v = obj;
      for (String part : key.split("\\.")) {
        if (!(v instanceof ConfigObject o) || o.get(part) == null || o.get(part).valueType() == ConfigValueType.NULL) {
          return null;
        }
        v = o.get(part);
      }
      return v;
    }
  }
}

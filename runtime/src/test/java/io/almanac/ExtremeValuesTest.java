package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every value the Java API takes is bounded where it enters (R33): extreme values (zero, negative,
 * Long.MAX_VALUE seconds, ChronoUnit.FOREVER, NaN, the infinities, Instant.MIN/MAX, null, huge
 * amounts) through every parameter of every public factory and builder method of the value classes
 * (the table below, checked complete against their public methods by reflection) and of every
 * {@link JobResult} factory give either a spec or value within its documented maxima, or an {@link
 * InvalidSpecException} naming the field; never another exception (a NullPointerException, an
 * ArithmeticException, a DateTimeException), and never an accepted value past a maximum.
 */
class ExtremeValuesTest {

  /** The classes users build values with; each public method or constructor with a parameter is in the table. */
  static final List<Class<?>> BUILT = List.of(TaskSpec.class, TaskSpec.Builder.class, PoolSpec.class, RetryPolicy.class,
      RetryPolicy.Builder.class, LeasePolicy.Builder.class, CatchUpPolicy.class, ExclusionCalendar.class, JobResult.class,
      WindowSpec.class, EventTrigger.class, DependencyTrigger.class, ConditionTrigger.class, Usage.class,
      IncomingEvent.class);

  /** Methods that build nothing (queries of a built value, checks, conversions), with where they are covered. */
  static final Map<String, String> NOT_BUILDERS = Map.ofEntries(
      Map.entry("RetryPolicy.retryDueAt(int, Instant, Instant, long)", "a query; saturation in PolicyBoundsTest"),
      Map.entry("CatchUpPolicy.withinHorizon(Instant, Instant)", "a query of a bounded policy"),
      Map.entry("CatchUpPolicy.allowsCatchUpAt(Instant, Instant)", "a query of a bounded policy"),
      Map.entry("ExclusionCalendar.excludes(LocalDate)", "a query"),
      Map.entry("ExclusionCalendar.entryFor(LocalDate)", "a query"),
      Map.entry("WindowSpec.windowOf(LocalDateTime, Instant, ZoneId)", "a window spec's own arithmetic (WindowSpecTest)"),
      Map.entry("WindowSpec.register(WindowSpec)", "registers a user's spec, checked by WindowSpecTest"),
      Map.entry("Usage.fromMicros(long)", "a conversion of a bounded amount"),
      Map.entry("TaskSpec.validateId(String)", "the check TaskSpec.builder runs: covered through builder(String)"),
      Map.entry("PoolSpec.validateName(String)", "the check PoolSpec.of runs: covered through of(String, int)"),
      Map.entry("EventTrigger.validateType(String, String)", "the check EventTrigger.of runs: covered through of(String)"),
      Map.entry("DependencyTrigger.validate(String)", "run by TaskSpec.build: covered through every DependencyTrigger entry"),
      Map.entry("Usage.toMicros(String, BigDecimal)", "covered through Usage.of and every budgetPerDay"));

  private static TaskSpec.Builder task() {
    return TaskSpec.builder("t").cron("0 0 8 * * ? UTC").job("j");
  }

  private static Object onTask(Function<TaskSpec.Builder, TaskSpec.Builder> f) {
    return f.apply(task()).build();
  }

  /** One parameter of one method, and how to call it with a value (the other parameters valid), to the built value. */
  record Entry(String method, int param, Class<?> type, Function<Object, Object> call) {
    String key() {
      return method + "#" + param;
    }
  }

  private static Entry e(String method, int param, Class<?> type, Function<Object, Object> call) {
    return new Entry(method, param, type, call);
  }

  private static Duration d(Object v) {
    return (Duration) v;
  }

  private static final Duration MIN = Duration.ofMinutes(1);
  private static final Duration HOUR = Duration.ofHours(1);

  static final List<Entry> TABLE = List.of(
      // TaskSpec and its builder
      e("TaskSpec.builder(String)", 0, String.class, v -> TaskSpec.builder((String) v).cron("0 0 8 * * ? UTC").job("j").build()),
      e("TaskSpec.Builder.cron(String)", 0, String.class, v -> TaskSpec.builder("t").cron((String) v).job("j").build()),
      e("TaskSpec.Builder.cron(String, String)", 0, String.class, v -> TaskSpec.builder("t").cron((String) v, "UTC").job("j").build()),
      e("TaskSpec.Builder.cron(String, String)", 1, String.class, v -> TaskSpec.builder("t").cron("0 0 8 * * ?", (String) v).job("j").build()),
      e("TaskSpec.Builder.once(Instant)", 0, Instant.class, v -> TaskSpec.builder("t").once((Instant) v).job("j").build()),
      e("TaskSpec.Builder.window(WindowSpec)", 0, WindowSpec.class, v -> onTask(b -> b.window((WindowSpec) v))),
      e("TaskSpec.Builder.window(String)", 0, String.class, v -> onTask(b -> b.window((String) v))),
      e("TaskSpec.Builder.dst(DstPolicy)", 0, DstPolicy.class, v -> onTask(b -> b.dst((DstPolicy) v))),
      e("TaskSpec.Builder.overlap(OverlapPolicy)", 0, OverlapPolicy.class, v -> onTask(b -> b.overlap((OverlapPolicy) v))),
      e("TaskSpec.Builder.onInterruption(OnInterruption)", 0, io.almanac.OnInterruption.class,
          v -> onTask(b -> b.onInterruption((io.almanac.OnInterruption) v))),
      e("TaskSpec.Builder.retry(RetryPolicy)", 0, RetryPolicy.class, v -> onTask(b -> b.retry((RetryPolicy) v))),
      e("TaskSpec.Builder.maxRetries(int)", 0, int.class, v -> onTask(b -> b.maxRetries((Integer) v))),
      e("TaskSpec.Builder.catchUp(CatchUpPolicy)", 0, CatchUpPolicy.class, v -> onTask(b -> b.catchUp((CatchUpPolicy) v))),
      e("TaskSpec.Builder.lease(LeasePolicy)", 0, LeasePolicy.class, v -> onTask(b -> b.lease((LeasePolicy) v))),
      e("TaskSpec.Builder.job(String)", 0, String.class, v -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").job((String) v).build()),
      e("TaskSpec.Builder.zone(String)", 0, String.class, v -> TaskSpec.builder("t").cron("0 0 8 * * ?").zone((String) v).job("j").build()),
      e("TaskSpec.Builder.onEvent(EventTrigger)", 0, EventTrigger.class, v -> onTask(b -> b.onEvent((EventTrigger) v))),
      e("TaskSpec.Builder.dependsOn(DependencyTrigger)", 0, DependencyTrigger.class, v -> onTask(b -> b.dependsOn((DependencyTrigger) v))),
      e("TaskSpec.Builder.when(ConditionTrigger)", 0, ConditionTrigger.class, v -> onTask(b -> b.when((ConditionTrigger) v))),
      e("TaskSpec.Builder.description(String)", 0, String.class, v -> onTask(b -> b.description((String) v))),
      e("TaskSpec.Builder.budgetPerDay(BigDecimal)", 0, BigDecimal.class, v -> onTask(b -> b.budgetPerDay((BigDecimal) v))),
      e("TaskSpec.Builder.pools(String[])", 0, String[].class, v -> onTask(b -> b.pools((String[]) v))),
      e("TaskSpec.Builder.pools(List)", 0, List.class, v -> onTask(b -> b.pools(strings(v)))),
      e("TaskSpec.Builder.deadline(Duration)", 0, Duration.class, v -> onTask(b -> b.deadline(d(v)))),
      e("TaskSpec.Builder.alsoCron(String)", 0, String.class, v -> onTask(b -> b.alsoCron((String) v))),
      e("TaskSpec.Builder.pauseAfterFailures(int)", 0, int.class, v -> onTask(b -> b.pauseAfterFailures((Integer) v))),
      e("TaskSpec.Builder.from(String)", 0, String.class, v -> onTask(b -> b.from((String) v))),
      e("TaskSpec.Builder.from(LocalDate)", 0, LocalDate.class, v -> onTask(b -> b.from((LocalDate) v))),
      e("TaskSpec.Builder.from(Instant)", 0, Instant.class, v -> onTask(b -> b.from((Instant) v))),
      e("TaskSpec.Builder.until(String)", 0, String.class, v -> onTask(b -> b.until((String) v))),
      e("TaskSpec.Builder.until(LocalDate)", 0, LocalDate.class, v -> onTask(b -> b.until((LocalDate) v))),
      e("TaskSpec.Builder.until(Instant)", 0, Instant.class, v -> onTask(b -> b.until((Instant) v))),
      e("TaskSpec.Builder.exclude(ExclusionCalendar)", 0, ExclusionCalendar.class, v -> onTask(b -> b.exclude((ExclusionCalendar) v))),
      e("TaskSpec.Builder.jitter(Duration)", 0, Duration.class, v -> onTask(b -> b.jitter(d(v)))),
      // pools
      e("PoolSpec.of(String, int)", 0, String.class, v -> PoolSpec.of((String) v, 2)),
      e("PoolSpec.of(String, int)", 1, int.class, v -> PoolSpec.of("llm", (Integer) v)),
      e("PoolSpec.withRate(int, Duration)", 0, int.class, v -> PoolSpec.of("llm", 2).withRate((Integer) v, MIN)),
      e("PoolSpec.withRate(int, Duration)", 1, Duration.class, v -> PoolSpec.of("llm", 2).withRate(1, d(v))),
      e("PoolSpec.withRate(String)", 0, String.class, v -> PoolSpec.of("llm", 2).withRate((String) v)),
      e("PoolSpec.withBudgetPerDay(BigDecimal)", 0, BigDecimal.class, v -> PoolSpec.of("llm", 2).withBudgetPerDay((BigDecimal) v)),
      e("PoolSpec.withZone(ZoneId)", 0, java.time.ZoneId.class, v -> PoolSpec.of("llm", 2).withZone((java.time.ZoneId) v)),
      // retry
      e("RetryPolicy.delayed(Duration[])", 0, Duration[].class, v -> RetryPolicy.delayed((Duration[]) v)),
      e("RetryPolicy.exponential(Duration, double, Duration, double)", 0, Duration.class, v -> RetryPolicy.exponential(d(v), 2, HOUR, 0)),
      e("RetryPolicy.exponential(Duration, double, Duration, double)", 1, double.class, v -> RetryPolicy.exponential(MIN, (Double) v, HOUR, 0)),
      e("RetryPolicy.exponential(Duration, double, Duration, double)", 2, Duration.class, v -> RetryPolicy.exponential(MIN, 2, d(v), 0)),
      e("RetryPolicy.exponential(Duration, double, Duration, double)", 3, double.class, v -> RetryPolicy.exponential(MIN, 2, HOUR, (Double) v)),
      e("RetryPolicy.forRecoveryTime(Duration, Duration, double)", 0, Duration.class, v -> RetryPolicy.forRecoveryTime(d(v), HOUR, 2)),
      e("RetryPolicy.forRecoveryTime(Duration, Duration, double)", 1, Duration.class, v -> RetryPolicy.forRecoveryTime(MIN, d(v), 2)),
      e("RetryPolicy.forRecoveryTime(Duration, Duration, double)", 2, double.class, v -> RetryPolicy.forRecoveryTime(MIN, HOUR, (Double) v)),
      e("RetryPolicy.capFor(Duration, Duration, double)", 0, Duration.class, v -> RetryPolicy.capFor(d(v), HOUR, 2)),
      e("RetryPolicy.capFor(Duration, Duration, double)", 1, Duration.class, v -> RetryPolicy.capFor(MIN, d(v), 2)),
      e("RetryPolicy.capFor(Duration, Duration, double)", 2, double.class, v -> RetryPolicy.capFor(MIN, HOUR, (Double) v)),
      e("RetryPolicy.withMaxRetries(int)", 0, int.class, v -> RetryPolicy.immediate().withMaxRetries((Integer) v)),
      e("RetryPolicy.withinSpan(Duration)", 0, Duration.class, v -> RetryPolicy.immediate().withinSpan(d(v))),
      e("RetryPolicy.Builder.maxRetries(int)", 0, int.class, v -> RetryPolicy.builder().maxRetries((Integer) v).build()),
      e("RetryPolicy.Builder.backoff(Backoff)", 0, RetryPolicy.Backoff.class, v -> RetryPolicy.builder().backoff((RetryPolicy.Backoff) v).build()),
      e("RetryPolicy.Builder.delays(List)", 0, List.class, v -> RetryPolicy.builder().maxRetries(1)
          .backoff(RetryPolicy.Backoff.DELAYS).delays(durations(v)).build()),
      e("RetryPolicy.Builder.initialDelay(Duration)", 0, Duration.class, v -> exponentialBuilder().initialDelay(d(v)).build()),
      e("RetryPolicy.Builder.multiplier(double)", 0, double.class, v -> exponentialBuilder().multiplier((Double) v).build()),
      e("RetryPolicy.Builder.maxDelay(Duration)", 0, Duration.class, v -> exponentialBuilder().maxDelay(d(v)).build()),
      e("RetryPolicy.Builder.jitter(double)", 0, double.class, v -> exponentialBuilder().jitter((Double) v).build()),
      e("RetryPolicy.Builder.span(Duration)", 0, Duration.class, v -> exponentialBuilder().span(d(v)).build()),
      // lease
      e("LeasePolicy.Builder.floor(Duration)", 0, Duration.class, v -> LeasePolicy.builder().floor(d(v)).build()),
      e("LeasePolicy.Builder.ceiling(Duration)", 0, Duration.class, v -> LeasePolicy.builder().ceiling(d(v)).build()),
      e("LeasePolicy.Builder.factor(double)", 0, double.class, v -> LeasePolicy.builder().factor((Double) v).build()),
      e("LeasePolicy.Builder.minSamples(int)", 0, int.class, v -> LeasePolicy.builder().minSamples((Integer) v).build()),
      // catch-up
      e("CatchUpPolicy(Mode, Duration, Duration)", 0, CatchUpPolicy.Mode.class, v -> new CatchUpPolicy((CatchUpPolicy.Mode) v, HOUR, Duration.ZERO)),
      e("CatchUpPolicy(Mode, Duration, Duration)", 1, Duration.class, v -> new CatchUpPolicy(CatchUpPolicy.Mode.ALL, d(v), Duration.ZERO)),
      e("CatchUpPolicy(Mode, Duration, Duration)", 2, Duration.class, v -> new CatchUpPolicy(CatchUpPolicy.Mode.ALL, HOUR, d(v))),
      e("CatchUpPolicy.withHorizon(Duration)", 0, Duration.class, v -> CatchUpPolicy.all().withHorizon(d(v))),
      e("CatchUpPolicy.withinSpan(Duration)", 0, Duration.class, v -> CatchUpPolicy.all().withinSpan(d(v))),
      // calendars
      e("ExclusionCalendar.of(String, List)", 0, String.class, v -> ExclusionCalendar.of((String) v, List.of("2027-01-01"))),
      e("ExclusionCalendar.of(String, List)", 1, List.class, v -> ExclusionCalendar.of("h", strings(v))),
      e("ExclusionCalendar.of(String, String[])", 0, String.class, v -> ExclusionCalendar.of((String) v, "2027-01-01")),
      e("ExclusionCalendar.of(String, String[])", 1, String[].class, v -> ExclusionCalendar.of("h", (String[]) v)),
      // job results
      e("JobResult.success(String)", 0, String.class, v -> JobResult.success((String) v)),
      e("JobResult.success(String, String)", 0, String.class, v -> JobResult.success((String) v, "s3://b/k")),
      e("JobResult.success(String, String)", 1, String.class, v -> JobResult.success("ok", (String) v)),
      e("JobResult.failure(String)", 0, String.class, v -> JobResult.failure((String) v)),
      e("JobResult.throttled(Duration)", 0, Duration.class, v -> JobResult.throttled(d(v))),
      e("JobResult.throttled(Duration, String)", 0, Duration.class, v -> JobResult.throttled(d(v), "llm")),
      e("JobResult.throttled(Duration, String)", 1, String.class, v -> JobResult.throttled(MIN, (String) v)),
      e("JobResult.withUsage(Usage)", 0, Usage.class, v -> JobResult.success("ok").withUsage((Usage) v)),
      e("Usage.of(String, long, long, BigDecimal)", 0, String.class, v -> Usage.of((String) v, 1, 1, BigDecimal.ONE)),
      e("Usage.of(String, long, long, BigDecimal)", 1, long.class, v -> Usage.of("m", (Long) v, 1, BigDecimal.ONE)),
      e("Usage.of(String, long, long, BigDecimal)", 2, long.class, v -> Usage.of("m", 1, (Long) v, BigDecimal.ONE)),
      e("Usage.of(String, long, long, BigDecimal)", 3, BigDecimal.class, v -> Usage.of("m", 1, 1, (BigDecimal) v)),
      e("Usage.ofMicros(String, long, long, long)", 0, String.class, v -> Usage.ofMicros((String) v, 1, 1, 1)),
      e("Usage.ofMicros(String, long, long, long)", 1, long.class, v -> Usage.ofMicros("m", (Long) v, 1, 1)),
      e("Usage.ofMicros(String, long, long, long)", 2, long.class, v -> Usage.ofMicros("m", 1, (Long) v, 1)),
      e("Usage.ofMicros(String, long, long, long)", 3, long.class, v -> Usage.ofMicros("m", 1, 1, (Long) v)),
      // window specs and triggers (checked when a task is built with them)
      e("WindowSpec.byName(String)", 0, String.class, v -> onTask(b -> b.window(WindowSpec.byName((String) v)))),
      e("EventTrigger(String, TimeBasis)", 0, String.class, v -> onTask(b -> b.onEvent(new EventTrigger((String) v,
          EventTrigger.TimeBasis.values()[0])))),
      e("EventTrigger(String, TimeBasis)", 1, EventTrigger.TimeBasis.class, v -> onTask(b -> b.onEvent(new EventTrigger("order",
          (EventTrigger.TimeBasis) v)))),
      e("EventTrigger.of(String)", 0, String.class, v -> onTask(b -> b.onEvent(EventTrigger.of((String) v)))),
      e("DependencyTrigger.on(String[])", 0, String[].class, v -> onTask(b -> b.dependsOn(DependencyTrigger.on((String[]) v)))),
      e("DependencyTrigger.waitAtMost(Duration)", 0, Duration.class, v -> onTask(b -> b.dependsOn(DependencyTrigger.on("up")
          .waitAtMost(d(v))))),
      e("DependencyTrigger.mapping(Mapping)", 0, DependencyTrigger.Mapping.class, v -> onTask(b -> b.dependsOn(
          DependencyTrigger.on("up").mapping((DependencyTrigger.Mapping) v)))),
      e("DependencyTrigger.missingUpstream(MissingUpstream)", 0, DependencyTrigger.MissingUpstream.class, v -> onTask(b ->
          b.dependsOn(DependencyTrigger.on("up").missingUpstream((DependencyTrigger.MissingUpstream) v)))),
      e("DependencyTrigger.onUpstreamRerun(Rerun)", 0, DependencyTrigger.Rerun.class, v -> onTask(b -> b.dependsOn(
          DependencyTrigger.on("up").onUpstreamRerun((DependencyTrigger.Rerun) v)))),
      e("ConditionTrigger.named(String)", 0, String.class, v -> onTask(b -> b.when(ConditionTrigger.named((String) v)))),
      e("ConditionTrigger.every(Duration)", 0, Duration.class, v -> onTask(b -> b.when(ConditionTrigger.named("c").every(d(v))))),
      e("ConditionTrigger.timeout(Duration)", 0, Duration.class, v -> onTask(b -> b.when(ConditionTrigger.named("c").timeout(d(v))))),
      e("ConditionTrigger.debounce(int)", 0, int.class, v -> onTask(b -> b.when(ConditionTrigger.named("c").debounce((Integer) v)))),
      e("ConditionTrigger.holdFor(Duration)", 0, Duration.class, v -> onTask(b -> b.when(ConditionTrigger.named("c").holdFor(d(v))))),
      e("ConditionTrigger.waitAtMost(Duration)", 0, Duration.class, v -> onTask(b -> b.when(ConditionTrigger.named("c")
          .waitAtMost(d(v))))),
      e("IncomingEvent.of(String, String)", 0, String.class, v -> IncomingEvent.of((String) v, "e1").validate()),
      e("IncomingEvent.of(String, String)", 1, String.class, v -> IncomingEvent.of("order", (String) v).validate()),
      e("IncomingEvent.withEventTime(Instant)", 0, Instant.class, v -> IncomingEvent.of("order", "e1").withEventTime((Instant) v).validate()),
      e("IncomingEvent.withSummary(String)", 0, String.class, v -> IncomingEvent.of("order", "e1").withSummary((String) v).validate()));

  private static RetryPolicy.Builder exponentialBuilder() {
    return RetryPolicy.builder().maxRetries(3).backoff(RetryPolicy.Backoff.EXPONENTIAL).initialDelay(MIN).multiplier(2)
        .maxDelay(HOUR).jitter(0);
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object v) {
    return v == null ? null : Arrays.asList((String[]) v);
  }

  private static List<Duration> durations(Object v) {
    return v == null ? null : Arrays.asList((Duration[]) v);
  }

  /** The extreme values of each parameter type; those past every documented maximum are {@link #mustRefuse}. */
  static List<Object> extremes(Class<?> type) {
    List<Object> out = new ArrayList<>();
    out.add(null);
    if (type == Duration.class) {
      out.addAll(List.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(-1), Duration.ofSeconds(Long.MIN_VALUE),
          Duration.ofSeconds(Long.MAX_VALUE), ChronoUnit.FOREVER.getDuration(), Duration.ofDays(200_000),
          Duration.ofSeconds(9_999_999_999L), Duration.ofDays(3661)));
    } else if (type == int.class) {
      out.clear(); // a primitive has no null
      out.addAll(List.of(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE));
    } else if (type == long.class) {
      out.clear();
      out.addAll(List.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE));
    } else if (type == double.class) {
      out.clear();
      out.addAll(List.of(0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e300, -0.0,
          Double.MIN_VALUE));
    } else if (type == BigDecimal.class) {
      out.addAll(List.of(BigDecimal.ZERO, BigDecimal.ONE.negate(), new BigDecimal("1e30"), new BigDecimal("1e-30"),
          new BigDecimal("-0.000001")));
    } else if (type == Instant.class) {
      out.addAll(List.of(Instant.MIN, Instant.MAX, Instant.EPOCH));
    } else if (type == LocalDate.class) {
      out.addAll(List.of(LocalDate.MIN, LocalDate.MAX, LocalDate.EPOCH));
    } else if (type == String.class) {
      out.addAll(List.of("", " ", "\u0000", "x".repeat(100_000), "9999999999999999999999", "-1"));
    } else if (type == String[].class) {
      out.addAll(List.of(new String[0], new String[] {null}, new String[] {"a", null}, Collections.nCopies(20_000, "a")
          .toArray(new String[0])));
    } else if (type == List.class) { // a list of strings or of durations: given as an array, converted by the entry
      return null;
    } else if (type == Duration[].class) {
      out.addAll(List.of(new Duration[0], new Duration[] {null}, new Duration[] {Duration.ofSeconds(Long.MAX_VALUE)},
          new Duration[] {Duration.ofSeconds(-1)}, new Duration[] {ChronoUnit.FOREVER.getDuration()}));
    }
    return out;
  }

  /** Values past every maximum the API documents: accepting one is a fault. */
  static boolean mustRefuse(Object v) {
    if (v instanceof Duration d) {
      return d.isNegative() || d.compareTo(Duration.ofDays(3660)) > 0;
    }
    if (v instanceof Integer i) {
      return i == Integer.MAX_VALUE || i == Integer.MIN_VALUE;
    }
    if (v instanceof Long l) {
      return l == Long.MAX_VALUE || l == Long.MIN_VALUE;
    }
    if (v instanceof Double x) {
      return x.isNaN() || x.isInfinite() || Math.abs(x) >= 1e300;
    }
    if (v instanceof BigDecimal b) {
      return b.signum() < 0 || b.compareTo(new BigDecimal("1e20")) > 0;
    }
    if (v instanceof Instant i) {
      return i.equals(Instant.MIN) || i.equals(Instant.MAX);
    }
    if (v instanceof LocalDate date) {
      return date.equals(LocalDate.MIN) || date.equals(LocalDate.MAX);
    }
    if (v instanceof Duration[] ds) {
      return Arrays.stream(ds).anyMatch(ExtremeValuesTest::mustRefuse);
    }
    return false;
  }

  private static String describe(Object v) {
    if (v instanceof Object[] a) {
      return a.length > 3 ? "[" + a.length + " elements]" : Arrays.toString(a);
    }
    String s = String.valueOf(v);
    return s.length() > 40 ? s.substring(0, 40) + "... (" + s.length() + " chars)" : s.replace("\u0000", "\\u0000");
  }

  @TestFactory
  @DisplayName("R33: every extreme value through every builder and factory: a value within the maxima, or a typed "
      + "refusal naming the field")
  Stream<DynamicTest> extremeValuesAreBoundedOrRefused() {
    return TABLE.stream().flatMap(entry -> {
      List<Object> values = entry.type() == List.class
          ? extremes(entry.method().startsWith("RetryPolicy") ? Duration[].class : String[].class)
          : extremes(entry.type());
      return values.stream().map(v -> DynamicTest.dynamicTest(entry.key() + " = " + describe(v), () -> {
        Object built;
        try {
          built = entry.call().apply(v);
        } catch (InvalidSpecException refused) {
          assertTrue(refused.field() != null && !refused.field().isBlank(), () -> "no field named: " + refused);
          assertTrue(refused.getMessage() != null && refused.getMessage().length() <= InvalidSpecException.MAX_MESSAGE_LENGTH
              + 200, "a bounded message");
          return;
        } catch (RuntimeException | Error other) {
          fail(entry.key() + " with " + describe(v) + " threw " + other + " instead of a typed refusal naming the field",
              other);
          return;
        }
        assertFalse(mustRefuse(v), () -> entry.key() + " accepted " + describe(v) + ", past every documented maximum: "
            + built);
      }));
    });
  }

  /** A method's signature as the table names it: {@code Class.method(Simple, Types)}; a constructor as {@code Class(...)}. */
  static String signature(Executable x) {
    String owner = x.getDeclaringClass().getEnclosingClass() == null ? x.getDeclaringClass().getSimpleName()
        : x.getDeclaringClass().getEnclosingClass().getSimpleName() + "." + x.getDeclaringClass().getSimpleName();
    String params = Arrays.stream(x.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "));
    return (x instanceof Constructor<?> ? owner : owner + "." + x.getName()) + "(" + params + ")";
  }

  @Test
  @DisplayName("R33: the table names every parameter of every public method and constructor of the built classes")
  void tableIsComplete() {
    TreeSet<String> expected = new TreeSet<>();
    for (Class<?> c : BUILT) {
      List<Executable> all = new ArrayList<>(Arrays.asList(c.getDeclaredMethods()));
      all.addAll(Arrays.asList(c.getDeclaredConstructors()));
      for (Executable x : all) {
        if (!Modifier.isPublic(x.getModifiers()) || x.isSynthetic() || x.getParameterCount() == 0
            || x instanceof Method m && (m.isBridge() || m.getName().equals("equals"))) {
          continue;
        }
        String sig = signature(x);
        if (NOT_BUILDERS.containsKey(sig)) {
          continue;
        }
        for (int i = 0; i < x.getParameterCount(); i++) {
          expected.add(sig + "#" + i);
        }
      }
    }
    Map<String, Long> counted = new TreeMap<>(TABLE.stream().collect(Collectors.groupingBy(Entry::key, Collectors.counting())));
    TreeSet<String> missing = new TreeSet<>(expected);
    missing.removeAll(counted.keySet());
    TreeSet<String> extra = new TreeSet<>(counted.keySet());
    extra.removeAll(expected);
    assertEquals(List.of(), List.copyOf(missing), "public methods whose parameter no table entry feeds extreme values");
    assertEquals(List.of(), List.copyOf(extra), "table entries naming no public method (renamed or removed?)");
    assertTrue(counted.values().stream().allMatch(n -> n == 1), () -> "an entry named twice: " + counted);
  }
}

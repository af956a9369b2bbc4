package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.InvalidSpecException;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** R34: tasks declared in application.conf; R33: a wrong value names its full key. */
class ConfigTasksTest {

  @Test
  @DisplayName("R34: a task declared in almanac.tasks becomes the same spec as one built in Java")
  void parsesDeclaredTasks() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          daily-digest {
            cron = "0 0 8 * * ? Asia/Shanghai"
            job = "com.example.DigestJob"
            window = daily
            overlap = buffer-one
            retry { max-retries = 3, backoff = delays, delays = [5m, 15m, 30m] }
            catch-up { mode = all, horizon = 12h }
            dst { gap = skip, overlap = last }
            description = "the field report's digest"
          }
          ping { cron = "*/10 * * * * ? UTC", job = "com.example.Ping", window = per-firing }
        }
        """));
    assertEquals(2, specs.size());
    TaskSpec digest = specs.get(0);
    TaskSpec expected = TaskSpec.builder("daily-digest").cron("0 0 8 * * ? Asia/Shanghai").job("com.example.DigestJob")
        .overlap(OverlapPolicy.BUFFER_ONE)
        .retry(RetryPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)).withMaxRetries(3))
        .catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(12)))
        .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.LAST))
        .description("the field report's digest").build();
    assertEquals(expected, digest);
    assertEquals("ping", specs.get(1).id());
    assertEquals("per-firing", specs.get(1).window());
  }

  @Test
  @DisplayName("R12/R15: the defaults: no retry block, no retries; a retry block marks the task, 3 immediate retries;"
      + " no catch-up block or an empty one, missed windows are not run, horizon 24 h")
  void defaultsMatchTheJavaApi() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          a { cron = "0 0 8 * * ? UTC", job = J }
          b { cron = "0 0 8 * * ? UTC", job = J, retry {}, catch-up {} }
          c { cron = "0 0 8 * * ? UTC", job = J, retry { backoff = delays, delays = [5m] } }
          d { cron = "0 0 8 * * ? UTC", job = J, retry { max-retries = 0 }, catch-up { mode = none, horizon = 0s } }
        }
        """));
    TaskSpec javaDefault = TaskSpec.builder("a").cron("0 0 8 * * ? UTC").job("J").build();
    assertEquals(javaDefault, specs.get(0));
    assertEquals(RetryPolicy.none(), specs.get(0).retry());
    assertEquals(CatchUpPolicy.none(), specs.get(0).catchUp());
    assertEquals(RetryPolicy.immediate(), specs.get(1).retry());
    assertEquals(3, specs.get(1).retry().maxRetries());
    assertEquals(CatchUpPolicy.none(), specs.get(1).catchUp());
    assertEquals(RetryPolicy.delayed(Duration.ofMinutes(5)), specs.get(2).retry());
    assertEquals(3, specs.get(2).retry().maxRetries());
    assertEquals(0, specs.get(3).retry().maxRetries());
    assertEquals(CatchUpPolicy.none().withHorizon(Duration.ZERO), specs.get(3).catchUp());
  }

  @ParameterizedTest(name = "R33: the old key {0} is refused, naming its replacement")
  @CsvSource(delimiter = '|', value = {
      "backfill { mode = delayed, delays = [5m] } | almanac.tasks.t.backfill         | retry {",
      "max-retries = 3                            | almanac.tasks.t.max-retries      | retry { max-retries",
      "catch-up-horizon = 12h                     | almanac.tasks.t.catch-up-horizon | catch-up { horizon"})
  void oldKeysPointToTheirReplacement(String entry, String key, String hint) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks { t { cron = \"0 0 8 * * ? UTC\", job = J, " + entry + " } }")));
    assertEquals(key, e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith(key + " '"), e.getMessage());
    assertTrue(e.getMessage().contains(hint), e.getMessage());
  }

  @ParameterizedTest(name = "R33: {0} is refused naming {1}")
  @CsvSource(delimiter = '|', value = {
      "t { cron = \"0 0 25 * * ? UTC\", job = J }                          | almanac.tasks.t.cron",
      "t { cron = \"0 0 8 * * ? Mars/Olympus\", job = J }                  | almanac.tasks.t.cron",
      "t { cron = \"0 0 8 * * ? UTC\" }                                     | almanac.tasks.t.job",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, overlap = sometimes }      | almanac.tasks.t.overlap",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, colour = blue }            | almanac.tasks.t.colour",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, retry.max-retries = -1 }   | almanac.tasks.t.retry.max-retries",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, retry { backoff = later } } | almanac.tasks.t.retry.backoff",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, catch-up { mode = some } } | almanac.tasks.t.catch-up.mode",
      "t = 5                                                                | almanac.tasks.t"})
  void refusesBadDeclarations(String hocon, String field) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { " + hocon + " }")));
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(field), e.getMessage());
  }

  private static final String T = "t { cron = \"0 0 8 * * ? UTC\", job = J, ";

  /** Every key ConfigTasks reads, each way it can be wrong: {config inside almanac.tasks, full key, value}. */
  static Stream<Arguments> everyKey() {
    return Stream.of(
        row("t { job = J }", "almanac.tasks.t.cron", "null"),
        row("t { cron = [1], job = J }", "almanac.tasks.t.cron", "[1]"),
        row("t { cron = \"0 0 25 * * ? UTC\", job = J }", "almanac.tasks.t.cron", "0 0 25 * * ? UTC"),
        row("t { cron = \"0 0 8 * * ?\", job = J }", "almanac.tasks.t.cron", "0 0 8 * * ?"),
        row("t { cron = \"0 0 8 * * ? Mars/Olympus\", job = J }", "almanac.tasks.t.cron", "0 0 8 * * ? Mars/Olympus"),
        row("t { cron = \"0 0 8 * * ? UTC\" }", "almanac.tasks.t.job", "null"),
        row("t { cron = \"0 0 8 * * ? UTC\", job = [a] }", "almanac.tasks.t.job", "[a]"),
        row(T + "window = fortnightly }", "almanac.tasks.t.window", "fortnightly"),
        row(T + "window = [d] }", "almanac.tasks.t.window", "[d]"),
        row(T + "overlap = sometimes }", "almanac.tasks.t.overlap", "sometimes"),
        row(T + "overlap = { a = 1 } }", "almanac.tasks.t.overlap", "{a=1}"),
        row(T + "retry = 5 }", "almanac.tasks.t.retry", "5"),
        row(T + "retry { max-retries = 2.5 } }", "almanac.tasks.t.retry.max-retries", "2.5"),
        row(T + "retry { max-retries = \"2.5\" } }", "almanac.tasks.t.retry.max-retries", "2.5"),
        row(T + "retry { max-retries = -1 } }", "almanac.tasks.t.retry.max-retries", "-1"),
        row(T + "retry { max-retries = 1001 } }", "almanac.tasks.t.retry.max-retries", "1001"),
        row(T + "retry { max-retries = 99999999999 } }", "almanac.tasks.t.retry.max-retries", "99999999999"),
        row(T + "retry { max-retries = abc } }", "almanac.tasks.t.retry.max-retries", "abc"),
        row(T + "retry { max-retries = [1] } }", "almanac.tasks.t.retry.max-retries", "[1]"),
        row(T + "retry { backoff = later } }", "almanac.tasks.t.retry.backoff", "later"),
        row(T + "retry { backoff = [x] } }", "almanac.tasks.t.retry.backoff", "[x]"),
        row(T + "retry { backoff = delays } }", "almanac.tasks.t.retry.delays", "null"),
        row(T + "retry { backoff = delays, delays = abc } }", "almanac.tasks.t.retry.delays", "abc"),
        row(T + "retry { backoff = delays, delays = [5m, abc] } }", "almanac.tasks.t.retry.delays", "[5m, abc]"),
        row(T + "retry { backoff = delays, delays = [] } }", "almanac.tasks.t.retry.delays", "[]"),
        row(T + "retry { backoff = delays, delays = [15m, 5m] } }", "almanac.tasks.t.retry.delays", "[15m, 5m]"),
        row(T + "retry { backoff = delays, delays = [5m, 400d] } }", "almanac.tasks.t.retry.delays", "[5m, 400d]"),
        row(T + "retry { backoff = exponential, initial-delay = abc, multiplier = 2, max-delay = 1h } }",
            "almanac.tasks.t.retry.initial-delay", "abc"),
        row(T + "retry { backoff = exponential, initial-delay = 0s, multiplier = 2, max-delay = 1h } }",
            "almanac.tasks.t.retry.initial-delay", "0s"),
        row(T + "retry { backoff = exponential, initial-delay = 400d, multiplier = 2, max-delay = 400d } }",
            "almanac.tasks.t.retry.initial-delay", "400d"),
        row(T + "retry { backoff = exponential, multiplier = 2, max-delay = 1h } }",
            "almanac.tasks.t.retry.initial-delay", "null"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = abc, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "abc"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 0.5, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "0.5"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 1e300, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "1.0E300"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "null"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 1m } }",
            "almanac.tasks.t.retry.max-delay", "1m"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 400d } }",
            "almanac.tasks.t.retry.max-delay", "400d"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = [1h] } }",
            "almanac.tasks.t.retry.max-delay", "[1h]"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2 } }",
            "almanac.tasks.t.retry.max-delay", "null"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 1h, jitter = 2 } }",
            "almanac.tasks.t.retry.jitter", "2"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 1h, jitter = abc } }",
            "almanac.tasks.t.retry.jitter", "abc"),
        row(T + "retry { span = 0s } }", "almanac.tasks.t.retry.span", "0s"),
        row(T + "retry { span = 400d } }", "almanac.tasks.t.retry.span", "400d"),
        row(T + "retry { span = abc } }", "almanac.tasks.t.retry.span", "abc"),
        row(T + "retry { backoff = immediate, colour = red } }", "almanac.tasks.t.retry.colour", "red"),
        row(T + "retry { backoff = immediate, delays = [5m] } }", "almanac.tasks.t.retry.delays", "[5m]"),
        row(T + "retry { delays = [5m] } }", "almanac.tasks.t.retry.delays", "[5m]"),
        row(T + "retry { backoff = delays, delays = [5m], jitter = 0.1 } }", "almanac.tasks.t.retry.jitter", "0.1"),
        row(T + "catch-up = 5 }", "almanac.tasks.t.catch-up", "5"),
        row(T + "catch-up { mode = some } }", "almanac.tasks.t.catch-up.mode", "some"),
        row(T + "catch-up { mode = [x] } }", "almanac.tasks.t.catch-up.mode", "[x]"),
        row(T + "catch-up { horizon = abc } }", "almanac.tasks.t.catch-up.horizon", "abc"),
        row(T + "catch-up { horizon = -1h } }", "almanac.tasks.t.catch-up.horizon", "-1h"),
        row(T + "catch-up { horizon = 367d } }", "almanac.tasks.t.catch-up.horizon", "367d"),
        row(T + "catch-up { horizon = 106751991167300d } }", "almanac.tasks.t.catch-up.horizon", "106751991167300d"),
        row(T + "catch-up { horizon = [1h] } }", "almanac.tasks.t.catch-up.horizon", "[1h]"),
        row(T + "catch-up { mode = all, span = 0s } }", "almanac.tasks.t.catch-up.span", "0s"),
        row(T + "catch-up { mode = all, span = 400d } }", "almanac.tasks.t.catch-up.span", "400d"),
        row(T + "catch-up { mode = all, span = abc } }", "almanac.tasks.t.catch-up.span", "abc"),
        row(T + "catch-up { span = 24h } }", "almanac.tasks.t.catch-up.span", "24h"),
        row(T + "catch-up { colour = red } }", "almanac.tasks.t.catch-up.colour", "red"),
        row(T + "backfill { mode = none } }", "almanac.tasks.t.backfill", "{mode=none}"),
        row(T + "max-retries = 3 }", "almanac.tasks.t.max-retries", "3"),
        row(T + "catch-up-horizon = 12h }", "almanac.tasks.t.catch-up-horizon", "12h"),
        row(T + "lease = 5 }", "almanac.tasks.t.lease", "5"),
        row(T + "lease { floor = abc } }", "almanac.tasks.t.lease.floor", "abc"),
        row(T + "lease { floor = 0s } }", "almanac.tasks.t.lease.floor", "0s"),
        row(T + "lease { floor = 3h, ceiling = 2h } }", "almanac.tasks.t.lease.floor", "3h"),
        row(T + "lease { ceiling = 8d } }", "almanac.tasks.t.lease.ceiling", "8d"),
        row(T + "lease { ceiling = abc } }", "almanac.tasks.t.lease.ceiling", "abc"),
        row(T + "lease { factor = abc } }", "almanac.tasks.t.lease.factor", "abc"),
        row(T + "lease { factor = 0.5 } }", "almanac.tasks.t.lease.factor", "0.5"),
        row(T + "lease { factor = 1000 } }", "almanac.tasks.t.lease.factor", "1000"),
        row(T + "lease { factor = [1] } }", "almanac.tasks.t.lease.factor", "[1]"),
        row(T + "lease { min-samples = 2.5 } }", "almanac.tasks.t.lease.min-samples", "2.5"),
        row(T + "lease { min-samples = 0 } }", "almanac.tasks.t.lease.min-samples", "0"),
        row(T + "lease { min-samples = 10001 } }", "almanac.tasks.t.lease.min-samples", "10001"),
        row(T + "lease { min-samples = abc } }", "almanac.tasks.t.lease.min-samples", "abc"),
        row(T + "lease { colour = red } }", "almanac.tasks.t.lease.colour", "red"),
        row(T + "dst = 5 }", "almanac.tasks.t.dst", "5"),
        row(T + "dst { gap = sometimes } }", "almanac.tasks.t.dst.gap", "sometimes"),
        row(T + "dst { gap = [1] } }", "almanac.tasks.t.dst.gap", "[1]"),
        row(T + "dst { overlap = twice } }", "almanac.tasks.t.dst.overlap", "twice"),
        row(T + "dst { colour = red } }", "almanac.tasks.t.dst.colour", "red"),
        row(T + "description = [a] }", "almanac.tasks.t.description", "[a]"),
        row(T + "description = \"" + "x".repeat(1001) + "\" }", "almanac.tasks.t.description", "x".repeat(40) + "..."),
        row(T + "colour = blue }", "almanac.tasks.t.colour", "blue"),
        row("t { at = tomorrow, job = J }", "almanac.tasks.t.at", "tomorrow"),
        row("t { at = \"2026-12-01T08:00:00\", job = J }", "almanac.tasks.t.at", "2026-12-01T08:00:00"),
        row("t { at = [1], job = J }", "almanac.tasks.t.at", "[1]"),
        row("t { at = \"1969-12-31T23:59:59Z\", job = J }", "almanac.tasks.t.at", "1969-12-31T23:59:59Z"),
        row("t { at = \"2100-01-01T00:00:00Z\", job = J }", "almanac.tasks.t.at", "2100-01-01T00:00:00Z"),
        row("t { at = \"2026-12-01T08:00:00Z\", cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.t.cron",
            "0 0 8 * * ? UTC"),
        row("t { at = \"2026-12-01T08:00:00Z\", job = J, dst { gap = skip } }", "almanac.tasks.t.dst", "{gap=skip}"),
        row("t { at = \"2026-12-01T08:00:00Z\", job = J, window = daily }", "almanac.tasks.t.window", "daily"),
        row("t { at = \"2026-12-01T08:00:00Z\" }", "almanac.tasks.t.job", "null"),
        row("t = 5", "almanac.tasks.t", "5"),
        row("\"a\\\"b\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"a\\\"b\"", "a\"b"),
        row("\"a b\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"a b\"", "a b"),
        row("\"\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"\"", ""),
        row("\"a.b\" { cron = \"0 0 8 * * ? UTC\" }", "almanac.tasks.\"a.b\".job", "null"));
  }

  private static Arguments row(String tasks, String key, String value) {
    return Arguments.of(tasks, key, value);
  }

  @ParameterizedTest(name = "R33: {1} = ''{2}'' is refused naming the full key and the value")
  @MethodSource("everyKey")
  void everyKeyRefusedNamingFullPathAndValue(String tasks, String key, String value) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { " + tasks + " }")));
    assertEquals(key, e.field(), e.getMessage());
    assertTrue(e.getMessage().startsWith(key + " '" + value + "' is invalid: "), e.getMessage());
    assertEquals(value, String.valueOf(e.value()), e.getMessage());
  }

  @Test
  @DisplayName("R34: a one-shot task declared with at (an instant with its offset) is the same spec as once(...) in Java")
  void parsesOneShotTasks() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          launch { at = "2026-12-01T08:00:00Z", job = J, catch-up { mode = all, horizon = 1h } }
          shanghai { at = "2026-12-01T16:00:00+08:00", job = J, window = per-firing }
        }
        """));
    java.time.Instant at = java.time.Instant.parse("2026-12-01T08:00:00Z");
    assertEquals(TaskSpec.builder("launch").once(at).job("J").catchUp(io.almanac.CatchUpPolicy.all().withHorizon(Duration.ofHours(1)))
        .build(), specs.get(0));
    assertEquals(TaskSpec.builder("shanghai").once(at).job("J").build(), specs.get(1), "the offset is read, UTC inside");
  }

  @Test
  @DisplayName("R33: almanac.tasks that is not an object is refused naming almanac.tasks")
  void tasksNotAnObject() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks = 5")));
    assertTrue(e.getMessage().startsWith("almanac.tasks '5' is invalid: "), e.getMessage());
  }

  @Test
  @DisplayName("R34: a task id with a dot is read as one id (its path is quoted), and every key is read")
  void dottedIdAndEveryKey() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          "reports.daily" {
            cron = "0 0 8 * * ? UTC", job = J
            retry { max-retries = 2.0, backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 1h, jitter = 0.1 }
            lease { floor = 30s, ceiling = 6h, factor = 2.25, min-samples = 5 }
          }
          w {
            cron = "0 0 8 * * ? UTC", job = J
            retry { span = 24h }
            catch-up { mode = all, horizon = 366d, span = 24h }
          }
        }
        """));
    assertEquals("reports.daily", specs.get(0).id());
    assertEquals(RetryPolicy.exponential(Duration.ofMinutes(5), 2.0, Duration.ofHours(1), 0.1).withMaxRetries(2),
        specs.get(0).retry());
    assertEquals(new io.almanac.LeasePolicy(Duration.ofSeconds(30), Duration.ofHours(6), 2.25, 5), specs.get(0).lease());
    assertEquals(RetryPolicy.immediate().withinSpan(Duration.ofHours(24)), specs.get(1).retry());
    assertEquals(CatchUpPolicy.all().withHorizon(Duration.ofDays(366)).withinSpan(Duration.ofHours(24)), specs.get(1).catchUp());
  }
}

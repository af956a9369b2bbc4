package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.DstPolicy;
import io.almanac.EventTrigger;
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

  /** A task without cron or at. */
  private static final String E = "t { job = J, ";

  /** Every key ConfigTasks reads, each way it can be wrong: {config inside almanac.tasks, full key, value}. */
  static Stream<Arguments> everyKey() {
    return Stream.of(
        row("t { job = J }", "almanac.tasks.t.cron", null),
        row("t { cron = [1], job = J }", "almanac.tasks.t.cron", "[1]"),
        row("t { cron = \"0 0 25 * * ? UTC\", job = J }", "almanac.tasks.t.cron", "0 0 25 * * ? UTC"),
        row("t { cron = \"0 0 8 * * ?\", job = J }", "almanac.tasks.t.cron", "0 0 8 * * ?"),
        row("t { cron = \"0 0 8 * * ? Mars/Olympus\", job = J }", "almanac.tasks.t.cron", "0 0 8 * * ? Mars/Olympus"),
        row("t { cron = \"0 0 8 * * ? UTC\" }", "almanac.tasks.t.job", null),
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
        row(T + "retry { backoff = delays } }", "almanac.tasks.t.retry.delays", null),
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
            "almanac.tasks.t.retry.initial-delay", null),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = abc, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "abc"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 0.5, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "0.5"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 1e300, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", "1.0E300"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, max-delay = 1h } }",
            "almanac.tasks.t.retry.multiplier", null),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 1m } }",
            "almanac.tasks.t.retry.max-delay", "1m"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = 400d } }",
            "almanac.tasks.t.retry.max-delay", "400d"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2, max-delay = [1h] } }",
            "almanac.tasks.t.retry.max-delay", "[1h]"),
        row(T + "retry { backoff = exponential, initial-delay = 5m, multiplier = 2 } }",
            "almanac.tasks.t.retry.max-delay", null),
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
        row("t { at = \"2026-12-01T08:00:00Z\" }", "almanac.tasks.t.job", null),
        row("t = 5", "almanac.tasks.t", "5"),
        row("\"a\\\"b\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"a\\\"b\"", "a\"b"),
        row("\"a b\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"a b\"", "a b"),
        row("\"\" { cron = \"0 0 8 * * ? UTC\", job = J }", "almanac.tasks.\"\"", ""),
        row("\"a.b\" { cron = \"0 0 8 * * ? UTC\" }", "almanac.tasks.\"a.b\".job", null),
        // event, dependency and condition triggers
        row(E + "}", "almanac.tasks.t.cron", null),
        row(E + "event = order.paid }", "almanac.tasks.t.event", "order.paid"),
        row(E + "event {} }", "almanac.tasks.t.event.type", null),
        row(E + "event { type = \"order paid\" } }", "almanac.tasks.t.event.type", "order paid"),
        row(E + "event { type = [a] } }", "almanac.tasks.t.event.type", "[a]"),
        row(E + "event { type = order.paid, map-by = wall-clock } }", "almanac.tasks.t.event.map-by", "wall-clock"),
        row(E + "event { type = order.paid, colour = red } }", "almanac.tasks.t.event.colour", "red"),
        row(E + "event { type = order.paid }, zone = Mars/Olympus }", "almanac.tasks.t.zone", "Mars/Olympus"),
        row(E + "event { type = order.paid }, zone = [UTC] }", "almanac.tasks.t.zone", "[UTC]"),
        row(T + "zone = Asia/Shanghai }", "almanac.tasks.t.zone", "Asia/Shanghai"),
        row(T + "depends-on = up }", "almanac.tasks.t.depends-on", "up"),
        row(T + "depends-on {} }", "almanac.tasks.t.depends-on.upstream", null),
        row(T + "depends-on { upstream = up } }", "almanac.tasks.t.depends-on.upstream", "up"),
        row(T + "depends-on { upstream = [] } }", "almanac.tasks.t.depends-on.upstream", "[]"),
        row(T + "depends-on { upstream = [t] } }", "almanac.tasks.t.depends-on.upstream", "[t]"),
        row(T + "depends-on { upstream = [up, up] } }", "almanac.tasks.t.depends-on.upstream", "[up, up]"),
        row(T + "depends-on { upstream = [\"a b\"] } }", "almanac.tasks.t.depends-on.upstream", "[a b]"),
        row(T + "depends-on { upstream = [{ a = 1 }] } }", "almanac.tasks.t.depends-on.upstream", "[{a=1}]"),
        row(T + "depends-on { upstream = [up], require = most } }", "almanac.tasks.t.depends-on.require", "most"),
        row(T + "depends-on { upstream = [up], mapping = nearest } }", "almanac.tasks.t.depends-on.mapping", "nearest"),
        row(T + "depends-on { upstream = [up], wait-at-most = 0s } }", "almanac.tasks.t.depends-on.wait-at-most", "0s"),
        row(T + "depends-on { upstream = [up], wait-at-most = 32d } }", "almanac.tasks.t.depends-on.wait-at-most", "32d"),
        row(T + "depends-on { upstream = [up], wait-at-most = soon } }", "almanac.tasks.t.depends-on.wait-at-most",
            "soon"),
        row(T + "depends-on { upstream = [up], missing-upstream = ignore } }",
            "almanac.tasks.t.depends-on.missing-upstream", "ignore"),
        row(T + "depends-on { upstream = [up], on-upstream-rerun = always } }",
            "almanac.tasks.t.depends-on.on-upstream-rerun", "always"),
        row(T + "depends-on { upstream = [up], colour = red } }", "almanac.tasks.t.depends-on.colour", "red"),
        row(T + "condition = ready }", "almanac.tasks.t.condition", "ready"),
        row(T + "condition {} }", "almanac.tasks.t.condition.name", null),
        row(T + "condition { name = \"file arrived\" } }", "almanac.tasks.t.condition.name", "file arrived"),
        row(T + "condition { name = ready, every = 500ms } }", "almanac.tasks.t.condition.every", "500ms"),
        row(T + "condition { name = ready, every = 2d } }", "almanac.tasks.t.condition.every", "2d"),
        row(T + "condition { name = ready, every = often } }", "almanac.tasks.t.condition.every", "often"),
        row(T + "condition { name = ready, every = 10s, timeout = 20s } }", "almanac.tasks.t.condition.timeout", "20s"),
        row(T + "condition { name = ready, timeout = 0s } }", "almanac.tasks.t.condition.timeout", "0s"),
        row(T + "condition { name = ready, debounce = 0 } }", "almanac.tasks.t.condition.debounce", "0"),
        row(T + "condition { name = ready, debounce = 1001 } }", "almanac.tasks.t.condition.debounce", "1001"),
        row(T + "condition { name = ready, debounce = 1.5 } }", "almanac.tasks.t.condition.debounce", "1.5"),
        row(T + "condition { name = ready, hold-for = -1s } }", "almanac.tasks.t.condition.hold-for", "-1s"),
        row(T + "condition { name = ready, hold-for = 32d } }", "almanac.tasks.t.condition.hold-for", "32d"),
        row(T + "condition { name = ready, wait-at-most = 0s } }", "almanac.tasks.t.condition.wait-at-most", "0s"),
        row(T + "condition { name = ready, wait-at-most = 32d } }", "almanac.tasks.t.condition.wait-at-most", "32d"),
        row(T + "condition { name = ready, colour = red } }", "almanac.tasks.t.condition.colour", "red"),
        // deadlines and pause on failure (docs/deadlines.md)
        row(T + "deadline = 0s }", "almanac.tasks.t.deadline", "0s"),
        row(T + "deadline = -5m }", "almanac.tasks.t.deadline", "-5m"),
        row(T + "deadline = soon }", "almanac.tasks.t.deadline", "soon"),
        row(T + "pause-after-failures = 0 }", "almanac.tasks.t.pause-after-failures", "0"),
        row(T + "pause-after-failures = -2 }", "almanac.tasks.t.pause-after-failures", "-2"),
        row(T + "pause-after-failures = many }", "almanac.tasks.t.pause-after-failures", "many"),
        row(T + "pause-after-failures = 2.5 }", "almanac.tasks.t.pause-after-failures", "2.5"));
  }

  @org.junit.jupiter.api.Test
  @DisplayName("deadline and pause-after-failures read into the builder's deadline and pauseAfterFailures; unset, none")
  void readsDeadlineAndPauseAfterFailures() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { " + T
        + "deadline = 1h, pause-after-failures = 3 }, u { cron = \"0 0 8 * * ? UTC\", job = J } }"));
    assertEquals(TaskSpec.builder("t").cron("0 0 8 * * ? UTC").job("J").deadline(Duration.ofHours(1)).pauseAfterFailures(3)
        .build(), specs.get(0));
    assertEquals(Duration.ofHours(1), specs.get(0).deadline());
    assertEquals(3, specs.get(0).pauseAfterFailures());
    assertEquals(null, specs.get(1).deadline());
    assertEquals(null, specs.get(1).pauseAfterFailures());
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
    if (value == null) { // not given: said to be missing, never shown as 'null'
      assertTrue(e.getMessage().startsWith(key + " is missing"), e.getMessage());
      assertEquals(null, e.value(), e.getMessage());
      return;
    }
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
    assertEquals(io.almanac.LeasePolicy.builder().floor(Duration.ofSeconds(30)).ceiling(Duration.ofHours(6)).factor(2.25)
        .minSamples(5).build(), specs.get(0).lease());
    assertEquals(RetryPolicy.immediate().withinSpan(Duration.ofHours(24)), specs.get(1).retry());
    assertEquals(CatchUpPolicy.all().withHorizon(Duration.ofDays(366)).withinSpan(Duration.ofHours(24)), specs.get(1).catchUp());
  }

  @Test
  @DisplayName("R9/R34: event, depends-on and condition blocks become the same triggers as the Java builder's")
  void parsesTriggerBlocks() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          daily-report {
            cron = "0 30 0 * * ? Asia/Shanghai", job = J
            depends-on { upstream = [order-export], require = all, mapping = same-window, wait-at-most = 6h,
                         missing-upstream = reject, on-upstream-rerun = keep }
            condition { name = settlement-file, every = 1m, timeout = 10s, debounce = 3, hold-for = 0s, wait-at-most = 2h }
          }
          order-export { cron = "0 30 0 * * ? Asia/Shanghai", job = J }
          order-sync {
            event { type = order.paid, map-by = event-time }
            zone = "Asia/Shanghai", window = hourly, job = J
          }
          arrivals { event { type = order.paid, map-by = arrival-time }, job = J }
          rollup {
            event { type = day.closed }, job = J
            depends-on { upstream = [order-sync, arrivals], require = any, mapping = all-within,
                         missing-upstream = wait, on-upstream-rerun = run-again }
          }
          latest { cron = "0 0 1 * * ? UTC", job = J, depends-on { upstream = [order-sync], mapping = latest-within } }
          polled { cron = "0 0 8 * * ? UTC", job = J, condition { name = ready } }
          quick { cron = "0 0 8 * * ? UTC", job = J, condition { name = ready, every = 1s, hold-for = 30s } }
        }
        """));
    java.util.Map<String, TaskSpec> byId = new java.util.HashMap<>();
    specs.forEach(s -> byId.put(s.id(), s));
    assertEquals(TaskSpec.builder("daily-report").cron("0 30 0 * * ? Asia/Shanghai").job("J")
        .dependsOn(DependencyTrigger.on("order-export").all().mapping(DependencyTrigger.Mapping.SAME_WINDOW)
            .waitAtMost(Duration.ofHours(6)).missingUpstream(DependencyTrigger.MissingUpstream.REJECT)
            .onUpstreamRerun(DependencyTrigger.Rerun.KEEP))
        .when(ConditionTrigger.named("settlement-file").every(Duration.ofMinutes(1)).timeout(Duration.ofSeconds(10))
            .debounce(3).holdFor(Duration.ZERO).waitAtMost(Duration.ofHours(2)))
        .build(), byId.get("daily-report"));
    assertEquals(TaskSpec.builder("order-sync").onEvent(EventTrigger.of("order.paid")).zone("Asia/Shanghai")
        .window("hourly").job("J").build(), byId.get("order-sync"));
    TaskSpec arrivals = byId.get("arrivals");
    assertEquals(TaskSpec.builder("arrivals").onEvent(EventTrigger.of("order.paid").byArrivalTime()).job("J").build(),
        arrivals);
    assertEquals(null, arrivals.cron(), "an event task needs no cron");
    assertEquals("UTC", arrivals.zone(), "an event task without zone maps in UTC");
    assertEquals(TaskSpec.builder("rollup").onEvent(EventTrigger.of("day.closed")).job("J")
        .dependsOn(DependencyTrigger.on("order-sync", "arrivals").any().mapping(DependencyTrigger.Mapping.ALL_WITHIN)
            .missingUpstream(DependencyTrigger.MissingUpstream.WAIT).onUpstreamRerun(DependencyTrigger.Rerun.RUN_AGAIN))
        .build(), byId.get("rollup"));
    assertEquals(DependencyTrigger.on("order-sync").mapping(DependencyTrigger.Mapping.LATEST_WITHIN),
        byId.get("latest").dependency());
    assertEquals(ConditionTrigger.named("ready"), byId.get("polled").condition(), "the Java API's defaults");
    assertEquals(Duration.ofMinutes(1), byId.get("polled").condition().every());
    assertEquals(Duration.ofSeconds(10), byId.get("polled").condition().timeout());
    assertEquals(1, byId.get("polled").condition().debounce());
    assertEquals(null, byId.get("polled").condition().waitAtMost(), "until the window's end");
    assertEquals(ConditionTrigger.named("ready").every(Duration.ofSeconds(1)).holdFor(Duration.ofSeconds(30)),
        byId.get("quick").condition());
    assertEquals(Duration.ofSeconds(1), byId.get("quick").condition().timeout(), "the timeout is at most the interval");
    assertEquals(null, byId.get("order-export").dependency());
    assertEquals(null, byId.get("order-export").condition());
    assertEquals(null, byId.get("order-export").event());
  }

  @Test
  @DisplayName("R9/R33: an event task with a cron too keeps the cron; a one-shot task may carry an event and a zone")
  void eventWithTimeTriggers() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          both { cron = "0 0 8 * * ? Asia/Shanghai", event { type = order.paid }, job = J }
          once { at = "2026-12-01T08:00:00Z", zone = Asia/Shanghai, job = J }
        }
        """));
    assertEquals(TaskSpec.builder("both").cron("0 0 8 * * ? Asia/Shanghai").onEvent(EventTrigger.of("order.paid")).job("J")
        .build(), specs.get(0));
    assertEquals("Asia/Shanghai", specs.get(1).zone());
    assertTrue(specs.get(1).oneShot());
  }

  @Test
  @DisplayName("R33: a refusal inside a trigger block says why, with the known keys or values")
  void triggerRefusalsSayWhy() {
    InvalidSpecException unknown = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks { t { cron = \"0 0 8 * * ? UTC\", job = J, depends-on { upstream = [u], wait-for = 1h } } }")));
    assertTrue(unknown.getMessage().contains("unknown key") && unknown.getMessage().contains("wait-at-most"),
        unknown.getMessage());
    InvalidSpecException mapping = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks { t { cron = \"0 0 8 * * ? UTC\", job = J, depends-on { upstream = [u], mapping = same } } }")));
    assertTrue(mapping.getMessage().contains("[same-window, all-within, latest-within]"), mapping.getMessage());
    InvalidSpecException every = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks { t { cron = \"0 0 8 * * ? UTC\", job = J, condition { name = c, every = 200ms } } }")));
    assertTrue(every.getMessage().contains("floor"), every.getMessage());
    InvalidSpecException self = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(ConfigFactory.parseString(
        "almanac.tasks { t { cron = \"0 0 8 * * ? UTC\", job = J, depends-on { upstream = [t] } } }")));
    assertTrue(self.getMessage().contains("t -> t"), self.getMessage());
    InvalidSpecException noTrigger = assertThrows(InvalidSpecException.class, () -> ConfigTasks.parse(
        ConfigFactory.parseString("almanac.tasks { t { job = J, zone = UTC } }")));
    assertEquals("almanac.tasks.t.cron", noTrigger.field(), noTrigger.getMessage());
    assertTrue(noTrigger.getMessage().contains("event"), noTrigger.getMessage());
  }
}

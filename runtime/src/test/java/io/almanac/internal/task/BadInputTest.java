package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.InvalidSpecException;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * R33: bad input is refused at the edge with a message naming the field and the value, and nothing
 * already stored changes.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder()
      .withCustomConfig(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()))
      .build();

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of("malformed cron", "cron", "not a cron",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("not a cron", "UTC").build()),
        Arguments.of("hour 25", "cron", "0 0 25 * * ?",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 25 * * ? UTC").build()),
        Arguments.of("5-field cron", "cron", "0 8 * * *",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 8 * * *", "UTC").build()),
        Arguments.of("unknown zone", "zone", "America/New_Yrok",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 8 * * ? America/New_Yrok").build()),
        Arguments.of("negative retries", "retry.maxRetries", "-1",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").maxRetries(-1).build()),
        Arguments.of("back-off not increasing", "retry.delays", "[PT15M, PT5M]",
            (Supplier<Object>) () -> RetryPolicy.delayed(Duration.ofMinutes(15), Duration.ofMinutes(5))),
        Arguments.of("catch-up span on mode NONE", "catchUp.span", "PT24H",
            (Supplier<Object>) () -> CatchUpPolicy.none().withinSpan(Duration.ofHours(24))),
        Arguments.of("lease floor above ceiling", "lease.floor", "PT3H",
            (Supplier<Object>) () -> LeasePolicy.builder().floor(Duration.ofHours(3)).ceiling(Duration.ofHours(2)).factor(1.5).minSamples(20).build()),
        Arguments.of("empty task id", "id", "",
            (Supplier<Object>) () -> TaskSpec.builder("").cron("0 0 8 * * ? UTC").build()),
        Arguments.of("cron whose firings throw (31W)", "cron", "0 0 12 31W * ?",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 12 31W * ? UTC").build()),
        Arguments.of("cron that never fires (6th Tuesday)", "cron", "0 0 12 ? * 3#6",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 12 ? * 3#6", "UTC").build()),
        Arguments.of("Arabic-Indic digit in the cron", "cron", "0 0 \u0661\u0662 * * ?",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 \u0661\u0662 * * ?", "UTC").build()),
        Arguments.of("unknown window spec", "window", "fortnightly",
            (Supplier<Object>) () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").window("fortnightly").build()));
  }

  @ParameterizedTest(name = "R33 {0}: refused naming {1} and ''{2}''")
  @MethodSource("refusals")
  void refusedNamingFieldAndValue(String what, String field, String value, Supplier<Object> attempt) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, attempt::get);
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(field), e.getMessage());
    assertTrue(e.getMessage().contains("'" + value), e.getMessage());
  }

  @Test
  @DisplayName("R33: hour 25 names the hour and its range")
  void hour25SaysWhy() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("t").cron("0 0 25 * * ? UTC"));
    assertTrue(e.getMessage().startsWith("task 't': cron '0 0 25 * * ?' is invalid"), e.getMessage());
    assertTrue(e.getMessage().contains("25"), e.getMessage());
  }

  static Stream<Arguments> invalidDefinitions() {
    TaskSpec good = TaskSpec.builder("stored").cron("0 0 8 * * ? Asia/Shanghai").build();
    return Stream.of(
        Arguments.of("malformed cron", TaskSpec.builder("stored").cron("not a cron", "UTC").buildUnvalidated(), "cron"),
        Arguments.of("hour 25", TaskSpec.builder("stored").cron("0 0 25 * * ?", "UTC").buildUnvalidated(), "cron"),
        Arguments.of("cron whose firings throw (31W)", TaskSpec.builder("stored").cron("0 0 12 31W * ?", "UTC").buildUnvalidated(), "cron"),
        Arguments.of("cron with a fullwidth digit", TaskSpec.builder("stored").cron("0 0 \uFF18 * * ?", "UTC").buildUnvalidated(), "cron"),
        Arguments.of("unknown zone", TaskSpec.builder("stored").cron(good.cron(), "America/New_Yrok").buildUnvalidated(), "zone"),
        Arguments.of("unknown window", TaskSpec.builder("stored").cron(good.cron(), good.zone()).window("fortnightly").buildUnvalidated(), "window"),
        Arguments.of("another task's id", TaskSpec.builder("other").cron(good.cron(), good.zone()).buildUnvalidated(), "id"));
  }

  @ParameterizedTest(name = "R33 {0}: an update with it is refused and the stored task is unchanged")
  @MethodSource("invalidDefinitions")
  void invalidUpdateLeavesStoredTaskUnchanged(String what, TaskSpec bad, String field) {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create("stored", clock, TaskSettings.from(testKit.system().settings().config())));
    kit.clear();
    TaskSpec good = TaskSpec.builder("stored").cron("0 0 8 * * ? Asia/Shanghai").build();
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(good), ref));
    State before = kit.getState();
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(bad), ref));
    assertTrue(r.reply().isError());
    assertTrue(r.reply().getError().getMessage().contains(field + " '"), r.reply().getError().getMessage());
    assertTrue(r.hasNoEvents(), "nothing persisted");
    assertEquals(before, kit.getState());
  }

  @Test
  @DisplayName("R33: an oversized summary is refused naming the field; the window stays RUNNING")
  void oversizedSummary() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:00:00Z"));
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create("summary", clock, TaskSettings.from(testKit.system().settings().config())));
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(TaskSpec.builder("summary").cron("0 0 8 * * ? Asia/Shanghai").build()), ref));
    Instant start = Instant.parse("2026-11-28T16:00:00Z");
    kit.<StatusReply<TaskProtocol.FireOutcome>>runCommand(ref -> new TaskProtocol.Fire(WindowKey.of("2026-11-29"), start, start.plus(Duration.ofDays(1)),
        Instant.parse("2026-11-29T00:00:00Z"), TaskProtocol.FireKind.ON_TIME, ref));
    kit.<ExecutorProtocol.AdmissionAnswer>runCommand(ref -> new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), null, ref));
    State before = kit.getState();
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-29"), 1,
        JobResult.success("s".repeat(10_000)), Duration.ofSeconds(1), ref));
    assertTrue(r.reply().getError().getMessage().startsWith("summary 'ssss"), r.reply().getError().getMessage());
    assertTrue(r.reply().getError().getMessage().contains("10000 characters"));
    assertTrue(r.hasNoEvents());
    assertEquals(before, kit.getState());
  }

  @Test
  @DisplayName("R33/R34: a wrong config value is refused naming the key and the value")
  void wrongConfigValue() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> TaskSettings.from(
        ConfigFactory.parseString("almanac.task.hot-windows = 3").withFallback(ConfigFactory.load())));
    assertEquals("almanac.task.hot-windows '3' is invalid: must be >= 10", e.getMessage());
    InvalidSpecException t = assertThrows(InvalidSpecException.class, () -> TaskSettings.from(
        ConfigFactory.parseString("almanac.task.max-summary-length = lots").withFallback(ConfigFactory.load())));
    assertEquals("almanac.task.max-summary-length 'lots' is invalid: must be an integer", t.getMessage());
  }
}

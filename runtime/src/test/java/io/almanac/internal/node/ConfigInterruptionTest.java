package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InvalidSpecException;
import io.almanac.OnInterruption;
import io.almanac.TaskSpec;
import io.almanac.internal.executor.ExecutorSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A task's {@code on-interruption} in {@code almanac.tasks}, and the drain's settings ({@code
 * almanac.executor.shutdown-grace} against the coordinated-shutdown phase that holds it).
 */
class ConfigInterruptionTest {

  private static List<TaskSpec> parse(String task) {
    return ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { t { cron = \"0 0 8 * * ? Europe/Berlin\", job = J, "
        + task + " } }"));
  }

  private static Config config(String lines) {
    return ConfigFactory.parseString(lines).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  @DisplayName("on-interruption = fail is the builder's onInterruption(FAIL); resume and no key read as RESUME")
  void readsOnInterruption() {
    TaskSpec java = TaskSpec.builder("t").cron("0 0 8 * * ? Europe/Berlin").job("J").onInterruption(OnInterruption.FAIL)
        .build();
    assertEquals(java, parse("on-interruption = fail").get(0));
    assertEquals(OnInterruption.RESUME, parse("on-interruption = resume").get(0).onInterruption());
    assertEquals(OnInterruption.RESUME, parse("description = x").get(0).onInterruption());
    assertEquals(parse("description = x").get(0), parse("description = x, on-interruption = resume").get(0),
        "RESUME is the default: the same spec");
  }

  @Test
  @DisplayName("on-interruption = retry is refused naming the key, the value and the choices")
  void badOnInterruptionRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> parse("on-interruption = retry"));
    assertEquals("almanac.tasks.t.on-interruption", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("[resume, fail]"), e.getMessage());
  }

  @Test
  @DisplayName("shutdown-grace defaults to 25s, and the drain's phase timeout in reference.conf holds it")
  void shutdownGraceDefault() {
    Config c = ConfigFactory.defaultReference();
    ExecutorSettings s = ExecutorSettings.from(c);
    assertEquals(Duration.ofSeconds(25), s.shutdownGrace());
    s.checkShutdownPhase(c);
  }

  @Test
  @DisplayName("a shutdown-grace the drain's coordinated-shutdown phase cannot hold is a start error naming both keys")
  void graceLongerThanThePhaseRefused() {
    Config c = config("almanac.executor.shutdown-grace = 60s");
    ExecutorSettings s = ExecutorSettings.from(c);
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> s.checkShutdownPhase(c));
    assertEquals("almanac.executor.shutdown-grace", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(ExecutorSettings.DRAIN_PHASE_TIMEOUT), e.getMessage());
    Config raised = config("almanac.executor.shutdown-grace = 60s\n" + ExecutorSettings.DRAIN_PHASE_TIMEOUT + " = 65s");
    ExecutorSettings.from(raised).checkShutdownPhase(raised);
  }

  @Test
  @DisplayName("the replaced key drain-timeout is refused, naming shutdown-grace")
  void drainTimeoutRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ExecutorSettings.from(config("almanac.executor.drain-timeout = 4s")));
    assertEquals("almanac.executor.drain-timeout", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("almanac.executor.shutdown-grace"), e.getMessage());
  }
}

package io.almanac.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.InvalidSpecException;
import io.almanac.JobResult;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

/** The starter's start: a refused property is said with its Spring property and value; jobs by bean name or @AlmanacJob. */
class AlmanacAutoConfigurationTest {

  /** Without Actuator on the class path (the starter's optional dependency), so that its absence is tried too. */
  @Test
  void aBadValueIsRefusedNamingTheSpringPropertyAndTheValue(@TempDir Path dir) {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AlmanacAutoConfiguration.class))
        .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
            org.springframework.boot.actuate.health.HealthIndicator.class))
        .withPropertyValues("almanac.executor.max-concurrent=lots", "almanac.persistence.h2.path=" + dir.resolve("db"),
            "almanac.spring.http.enabled=false")
        .run(context -> {
          Throwable failure = context.getStartupFailure();
          assertNotNull(failure, "the context did not start");
          AlmanacPropertyException e = find(failure);
          assertEquals("almanac.executor.max-concurrent", e.key());
          assertTrue(e.getMessage().startsWith("Spring property 'almanac.executor.max-concurrent'"), e.getMessage());
          assertTrue(e.getMessage().contains("'lots'"), e.getMessage());
          assertTrue(e.getMessage().contains("must be an integer"), e.getMessage());
          assertInstanceOf(InvalidSpecException.class, e.getCause());
          // as Spring Boot prints it at start
          org.springframework.boot.diagnostics.FailureAnalysis said = new AlmanacFailureAnalyzer().analyze(failure);
          assertNotNull(said, "the failure analyzer takes it");
          assertTrue(said.getDescription().contains("almanac.executor.max-concurrent 'lots'"), said.getDescription());
          assertTrue(said.getAction().startsWith("Correct almanac.executor.max-concurrent where it is set"), said.getAction());
        });
  }

  @Test
  void offWithAlmanacSpringEnabledFalse() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AlmanacAutoConfiguration.class))
        .withPropertyValues("almanac.spring.enabled=false")
        .run(context -> {
          assertNull(context.getStartupFailure());
          assertEquals(0, context.getBeanNamesForType(AlmanacNode.class).length, "no node");
          assertEquals(0, context.getBeanNamesForType(io.almanac.Almanac.class).length, "no Almanac");
        });
  }

  private static AlmanacPropertyException find(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof AlmanacPropertyException e) {
        return e;
      }
    }
    throw new AssertionError("no AlmanacPropertyException in", failure);
  }

  @Configuration(proxyBeanMethods = false)
  static class Jobs {
    @Bean
    AgentJob digest() {
      return ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    }

    @Bean
    @AlmanacJob("research")
    AgentJob researchAgent() {
      return ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoNamedAlike {
    @Bean
    @AlmanacJob("digest")
    AgentJob other() {
      return ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    }
  }

  @Test
  void aJobBeanIsRegisteredUnderItsBeanNameOrItsAlmanacJobName() {
    try (GenericApplicationContext context = new GenericApplicationContext()) {
      context.registerBean(Jobs.class);
      org.springframework.context.annotation.AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
      context.refresh();
      assertEquals(java.util.Set.of("digest", "research"), AlmanacNode.jobs(context.getBeanFactory()).keySet());
    }
  }

  @Test
  void twoJobsOfOneNameAreRefusedNamingBoth() {
    try (GenericApplicationContext context = new GenericApplicationContext()) {
      context.registerBean(Jobs.class);
      context.registerBean(TwoNamedAlike.class);
      org.springframework.context.annotation.AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
      context.refresh();
      InvalidSpecException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
          () -> AlmanacNode.jobs(context.getBeanFactory()));
      assertTrue(e.getMessage().contains("'digest'") && e.getMessage().contains("other"), e.getMessage());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Traced {
    static final io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter SPANS =
        io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create();

    @Bean
    io.opentelemetry.api.OpenTelemetry openTelemetry() {
      return io.opentelemetry.sdk.OpenTelemetrySdk.builder()
          .setTracerProvider(io.opentelemetry.sdk.trace.SdkTracerProvider.builder()
              .addSpanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(SPANS)).build())
          .build();
    }

    @Bean
    AgentJob traced() {
      return ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    }

    @Bean
    io.almanac.TaskSpec tracedTask() {
      return io.almanac.TaskSpec.builder("traced").cron("* * * * * ? UTC").window(io.almanac.WindowSpec.PER_FIRING)
          .job("traced").build();
    }
  }

  /** The application's OpenTelemetry bean is the node's: an attempt's span is exported through it (not the global). */
  @Test
  void theApplicationsOpenTelemetryBeanTracesTheAttempts(@TempDir Path dir) {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AlmanacAutoConfiguration.class))
        .withUserConfiguration(Traced.class)
        .withPropertyValues("almanac.persistence.h2.path=" + dir.resolve("db"), "almanac.spring.http.enabled=false")
        .run(context -> {
          assertNull(context.getStartupFailure());
          assertTrue(!io.opentelemetry.api.GlobalOpenTelemetry.isSet(), "the node did not make a global of its own");
          long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
          java.util.List<io.opentelemetry.sdk.trace.data.SpanData> attempts = java.util.List.of();
          while (attempts.isEmpty() && System.nanoTime() < deadline) {
            attempts = Traced.SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("almanac.attempt traced")).toList();
            if (attempts.isEmpty()) {
              Thread.onSpinWait();
              java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L); // polls the exporter, with a deadline
            }
          }
          assertTrue(!attempts.isEmpty(), "an attempt of 'traced' was exported through the application's bean: "
              + Traced.SPANS.getFinishedSpanItems());
          assertEquals("traced", attempts.get(0).getAttributes().get(
              io.opentelemetry.api.common.AttributeKey.stringKey("almanac.task")));
        });
  }
}

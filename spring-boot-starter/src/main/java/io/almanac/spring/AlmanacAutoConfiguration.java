package io.almanac.spring;

import io.almanac.AlertSink;
import io.almanac.Almanac;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Runs an Almanac node in a Spring Boot application (docs/spring-boot.md): the node's configuration
 * from the {@code almanac.*} and {@code pekko.*} properties ({@link SpringConfig}), an H2 file journal
 * by default and PostgreSQL from {@code spring.datasource.*} or {@code almanac.persistence.postgres.*};
 * every {@link io.almanac.AgentJob} bean a job (under its bean name or its {@link AlmanacJob} name),
 * every {@link io.almanac.TaskSpec} bean a task, {@link io.almanac.Condition}, {@link
 * io.almanac.PoolSpec} and {@link io.almanac.ExclusionCalendar} beans declared on the node; the
 * application's {@link MeterRegistry}, {@link Clock} and {@link AlertSink} (when it has one) used by
 * the node; health indicators for Actuator. Off with {@code almanac.spring.enabled=false}.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "almanac.spring", name = "enabled", matchIfMissing = true)
public class AlmanacAutoConfiguration {

  /**
   * The node, started.
   *
   * @param env the environment its configuration is mapped from
   * @param beans where its jobs, conditions, pools, calendars and tasks are found
   * @param meters the application's meter registry, if it has one
   * @param clock the application's clock, if it has one
   * @param alerts the application's alert sink, if it has one
   * @param openTelemetry the application's OpenTelemetry, if it has one (else the node's default:
   *     the global one when it is set, docs/tracing.md)
   * @return the node
   */
  @Bean
  @ConditionalOnMissingBean
  public AlmanacNode almanacNode(ConfigurableEnvironment env, ConfigurableListableBeanFactory beans,
      ObjectProvider<MeterRegistry> meters, ObjectProvider<Clock> clock, ObjectProvider<AlertSink> alerts,
      ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry) {
    SpringConfig.Mapped mapped = SpringConfig.from(env);
    AlmanacNode.Parts parts = new AlmanacNode.Parts(
        env.getProperty(SpringConfig.STARTER + ".system-name", "almanac"),
        env.getProperty(SpringConfig.STARTER + ".http.enabled", Boolean.class, true),
        Optional.ofNullable(clock.getIfUnique()), Optional.ofNullable(alerts.getIfUnique()),
        Optional.ofNullable(meters.getIfUnique()), Optional.ofNullable(openTelemetry.getIfUnique()));
    return AlmanacNode.start(mapped, beans, parts);
  }

  /**
   * @param node the node
   * @return its {@link Almanac}: register, publish, operate, read views
   */
  @Bean
  @ConditionalOnMissingBean
  public Almanac almanac(AlmanacNode node) {
    return node.almanac();
  }

  /**
   * @param node the node
   * @return its ActorSystem (stopped by the node, not by this bean's destruction)
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(name = "almanacActorSystem")
  public ActorSystem<Void> almanacActorSystem(AlmanacNode node) {
    return node.system();
  }

  /** Actuator's health indicators, when the application has Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {

    @Bean
    @ConditionalOnMissingBean(name = "almanacLivenessHealthIndicator")
    AlmanacHealthIndicator almanacLivenessHealthIndicator(Almanac almanac) {
      return new AlmanacHealthIndicator(almanac, AlmanacHealthIndicator.Probe.LIVENESS);
    }

    @Bean
    @ConditionalOnMissingBean(name = "almanacReadinessHealthIndicator")
    AlmanacHealthIndicator almanacReadinessHealthIndicator(Almanac almanac) {
      return new AlmanacHealthIndicator(almanac, AlmanacHealthIndicator.Probe.READINESS);
    }
  }
}

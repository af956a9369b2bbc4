package io.almanac.spring.sample;

import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application running Almanac through its starter (docs/spring-boot.md): two jobs as
 * beans ({@link HeartbeatJob} under its bean name, {@link ReportJob} under its {@code @AlmanacJob}
 * name), the task {@code heartbeat} (every second) declared in application.yml, the task {@code
 * report} (every 10 s) as a {@link TaskSpec} bean. The journal is an H2 file under {@code
 * ./data/spring-sample}; stopped and started again, it runs no window twice.
 *
 * <pre>
 * mvn -B -q -pl samples/spring-boot-sample -am package -DskipTests
 * java -jar samples/spring-boot-sample/target/almanac-spring-boot-sample.jar
 * </pre>
 *
 * Then: {@code curl localhost:8080/actuator/health/readiness}, {@code curl
 * localhost:8080/actuator/metrics/almanac.attempts.started}, the dashboard at {@code
 * http://127.0.0.1:8559/}; Ctrl-C stops the web server first, then drains the node.
 */
@SpringBootApplication
public class SampleApplication {

  /**
   * Starts the application.
   *
   * @param args Spring Boot's arguments ({@code --almanac.executor.max-concurrent=4}, ...)
   */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }

  /**
   * The task {@code report}: every 10 s, the job {@code report}; a window still running when the next
   * one is due makes it skip (overlap skip).
   *
   * @return the task
   */
  @Bean
  TaskSpec reportTask() {
    return TaskSpec.builder("report").cron("*/10 * * * * ? UTC").window(WindowSpec.PER_FIRING)
        .overlap(OverlapPolicy.SKIP).job(ReportJob.NAME)
        .description("every 10 s: a report of a few seconds, drained on shutdown").build();
  }
}

package io.almanac.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the job an {@link io.almanac.AgentJob} bean is registered under, in place of its bean name;
 * on the bean's class or on its {@code @Bean} method. Task specs refer to a job by this name ({@code
 * almanac.tasks.<id>.job}, {@link io.almanac.TaskSpec.Builder#job(String)}).
 *
 * <pre>{@code
 * @Component
 * @AlmanacJob("daily-digest")
 * class DigestJob implements AgentJob { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface AlmanacJob {

  /** @return the job's name: not blank, unique among the application's jobs */
  String value();
}

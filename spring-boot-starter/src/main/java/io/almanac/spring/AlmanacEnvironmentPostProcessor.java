package io.almanac.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Defaults of Spring properties that the starter's health indicators need, below every source of the
 * application (an application's own setting of these keys wins): Actuator's probes on, and the
 * node's indicators in its {@code liveness} and {@code readiness} groups ({@code
 * /actuator/health/liveness}, {@code /actuator/health/readiness}).
 */
public final class AlmanacEnvironmentPostProcessor implements EnvironmentPostProcessor {

  /** The name of the property source added. */
  public static final String SOURCE = "almanacDefaults";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
    if (!env.getProperty(SpringConfig.STARTER + ".enabled", Boolean.class, true)
        || !isPresent("org.springframework.boot.actuate.health.HealthIndicator")) {
      return;
    }
    Map<String, Object> defaults = new LinkedHashMap<>();
    defaults.put("management.endpoint.health.probes.enabled", "true");
    defaults.put("management.endpoint.health.group.liveness.include", "livenessState,almanacLiveness");
    defaults.put("management.endpoint.health.group.readiness.include", "readinessState,almanacReadiness");
    env.getPropertySources().addLast(new MapPropertySource(SOURCE, defaults));
  }

  private static boolean isPresent(String type) {
    try {
      Class.forName(type, false, AlmanacEnvironmentPostProcessor.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}

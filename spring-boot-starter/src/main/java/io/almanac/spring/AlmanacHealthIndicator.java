package io.almanac.spring;

import io.almanac.Almanac;
import io.almanac.NodeHealth;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The node's liveness or readiness ({@link Almanac#health()}) as an Actuator health indicator: UP
 * when the node is live (or ready), else DOWN, with every check of the node as a detail ({@code
 * name: {ok, detail}}), as {@code GET /health/live} and {@code /health/ready} of the node's own HTTP
 * endpoints answer. Registered as {@code almanacLiveness} and {@code almanacReadiness}, included in
 * Actuator's {@code liveness} and {@code readiness} groups.
 */
public final class AlmanacHealthIndicator implements HealthIndicator {

  /** Which of the node's answers this indicator reports. */
  public enum Probe {
    /** {@link NodeHealth#live()}: restart the application when it is DOWN. */
    LIVENESS,
    /** {@link NodeHealth#ready()}: route no work to the application while it is DOWN. */
    READINESS
  }

  /** How long an indicator waits for the node's checks (they complete within about the ask timeout). */
  static final long TIMEOUT_SECONDS = 15;

  private final Almanac almanac;
  private final Probe probe;

  /**
   * @param almanac the node
   * @param probe which answer to report
   */
  public AlmanacHealthIndicator(Almanac almanac, Probe probe) {
    this.almanac = almanac;
    this.probe = probe;
  }

  @Override
  public Health health() {
    NodeHealth h;
    try {
      h = almanac.health().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Health.down().withDetail("error", "interrupted").build();
    } catch (Exception e) {
      return Health.down().withDetail("error", "the node's health did not answer within " + TIMEOUT_SECONDS + " s: "
          + e).build();
    }
    boolean ok = probe == Probe.LIVENESS ? h.live() : h.ready();
    Health.Builder b = ok ? Health.up() : Health.down();
    for (NodeHealth.Check c : h.checks()) {
      Map<String, Object> check = new LinkedHashMap<>();
      check.put("ok", c.ok());
      check.put("detail", c.detail());
      b.withDetail(c.name(), check);
    }
    return b.build();
  }
}

package io.almanac.http;

import io.almanac.Almanac;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /metrics}: the node's meters ({@link Almanac#meterRegistry()}, every one named
 * {@code almanac.*}) in the Prometheus text format 0.0.4, as Prometheus scrapes them ({@code
 * almanac_attempts_total{outcome="failed"}}, {@code almanac_job_duration_seconds_bucket{task=..,le=..}}).
 * They come from a {@link PrometheusMeterRegistry} that is a member of the node's registry: the one
 * given to {@code Almanac.Builder.meterRegistry} when it is a Prometheus registry, else one added
 * here (once per node).
 */
final class MetricsRoutes extends AllDirectives {

  /** Prometheus's text format: {@code text/plain; version=0.0.4; charset=utf-8}. */
  static final ContentType.WithCharset PROMETHEUS_TEXT = MediaTypes
      .customWithOpenCharset("text", "plain", Map.of("version", "0.0.4"), false)
      .toContentType(HttpCharsets.custom("utf-8"));

  private final PrometheusMeterRegistry prometheus;

  MetricsRoutes(Almanac almanac) {
    this.prometheus = prometheusOf(almanac.meterRegistry());
  }

  /**
   * @param node the node's registry
   * @return its Prometheus member, added if it has none
   */
  static PrometheusMeterRegistry prometheusOf(CompositeMeterRegistry node) {
    synchronized (node) {
      for (MeterRegistry member : node.getRegistries()) {
        if (member instanceof PrometheusMeterRegistry p) {
          return p;
        }
      }
      PrometheusMeterRegistry p = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      node.add(p);
      return p;
    }
  }

  /** The route: {@code GET /metrics}. */
  Route route() {
    return path("metrics", () -> get(() -> complete(StatusCodes.OK,
        HttpEntities.create(PROMETHEUS_TEXT, prometheus.scrape()))));
  }
}

package io.almanac.internal.meter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Which series a node makes at zero before their first count (docs/metrics.md): the node's counters
 * at its start, a task's at its registration (once, within the task cap), the webhook's and the
 * pools' where configured; and the never-succeeded gauge of a task registered for the first time.
 */
class NodeMetersSeriesTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final NodeMeters meters = new NodeMeters(registry, 2);

  /** The meters with the tag (not the bucket gauges a SimpleMeterRegistry adds for a histogram's buckets). */
  private List<Meter> tagged(String key, String value) {
    return registry.getMeters().stream().filter(m -> value.equals(m.getId().getTag(key))
        && !m.getId().getName().endsWith(".histogram")).toList();
  }

  private long meterCount() {
    return registry.getMeters().stream().filter(m -> !m.getId().getName().endsWith(".histogram")).count();
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  @DisplayName("a node's own counters exist at 0 from its start, each with the closed set of its tag's values")
  void nodeCountersAtZeroFromTheStart() {
    assertEquals(0.0, count("almanac.retries.scheduled"));
    assertEquals(0.0, count("almanac.windows.final.failed"));
    assertEquals(0.0, count("almanac.budget.raises"));
    assertEquals(2, registry.get("almanac.lease.expiries").counters().size());
    assertEquals(4, registry.get("almanac.deadlines.missed").counters().size());
    assertEquals(5, registry.get("almanac.publishes").counters().size());
    assertEquals(0.0, count("almanac.usage.model.tokens", "model", "unknown", "direction", "in"));
    assertTrue(registry.find("almanac.alerts.webhook.sent").counters().isEmpty(), "no webhook configured");
    assertTrue(registry.find("almanac.pool.admissions").counters().isEmpty(), "no pool declared");
    for (Meter m : registry.getMeters()) {
      assertTrue(m.getId().getDescription() != null && !m.getId().getDescription().isBlank(),
          "a meter without a description has no # HELP line: " + m.getId());
    }
  }

  @Test
  @DisplayName("a registered task's series exist at 0, once, with the closed sets of their tags; tasks past the cap share "
      + "~other's; the first count goes into the series made at registration")
  void taskSeriesAtRegistration() {
    meters.tasksRegistered(List.of("digest"));
    List<Meter> digest = tagged("task", "digest");
    int counters = 3 + 1 + SkipReason.values().length + MissReason.values().length + RunKind.values().length
        + Counts.OUTCOMES.size() + 2 + 3;
    assertEquals(counters + 1 + 2, digest.size(), "counters, the job duration timer and two gauges: " + digest);
    for (Meter m : digest) {
      if (m instanceof Counter c) {
        assertEquals(0.0, c.count(), m.getId().toString());
      }
    }
    assertEquals(0.0, count("almanac.decisions", "task", "digest", "kind", "on_time", "decision", "skipped", "reason",
        "budget_exhausted"));
    assertEquals(0.0, count("almanac.attempts", "task", "digest", "outcome", "late_result"));
    assertTrue(Double.isNaN(registry.get("almanac.task.last.success.timestamp").tag("task", "digest").gauge().value()));
    assertTrue(Double.isNaN(registry.get("almanac.task.never.succeeded").tag("task", "digest").gauge().value()),
        "registered again (at a restart, say): whether it ever succeeded is not known here");

    long before = meterCount();
    meters.tasksRegistered(List.of("digest"));
    assertEquals(before, meterCount(), "made once per task");

    meters.tasksRegistered(List.of("second", "third", "fourth"));
    assertTrue(tagged("task", "third").isEmpty() && tagged("task", "fourth").isEmpty(), "past the cap of 2");
    assertEquals(counters + 1, tagged("task", TaskTags.OTHER).size(), "~other: its counters and timer, no gauges");

    meters.fired("digest", FireKind.ON_TIME, "acknowledged");
    assertEquals(1.0, count("almanac.fires", "task", "digest", "kind", "on_time", "result", "acknowledged"));
    assertEquals(before + (counters + 3) + (counters + 1), meterCount(), "second's, ~other's; none made by the fire");
  }

  @Test
  @DisplayName("a task new to the trigger has never succeeded: 1 until its first fire is answered (then its entity knows)")
  void firstRegistrationIsNeverSucceeded() {
    meters.tasksFirstRegistered(List.of("fresh"));
    assertEquals(1.0, registry.get("almanac.task.never.succeeded").tag("task", "fresh").gauge().value());
    meters.fired("fresh", FireKind.ON_TIME, "unanswered");
    assertTrue(Double.isNaN(registry.get("almanac.task.never.succeeded").tag("task", "fresh").gauge().value()),
        "this node hosts no entity of it: not known here");
  }

  @Test
  @DisplayName("a configured webhook's counters and a declared pool's meters exist at 0 with every cause, reason and outcome")
  void webhookAndPoolsAtZero() {
    meters.webhookConfigured();
    assertEquals(0.0, count("almanac.alerts.webhook.sent"));
    assertEquals(4, registry.get("almanac.alerts.webhook.failed.attempts").counters().size());
    assertEquals(4, registry.get("almanac.alerts.webhook.dropped").counters().size());
    meters.webhookSent();
    assertEquals(1.0, count("almanac.alerts.webhook.sent"), "the series made at zero is the one counted into");
    meters.poolsDeclared(List.of("llm"));
    assertEquals(6, registry.get("almanac.pool.admissions").tag("pool", "llm").counters().size());
    assertEquals(0.0, count("almanac.pool.cost", "pool", "llm"));
    assertEquals(0, registry.get("almanac.pool.admission.latency").tag("pool", "llm").timer().count());
    assertEquals(0.0, registry.get("almanac.pool.in-use").tag("pool", "llm").gauge().value());
    assertEquals(0.0, registry.get("almanac.pool.waiting").tag("pool", "llm").gauge().value());
    meters.poolAdmission(List.of("llm"), "full", 1_000);
    assertEquals(1.0, count("almanac.pool.admissions", "pool", "llm", "outcome", "full"));
  }
}

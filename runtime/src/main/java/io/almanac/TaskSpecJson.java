package io.almanac;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A {@link TaskSpec} as JSON holds it, inside a task's view ({@link TaskView#spec()}) that another
 * node sends ({@code TaskProtocol.TaskInfo}): its parts under the names and in the order it had as a
 * record. Read by {@code TaskSpec}'s delegating creator. Package-private: no part of the API.
 *
 * <p>INTERNAL API.
 */
record TaskSpecJson(
    String id,
    String cron,
    String zone,
    String window,
    DstPolicy dst,
    OverlapPolicy overlap,
    RetryPolicy retry,
    CatchUpPolicy catchUp,
    LeasePolicy lease,
    String job,
    String description,
    Instant once,
    EventTrigger event,
    DependencyTrigger dependency,
    ConditionTrigger condition,
    List<String> pools,
    Duration deadline,
    Integer pauseAfterFailures,
    BigDecimal budgetPerDay,
    List<String> alsoCrons,
    String from,
    String until,
    List<ExclusionCalendar> calendars,
    Duration jitter,
    OnInterruption onInterruption) {

  /** The spec: its parts as they were, defaults for those missing; not validated. */
  TaskSpec toSpec() {
    TaskSpec.Builder b = TaskSpec.builder(id).cron(cron, zone).window(window).dst(dst).overlap(overlap).retry(retry)
        .catchUp(catchUp).lease(lease).job(job).description(description).onEvent(event).dependsOn(dependency)
        .when(condition).from(from).until(until).jitter(jitter);
    if (alsoCrons != null) {
      alsoCrons.forEach(b::alsoCron);
    }
    if (calendars != null) {
      calendars.forEach(b::exclude);
    }
    TaskSpecDraft d = b.draft();
    d.once = once;
    d.pools = pools;
    d.deadline = deadline;
    d.pauseAfterFailures = pauseAfterFailures;
    d.budgetPerDay = budgetPerDay;
    d.onInterruption = onInterruption;
    return b.buildUnvalidated();
  }
}

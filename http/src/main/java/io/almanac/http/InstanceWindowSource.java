package io.almanac.http;

import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.persistence.instances.InstanceFilter;
import io.almanac.persistence.instances.InstanceQueries;
import io.almanac.persistence.instances.InstanceRow;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * {@code /api/windows} from the SQL instance table ({@code almanac_instance}, kept from the journal
 * by {@link io.almanac.persistence.instances.InstanceProjection}): every window of every task, also
 * those that left the tasks' hot state, filtered and paged by the database's indexes. The table
 * trails the journal by the projection's lag ({@code almanac_projection_lag_seconds}).
 */
public final class InstanceWindowSource implements WindowSource {

  private final InstanceQueries queries;

  /**
   * @param queries the instance table's queries ({@link InstanceQueries#create})
   */
  public InstanceWindowSource(InstanceQueries queries) {
    this.queries = Objects.requireNonNull(queries, "queries");
  }

  @Override
  public CompletionStage<WindowPage> find(WindowFilter filter) {
    return queries.findAsync(toInstanceFilter(filter)).thenApply(page -> {
      List<WindowView> views = page.rows().stream().map(InstanceWindowSource::view).toList();
      String next = page.next() == null || views.isEmpty() ? null
          : WindowFilter.Cursor.of(views.get(views.size() - 1), filter.byUpdated()).encode();
      return new WindowPage(views, next);
    });
  }

  /** The API's filter (already checked) as the table's: the same bounds, order (and direction) and page size. */
  static InstanceFilter toInstanceFilter(WindowFilter filter) {
    InstanceFilter.Builder b = InstanceFilter.builder().limit(filter.limit()).descending(filter.descending())
        .byUpdated(filter.byUpdated());
    if (filter.task() != null) {
      b.task(filter.task());
    }
    if (filter.statuses() != null && !filter.statuses().isEmpty()) {
      b.statuses(filter.statuses());
    }
    if (filter.from() != null) {
      b.from(filter.from());
    }
    if (filter.to() != null) {
      b.to(filter.to());
    }
    if (filter.after() != null) {
      b.after(filter.after().start(), filter.after().task(), filter.after().window());
    }
    return b.build();
  }

  /**
   * A row as the API's window (the table keeps no lease, retry time, artifact or effects, nor when a
   * pool wait was recorded: its {@code since} is null); its {@code reason_code} is the window's typed
   * skip or miss reason.
   */
  static WindowView view(InstanceRow r) {
    return WindowView.builder().taskId(r.taskId()).window(WindowKey.of(r.windowKey())).start(r.windowStart())
        .end(r.windowEnd()).dueAt(r.scheduledAt()).status(r.status()).runKind(r.runKind()).attempt(r.attempt())
        .retries(r.retryCount()).maxRetries(r.maxRetry()).summary(r.resultSummary()).reason(r.failReason())
        .effects(Map.of()).createdAt(r.createdAt()).updatedAt(r.updatedAt()).startedAt(r.startedAt())
        .waitUntil(r.waitUntil())
        .events(r.eventCount() == 0 && r.eventDuplicates() == 0 && r.firstEventId() == null ? null
            : new WindowView.Events(r.eventCount(), r.eventDuplicates(), r.firstEventId(), r.lastEventId()))
        .deadlineMissedAt(r.deadlineMissedAt())
        .poolWait(r.poolWaitPool() == null || r.status() != io.almanac.InstanceStatus.PENDING ? null
            : new WindowView.PoolWait(r.poolWaitPool(), r.poolWaitReason(), r.poolWaitUntil(), null))
        .usage(r.cost() == null && r.tokensIn() == 0 && r.tokensOut() == 0 && r.model() == null ? null
            : new WindowView.Usage(r.tokensIn(), r.tokensOut(), amount(r.cost()), r.model()))
        .skipReason(r.reasonCode() instanceof io.almanac.SkipReason s ? s : null)
        .missReason(r.reasonCode() instanceof io.almanac.MissReason m ? m : null)
        .endCause(r.reasonCode() instanceof io.almanac.EndCause c ? c : null)
        .build();
  }

  /** A summed cost as the runtime shows one: trailing zeros stripped to at least 2 decimals (0.00 for none). */
  static java.math.BigDecimal amount(java.math.BigDecimal cost) {
    java.math.BigDecimal d = cost == null ? java.math.BigDecimal.ZERO : cost.stripTrailingZeros();
    return d.scale() < 2 ? d.setScale(2) : d;
  }
}

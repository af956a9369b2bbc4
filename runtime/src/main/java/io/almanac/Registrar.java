package io.almanac;

import io.almanac.internal.executor.JobRegistry;
import io.almanac.internal.node.ConfigPools;
import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.journal.SpecRecord;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;

/**
 * The facade's registration of tasks ({@link Almanac#registerAll}): each spec checked on this node
 * (valid, its job, pools and condition known here), the dependencies checked by the trigger, then
 * the specs recorded by the trigger in batches (docs/registration.md). Package-private: no part of
 * the API.
 *
 * <p>INTERNAL API.
 */
final class Registrar {
  private final TaskAsks asks;
  private final Node node;
  private final JobRegistry jobs;
  private final Clock clock;

  Registrar(TaskAsks asks, Node node) {
    this.asks = asks;
    this.node = node;
    this.jobs = node.jobs();
    this.clock = node.clock();
  }

  /** See {@link Almanac#registerAll(Collection)}. */
  CompletionStage<Done> registerAll(Collection<TaskSpec> specs) {
    List<TaskSpec> valid = new ArrayList<>();
    for (TaskSpec spec : specs) {
      spec.validate();
      try {
        jobs.resolve(spec.job(), spec.id());
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(spec.id(), e);
      }
      ConfigPools.requireKnown(spec, jobs.pools(), "pools");
      if (spec.condition() != null && jobs.condition(spec.condition().name()) == null) {
        throw new InvalidSpecException(spec.id(), new InvalidSpecException("condition.name", spec.condition().name(),
            "no condition is registered under this name on this node: register it first"));
      }
      valid.add(spec);
    }
    // Windows due from the call on are the trigger's, even those due before it hears of the tasks: the
    // registration's own time (the dependency check, the definitions, retries while the trigger is away)
    // never drops a window due meanwhile.
    Instant since = clock.instant();
    // Cycles and missing upstream tasks are refused before anything is stored (R9, R33).
    List<SpecRecord> records = valid.stream().map(SpecRecord::of).toList();
    return node.retrying("the trigger's dependency check",
            () -> asks.<Done>trigger(r -> new TriggerProtocol.CheckDependencies(records, r)))
        .thenCompose(ok -> define(valid, since));
  }

  /**
   * The trigger records the specs, one journal write per batch of up to 1,000 (unchanged specs: none);
   * no task entity is written: each records its spec when it first has something to do, from the
   * message that brings it (a fire, a wake-up, an event, an operator's command: docs/registration.md).
   */
  private CompletionStage<Done> define(List<TaskSpec> valid, Instant since) {
    List<CompletableFuture<Done>> batches = new ArrayList<>();
    for (int i = 0; i < valid.size(); i += 1000) {
      List<SpecRecord> batch = valid.subList(i, Math.min(valid.size(), i + 1000)).stream().map(SpecRecord::of).toList();
      List<String> ids = batch.stream().map(SpecRecord::id).toList();
      batches.add(node.retrying("the trigger's registration of " + batch.size() + " tasks",
          () -> asks.<Done>trigger(r -> new TriggerProtocol.Register(batch, since, r), node.askTimeout().multipliedBy(3)))
          .thenApply(done -> {
            node.meters().tasksRegistered(ids); // their series at zero on this node too (docs/metrics.md)
            return done;
          })
          .toCompletableFuture());
    }
    return CompletableFuture.allOf(batches.toArray(new CompletableFuture[0])).thenApply(x -> Done.getInstance());
  }
}

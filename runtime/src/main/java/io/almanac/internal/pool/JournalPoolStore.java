package io.almanac.internal.pool;

import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool store of a node: each pool is a sharded {@link PoolEntity} with its own journal, so a
 * pool's limits hold across every node of the cluster, and its day (holds, starts, pauses, usage,
 * raises) is in the journal for the audit. An acquire of several pools asks them one after another
 * in name order and gives back what it took when one refuses (all or none). The acquires of one pool
 * that come while its previous batch is being written go together, in one write (group commit). This node's holds live
 * {@code hold-ttl} from their last renewal; the store renews them every {@code renew-interval}, one
 * command per pool where it holds something (nothing is written for a pool where it holds none): a
 * node killed with kill -9 stops renewing, and its holds stop counting {@code hold-ttl} later. Its
 * next life frees them when it declares its pools. Thread-safe. INTERNAL API.
 */
public final class JournalPoolStore implements PoolStore {

  private static final Logger log = LoggerFactory.getLogger(JournalPoolStore.class);

  private final ClusterSharding sharding;
  private final String node;
  private final String incarnation = UUID.randomUUID().toString();
  private final Duration holdTtl;
  private final Duration timeout;
  private final Set<String> declared = new CopyOnWriteArraySet<>();
  /** The pools of each hold this node took and did not give back, by task and window. */
  private final Map<String, List<String>> held = new ConcurrentHashMap<>();
  private final Cancellable renewal;

  /**
   * @param system the node's actor system (its scheduler runs the renewals)
   * @param sharding the cluster's sharding, where {@link PoolEntity#TYPE_KEY} is initialised
   * @param node this node's stable name (its address)
   * @param holdTtl how long a hold lives without a renewal
   * @param renewInterval how often this node renews its holds
   * @param timeout how long one ask of a pool may take
   */
  public JournalPoolStore(ActorSystem<?> system, ClusterSharding sharding, String node, Duration holdTtl,
      Duration renewInterval, Duration timeout) {
    this.sharding = sharding;
    this.node = node;
    this.holdTtl = holdTtl;
    this.timeout = timeout;
    this.renewal = system.scheduler().scheduleWithFixedDelay(renewInterval, renewInterval, this::renew,
        system.executionContext());
    // After the drain (service-requests-done: the executor's releases are written), nothing more goes to the pools:
    // a message sent to the pools' shard region while it hands off is buffered, and the region then waits its whole
    // hand-off timeout before it stops, which held a node's stop past 10 s.
    org.apache.pekko.actor.CoordinatedShutdown.get(system).addTask(
        org.apache.pekko.actor.CoordinatedShutdown.PhaseBeforeClusterShutdown(), "almanac-pools-quiet", () -> {
          quiet = true;
          renewal.cancel();
          return CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
        });
  }

  /** Set once the node's shutdown is past its drain: no pool is asked any more. */
  private volatile boolean quiet;

  /**
   * The store as {@code almanac.pool-store.class} names it (e.g. to wrap it): the node's sharding
   * (where the node initialised the pools' entities), its address, the block's timings.
   *
   * @param system the node's actor system
   * @param config the {@code almanac.pool-store} block
   * @return the store
   */
  public static JournalPoolStore create(ActorSystem<?> system, com.typesafe.config.Config config) {
    return new JournalPoolStore(system, ClusterSharding.get(system),
        org.apache.pekko.cluster.typed.Cluster.get(system).selfMember().address().toString(),
        config.getDuration("hold-ttl"), config.getDuration("renew-interval"), config.getDuration("operation-timeout"));
  }

  /** @return this store's incarnation (a random UUID per instance) */
  public String incarnation() {
    return incarnation;
  }

  /**
   * Asks a pool's entity, bounded by the operation timeout; once the node's shutdown has passed its
   * drain, fails at once instead (see the constructor).
   */
  private <R> CompletionStage<R> ask(String pool, java.util.function.Function<org.apache.pekko.actor.typed.ActorRef<R>,
      PoolProtocol.Command> message) {
    if (quiet) {
      return CompletableFuture.failedFuture(new IllegalStateException("pool '" + pool + "' not asked: the node is stopping"));
    }
    EntityRef<PoolProtocol.Command> ref = sharding.entityRefFor(PoolEntity.TYPE_KEY, pool);
    return ref.ask(message::apply, timeout);
  }

  @Override
  public CompletionStage<Void> declare(List<Limit> pools) {
    CompletableFuture<?>[] all = new CompletableFuture<?>[pools.size()];
    for (int i = 0; i < pools.size(); i++) {
      Limit l = pools.get(i);
      declared.add(l.name());
      all[i] = this.<org.apache.pekko.Done>ask(l.name(), r -> new PoolProtocol.Declare(l, node, incarnation, r))
          .toCompletableFuture();
    }
    return CompletableFuture.allOf(all);
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    return acquire(pools, taskId, window, Map.of());
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window, Map<String, Budget> budgets) {
    List<String> names = new ArrayList<>(new TreeSet<>(pools));
    return next(names, 0, taskId, window, budgets, new ArrayList<>());
  }

  /** Asks pool {@code i}, then the next; on a refusal or a failure gives back what was taken. */
  private CompletionStage<Answer> next(List<String> names, int i, String taskId, String window,
      Map<String, Budget> budgets, List<String> taken) {
    if (i == names.size()) {
      held.put(key(taskId, window), List.copyOf(taken));
      return CompletableFuture.completedFuture(Answer.ADMITTED);
    }
    String name = names.get(i);
    return batched(name, new PoolProtocol.Ask(taskId, window, budgets.get(name)))
        .handle((a, failure) -> {
          if (failure == null && a.admitted()) {
            taken.add(name);
            return next(names, i + 1, taskId, window, budgets, taken);
          }
          List<String> back = new ArrayList<>(taken);
          if (failure != null) {
            back.add(name); // it may have admitted after the ask gave up
          }
          back.forEach(p -> releaseIn(p, taskId, window));
          return failure == null ? CompletableFuture.completedFuture(a)
              : CompletableFuture.<Answer>failedFuture(failure);
        })
        .thenCompose(x -> x);
  }

  /** The asks of one pool not yet sent, and whether a batch of it is being written. Guarded by itself. */
  private static final class Batch {
    final List<Pending> queue = new ArrayList<>();
    boolean inFlight;
  }

  private record Pending(PoolProtocol.Ask ask, CompletableFuture<Answer> answer) {}

  /** Most asks in one batch (one journal write). */
  static final int MAX_BATCH = 100;

  private final Map<String, Batch> batches = new ConcurrentHashMap<>();

  /**
   * Group commit of a pool's acquires: an ask goes at once when no batch of its pool is being
   * written, else with the asks that came meanwhile, in one {@link PoolProtocol.AcquireAll} (one
   * write), when the batch before it is answered. Under load a pool admits many attempts per write.
   */
  private CompletionStage<Answer> batched(String pool, PoolProtocol.Ask ask) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    Batch b = batches.computeIfAbsent(pool, p -> new Batch());
    List<Pending> send = null;
    synchronized (b) {
      b.queue.add(new Pending(ask, answer));
      if (!b.inFlight) {
        b.inFlight = true;
        send = take(b);
      }
    }
    if (send != null) {
      send(pool, b, send);
    }
    return answer;
  }

  private static List<Pending> take(Batch b) {
    int n = Math.min(MAX_BATCH, b.queue.size());
    List<Pending> out = new ArrayList<>(b.queue.subList(0, n));
    b.queue.subList(0, n).clear();
    return out;
  }

  private void send(String pool, Batch b, List<Pending> items) {
    List<PoolProtocol.Ask> asks = items.stream().map(Pending::ask).toList();
    this.<PoolProtocol.AnsweredAll>ask(pool, r -> new PoolProtocol.AcquireAll(asks, node, incarnation, holdTtl, r))
        .whenComplete((all, failure) -> {
          for (int i = 0; i < items.size(); i++) {
            if (failure == null && all.answers().size() == items.size()) {
              items.get(i).answer().complete(all.answers().get(i));
            } else {
              items.get(i).answer().completeExceptionally(failure != null ? failure
                  : new IllegalStateException("pool '" + pool + "' answered " + all.answers().size() + " of "
                      + items.size() + " asks"));
            }
          }
          List<Pending> next;
          synchronized (b) {
            next = b.queue.isEmpty() ? null : take(b);
            if (next == null) {
              b.inFlight = false;
            }
          }
          if (next != null) {
            send(pool, b, next);
          }
        });
  }

  @Override
  public CompletionStage<Void> release(String taskId, String window) {
    List<String> pools = held.remove(key(taskId, window));
    // unknown here (an acquire whose answer came late): every declared pool; one without the hold writes nothing
    List<String> from = pools != null ? pools : List.copyOf(declared);
    CompletableFuture<?>[] all = from.stream().map(p -> releaseIn(p, taskId, window).toCompletableFuture())
        .toArray(CompletableFuture<?>[]::new);
    return CompletableFuture.allOf(all);
  }

  private CompletionStage<org.apache.pekko.Done> releaseIn(String pool, String taskId, String window) {
    return ask(pool, r -> new PoolProtocol.Release(taskId, window, node, r));
  }

  @Override
  public CompletionStage<Void> pause(String pool, Duration pause) {
    return this.<org.apache.pekko.Done>ask(pool, r -> new PoolProtocol.Pause(pause, r)).thenApply(d -> null);
  }

  @Override
  public CompletionStage<Map<String, Integer>> inUse() {
    Map<String, Integer> out = new ConcurrentHashMap<>();
    CompletableFuture<?>[] all = declared.stream().map(p -> this.<PoolProtocol.LiveHolds>ask(p, PoolProtocol.GetLiveHolds::new)
            .thenAccept(n -> out.put(p, n.count())).toCompletableFuture())
        .toArray(CompletableFuture<?>[]::new);
    return CompletableFuture.allOf(all).thenApply(x -> new HashMap<>(out));
  }

  @Override
  public CompletionStage<java.util.List<io.almanac.journal.PoolState.Hold>> holds(String pool) {
    return this.<PoolProtocol.Holds>ask(pool, PoolProtocol.GetHolds::new).thenApply(PoolProtocol.Holds::holds);
  }

  @Override
  public CompletionStage<Void> addUsage(String pool, LocalDate day, long costMicros) {
    return this.<org.apache.pekko.Done>ask(pool, r -> new PoolProtocol.AddUsage(day, costMicros, r))
        .thenApply(d -> null);
  }

  @Override
  public CompletionStage<PoolDay> dayUsage(String pool, LocalDate day) {
    return this.<PoolProtocol.DayIs>ask(pool, r -> new PoolProtocol.GetDay(day, r)).thenApply(PoolProtocol.DayIs::day);
  }

  @Override
  public CompletionStage<PoolDay> raiseBudget(String pool, LocalDate day, long amountMicros) {
    return raiseBudget(pool, day, amountMicros, "unknown", null);
  }

  @Override
  public CompletionStage<PoolDay> raiseBudget(String pool, LocalDate day, long amountMicros, String actor, String note) {
    if (!declared.contains(pool)) {
      return CompletableFuture.failedFuture(new IllegalStateException("pool '" + pool + "' is not declared in this store"));
    }
    return this.<PoolProtocol.DayIs>ask(pool, r -> new PoolProtocol.RaiseBudget(day, amountMicros, actor, note, r))
        .thenApply(PoolProtocol.DayIs::day);
  }

  /** Renews this node's holds: one command per pool where it holds something. */
  private void renew() {
    Set<String> pools = new TreeSet<>();
    held.values().forEach(pools::addAll);
    for (String p : pools) {
      this.<org.apache.pekko.Done>ask(p, r -> new PoolProtocol.Renew(node, incarnation, holdTtl, r))
          .whenComplete((d, e) -> {
            if (e != null) {
              log.warn("pool '{}': this node's holds were not renewed ({}); they stop counting {} after the last renewal",
                  p, e.toString(), holdTtl);
            }
          });
    }
  }

  private static String key(String taskId, String window) {
    return taskId + "|" + window;
  }

  /** Stops the renewals; this node's holds are not given back (their jobs may still run): they expire. */
  @Override
  public void close() {
    renewal.cancel();
  }
}

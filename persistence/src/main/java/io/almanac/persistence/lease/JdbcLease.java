package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.coordination.lease.LeaseException;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.LeaseTimeoutException;
import org.apache.pekko.coordination.lease.scaladsl.Lease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.Option;
import scala.concurrent.ExecutionContextExecutor;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;

/**
 * A Pekko Coordination {@link Lease} kept in a row of the {@code almanac_lease} table, in the
 * journal's own database (H2 or PostgreSQL), so that whoever can write the journal agrees on who
 * holds the lease. Pekko's {@code LeaseProvider} creates it from a configuration block whose
 * {@code lease-class} names this class (see {@code almanac.lease.jdbc} in almanac-persistence's
 * reference.conf, with every key); SchemaBootstrap creates the table.
 *
 * <p>The contract of {@link Lease}, as this class keeps it:
 *
 * <ul>
 *   <li>{@code acquire} completes with true when this owner holds the row afterwards: the row was
 *       free, already this owner's (acquire is re-entrant: it only renews), or expired by the
 *       database's clock; with false when another owner holds it; exceptionally with a {@link
 *       LeaseException} naming the lease and the database when the database could not be asked,
 *       or a {@link LeaseTimeoutException} after {@code lease-operation-timeout} (the row may
 *       then be ours until it expires: acquire again, or release). One conditional UPDATE (or,
 *       for a new name, an INSERT on the primary key) decides, so two acquirers cannot both win.
 *   <li>While held, a heartbeat every {@code heartbeat-interval} extends the row's expiry to the
 *       database's time plus {@code heartbeat-timeout}. A failed heartbeat is retried at the next
 *       interval; the lease is lost when a heartbeat finds the row no longer ours (taken over
 *       after it expired), or when no heartbeat succeeded in time (below).
 *   <li>{@code checkLease} reads memory only: true while held and before the local deadline. The
 *       local deadline is {@code heartbeat-timeout - safety-margin} after the start of the last
 *       successful acquire or heartbeat, on this JVM's monotonic clock. The database set the
 *       expiry from its own time, no earlier than that start, so another owner can take the row
 *       at least {@code safety-margin} after {@code checkLease} turned false, even when the
 *       heartbeat thread is stuck or the JVM was paused (after a pause it turns false at once).
 *   <li>When the lease is lost, the callback given to {@code acquire} is called once, with the
 *       cause, after the acquire's future completed, on the ActorSystem's dispatcher; {@code
 *       checkLease} stays false until a new acquire succeeds.
 *   <li>{@code release} frees the row only if it is still this owner's: true when freed, false
 *       when it was not ours (never frees another owner's), exceptionally when unknown.
 *       {@code checkLease} is false from the call on.
 * </ul>
 *
 * <p>The owner is Pekko's {@code ownerName} (for Cluster Singleton and Sharding the node's
 * address) together with an incarnation, a random UUID per ActorSystem: a node restarted with the
 * same address is another owner, and waits for its previous life's row to expire (at most {@code
 * heartbeat-timeout}) instead of silently inheriting it, for the database cannot tell a restarted
 * node from a paused one that will resume; the paused one, on resuming, finds its lease lost.
 *
 * <p>Expiry is judged by one clock, the database's ({@code CURRENT_TIMESTAMP}), so nodes with
 * skewed clocks agree; the nodes' clocks are only used to measure durations. Operations run on a
 * thread of their own with one connection per ActorSystem and database (not the journal's pool, not
 * an actor dispatcher), opened from the journal plugin's URL, user, password and properties.
 */
public final class JdbcLease extends Lease {

  private static final Logger log = LoggerFactory.getLogger(JdbcLease.class);

  /** Longest lease name and owner name: the table's columns. */
  static final int MAX_NAME_LENGTH = 512;

  /** The timing of one lease, validated. */
  record Timing(Duration interval, Duration timeout, Duration operationTimeout, Duration safetyMargin) {

    /** How long a successful acquire or heartbeat lets {@code checkLease} answer true. */
    Duration localValidity() {
      return timeout.minus(safetyMargin);
    }

    int queryTimeoutSeconds() {
      return (int) Math.max(1, (operationTimeout.toMillis() + 999) / 1000);
    }

    static Timing of(LeaseSettings settings) {
      Duration interval = settings.timeoutSettings().getHeartbeatInterval();
      Duration timeout = settings.timeoutSettings().getHeartbeatTimeout();
      Duration operation = settings.timeoutSettings().getOperationTimeout();
      Config config = settings.leaseConfig();
      String lease = "lease [" + settings.leaseName() + "]: ";
      Duration margin;
      if (!config.hasPath("safety-margin")
          || (config.getValue("safety-margin").valueType() == ConfigValueType.STRING && config.getString("safety-margin").isEmpty())) {
        margin = timeout.dividedBy(10);
      } else {
        margin = config.getDuration("safety-margin");
      }
      if (interval.isNegative() || interval.isZero() || operation.isNegative() || operation.isZero()) {
        throw new IllegalArgumentException(lease + "heartbeat-interval and lease-operation-timeout must be > 0");
      }
      if (margin.isNegative() || margin.isZero()) {
        throw new IllegalArgumentException(lease + "safety-margin = " + margin + " must be > 0");
      }
      if (interval.plus(margin).compareTo(timeout) >= 0) {
        throw new IllegalArgumentException(lease + "heartbeat-interval (" + interval + ") + safety-margin (" + margin
            + ") must be less than heartbeat-timeout (" + timeout + "), or the lease would be given up between two heartbeats");
      }
      return new Timing(interval, timeout, operation, margin);
    }
  }

  /**
   * Checks the settings of every lease of this class that the configuration uses (the trigger
   * singleton's, the shard coordinator's, the shards' and the split brain resolver's with
   * lease-majority), as the lease's constructor will, without an ActorSystem: call it before
   * creating the ActorSystem. With almanac-cluster.conf the resolver creates its lease while the
   * ActorSystem starts, and settings that cannot work then crash the cluster and the ActorSystem's
   * start (Pekko logs why, and ActorSystem.create fails with an unrelated "cannot enqueue after timer
   * shutdown"); Almanac.start checks them too, for leases created later.
   *
   * @param config the node's configuration
   * @throws IllegalArgumentException naming the lease's configuration path, the key that selects it,
   *     the rule broken and the timing keys with their values
   */
  public static void checkSettings(Config config) {
    for (java.util.Map.Entry<String, String> e : io.almanac.config.LeaseSettings.leasePaths(config).entrySet()) {
      String path = e.getKey();
      if (!config.hasPath(path) || !config.hasPath(path + ".lease-class")
          || !config.getString(path + ".lease-class").equals(JdbcLease.class.getName())) {
        continue;
      }
      try {
        Config block = config.getConfig(path).withFallback(config.getConfig("pekko.coordination.lease"));
        Timing.of(LeaseSettings.apply(block, "settings-check", "settings-check"));
      } catch (IllegalArgumentException | com.typesafe.config.ConfigException ex) {
        throw new IllegalArgumentException(path + " (the lease of " + e.getValue() + "): " + ex.getMessage() + " ("
            + io.almanac.config.LeaseSettings.timing(config, path) + ")", ex);
      }
    }
  }

  private final String name;
  private final String owner;
  private final Timing timing;
  private final LeaseStore store;
  private final ExtendedActorSystem system;
  private final ExecutionContextExecutor dispatcher;
  private final String label;

  private final Object lock = new Object();
  private volatile boolean held;
  /** {@link System#nanoTime()} after which checkLease is false; meaningful while held. */
  private volatile long deadline;
  /** Guarded by lock: bumped at every acquire, loss and release, to ignore answers to older ones. */
  private long epoch;
  private long version;
  private Consumer<Throwable> lostCallback;
  private Cancellable heartbeats;
  private boolean heartbeatInFlight;
  /** Tests: heartbeats stop writing (a frozen holder) but still watch the deadline. */
  private volatile boolean heartbeatWritesSuspended;

  /**
   * The constructor Pekko's {@code LeaseProvider} calls.
   *
   * @param settings the lease's name, owner, timeouts and configuration block
   * @param system the ActorSystem
   * @throws IllegalArgumentException for a wrong setting or name
   */
  public JdbcLease(LeaseSettings settings, ExtendedActorSystem system) {
    this(settings, system, checkedStoreFor(settings, system));
  }

  /** The timing first, so that settings that cannot work are reported as such, whatever the store. */
  private static LeaseStore checkedStoreFor(LeaseSettings settings, ExtendedActorSystem system) {
    Timing.of(settings);
    return LeaseStores.get(system).storeFor(settings.leaseConfig());
  }

  JdbcLease(LeaseSettings settings, ExtendedActorSystem system, LeaseStore store) {
    super(settings);
    this.name = checkName("lease name", settings.leaseName());
    this.owner = checkName("owner name", settings.ownerName());
    this.timing = Timing.of(settings);
    this.store = store;
    this.system = system;
    this.dispatcher = system.dispatcher();
    this.label = "lease [" + name + "] of owner [" + owner + "] (incarnation " + store.incarnation() + ") in table almanac_lease of database ["
        + store.database() + "]";
  }

  private static String checkName(String what, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("the " + what + " must not be empty");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("the " + what + " is longer than " + MAX_NAME_LENGTH + " characters: " + value);
    }
    return value;
  }

  @Override
  public Future<Object> acquire() {
    return scala(acquireRow(cause -> {}));
  }

  @Override
  public Future<Object> acquire(Function1<Option<Throwable>, BoxedUnit> leaseLostCallback) {
    return scala(acquireRow(cause -> leaseLostCallback.apply(Option.apply(cause))));
  }

  @Override
  public Future<Object> release() {
    return scala(releaseRow());
  }

  @Override
  public boolean checkLease() {
    return held && System.nanoTime() - deadline < 0;
  }

  private static Future<Object> scala(CompletableFuture<Boolean> f) {
    return FutureConverters.asScala(f.thenApply(b -> (Object) b));
  }

  /** Acquire, for Java callers in this package (tests). */
  CompletableFuture<Boolean> acquireRow(Consumer<Throwable> onLost) {
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    AtomicBoolean settled = new AtomicBoolean();
    Cancellable timer = system.scheduler().scheduleOnce(timing.operationTimeout(), () -> {
      if (settled.compareAndSet(false, true)) {
        result.completeExceptionally(new LeaseTimeoutException("timed out after " + timing.operationTimeout()
            + " acquiring " + label + "; it may have been taken: acquire again, or release"));
      }
    }, dispatcher);
    store.run(timing.operationTimeout(),
        c -> store.acquire(c, name, owner, timing.timeout().toMillis(), timing.queryTimeoutSeconds()))
        .whenComplete((r, e) -> {
          timer.cancel();
          if (!settled.compareAndSet(false, true)) {
            log.warn("{}: the acquire that timed out has now {}; its row expires unless acquired again",
                label, e != null ? "failed: " + e : r.acquired() ? "acquired it" : "found it taken");
            return;
          }
          if (e != null) {
            result.completeExceptionally(failure("acquire", e));
            return;
          }
          Runnable lostBefore = null;
          boolean granted = false;
          synchronized (lock) {
            if (r.acquired()) {
              long until = r.startNanos() + timing.localValidity().toNanos();
              if (System.nanoTime() - until >= 0) {
                // So slow that the local view would already have given it up: not granted.
                lostBefore = loseLocked(new LeaseTimeoutException("acquiring " + label + " took longer than heartbeat-timeout "
                    + "minus safety-margin (" + timing.localValidity() + "); not granted, the row expires"));
              } else {
                if (!held) {
                  epoch++;
                }
                deadline = until;
                version = r.version();
                held = true;
                lostCallback = onLost;
                startHeartbeatsLocked();
                granted = true;
              }
            } else if (held) {
              lostBefore = loseLocked(new LeaseException(label + " is held by " + r.holder() + " in the database"));
            }
          }
          if (r.acquired() && !granted) {
            result.completeExceptionally(new LeaseTimeoutException("acquiring " + label + " took longer than "
                + timing.localValidity() + " (heartbeat-timeout minus safety-margin); it may have been taken: acquire again, or release"));
          } else {
            if (granted) {
              log.debug("{}: acquired, version {}", label, r.version());
            } else {
              log.debug("{}: not acquired, held by {}", label, r.holder());
            }
            result.complete(granted);
          }
          if (lostBefore != null) {
            lostBefore.run();
          }
        });
    return result;
  }

  /** Release, for Java callers in this package (tests). */
  CompletableFuture<Boolean> releaseRow() {
    synchronized (lock) {
      if (held) {
        epoch++;
      }
      held = false;
      lostCallback = null;
      stopHeartbeatsLocked();
    }
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    AtomicBoolean settled = new AtomicBoolean();
    Cancellable timer = system.scheduler().scheduleOnce(timing.operationTimeout(), () -> {
      if (settled.compareAndSet(false, true)) {
        result.completeExceptionally(new LeaseTimeoutException("timed out after " + timing.operationTimeout()
            + " releasing " + label + "; it may still be held until it expires"));
      }
    }, dispatcher);
    store.run(timing.operationTimeout(), c -> store.release(c, name, owner, timing.queryTimeoutSeconds()))
        .whenComplete((released, e) -> {
          timer.cancel();
          if (!settled.compareAndSet(false, true)) {
            return;
          }
          if (e != null) {
            result.completeExceptionally(failure("release", e));
          } else {
            log.debug("{}: {}", label, released ? "released" : "not released: not held by this owner");
            result.complete(released);
          }
        });
    return result;
  }

  /** Must hold lock. */
  private void startHeartbeatsLocked() {
    if (heartbeats == null || heartbeats.isCancelled()) {
      long myEpoch = epoch;
      heartbeats = system.scheduler().scheduleWithFixedDelay(timing.interval(), timing.interval(), () -> tick(myEpoch), dispatcher);
    }
  }

  /** Must hold lock. */
  private void stopHeartbeatsLocked() {
    if (heartbeats != null) {
      heartbeats.cancel();
      heartbeats = null;
    }
  }

  /**
   * Marks the lease lost, must hold lock.
   *
   * @return what calls the callback, to run once the lock is released; null when not held
   */
  private Runnable loseLocked(Throwable cause) {
    if (!held) {
      return null;
    }
    held = false;
    epoch++;
    stopHeartbeatsLocked();
    Consumer<Throwable> callback = lostCallback;
    lostCallback = null;
    return () -> {
      log.warn("{}: lost: {}", label, cause.getMessage());
      if (callback != null) {
        dispatcher.execute(() -> {
          try {
            callback.accept(cause);
          } catch (Throwable t) {
            log.error("{}: the lease-lost callback failed", label, t);
          }
        });
      }
    };
  }

  private void lose(long expectedEpoch, Throwable cause) {
    Runnable callback;
    synchronized (lock) {
      if (epoch != expectedEpoch) {
        return;
      }
      callback = loseLocked(cause);
    }
    if (callback != null) {
      callback.run();
    }
  }

  private void tick(long myEpoch) {
    long v;
    synchronized (lock) {
      if (!held || epoch != myEpoch) {
        return;
      }
      if (System.nanoTime() - deadline >= 0) {
        v = -1;
      } else if (heartbeatInFlight || heartbeatWritesSuspended) {
        return;
      } else {
        heartbeatInFlight = true;
        v = version;
      }
    }
    if (v < 0) {
      lose(myEpoch, new LeaseTimeoutException(label + ": no heartbeat succeeded within " + timing.localValidity()
          + " (heartbeat-timeout minus safety-margin); the row may expire and be taken"));
      return;
    }
    long expected = v;
    store.run(timing.operationTimeout(),
        c -> store.heartbeat(c, name, owner, expected, timing.timeout().toMillis(), timing.queryTimeoutSeconds()))
        .whenComplete((r, e) -> {
          synchronized (lock) {
            heartbeatInFlight = false;
          }
          if (e != null) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            log.warn("{}: heartbeat failed ({}); retrying, the lease is kept for {} ms more", label, e.toString(), Math.max(0, left));
          } else if (r.extended()) {
            synchronized (lock) {
              if (held && epoch == myEpoch) {
                long until = r.startNanos() + timing.localValidity().toNanos();
                if (until - deadline > 0) {
                  deadline = until;
                }
              }
            }
          } else {
            lose(myEpoch, new LeaseException(label + " was taken over: the row is now held by " + r.holder()));
          }
        });
  }

  private LeaseException failure(String operation, Throwable e) {
    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    String hint = LeaseStore.tableMissing(cause)
        ? "; the lease table is missing: SchemaBootstrap.ensureSchema creates it" : "";
    LeaseException out = new LeaseException(operation + " of " + label + " failed: " + cause.getMessage() + hint);
    out.initCause(cause);
    return out;
  }

  // ---- for tests in this package

  /** A frozen holder: heartbeats stop writing, the deadline is still watched. */
  void suspendHeartbeatWrites() {
    heartbeatWritesSuspended = true;
  }

  /** The fencing version of the row when last acquired. */
  long version() {
    synchronized (lock) {
      return version;
    }
  }

  LeaseStore store() {
    return store;
  }

  @Override
  public String toString() {
    return "JdbcLease[" + label + "]";
  }
}

package io.almanac.persistence.instances;

import io.almanac.InvalidSpecException;
import io.almanac.persistence.instances.ProjectionWorker.Progress;
import io.almanac.persistence.instances.ProjectionWorker.Step;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the instance table ({@code almanac_instance}) from the task journals (R29): it polls the
 * journal's table by its global {@code ordering} column, folds every task event into its window's
 * row with the runtime's own event-to-status mapping ({@code io.almanac.journal.Evolve}), and
 * writes the rows and its offset ({@code almanac_projection_offset}, name {@value #NAME}) in one
 * JDBC transaction: a batch is applied exactly once. Each row also keeps the sequence number of its
 * last event ({@code last_seq}) and an event at or below it is not applied again, so even a replay
 * cannot apply an event twice. Reads every task event, tagged or not, so it needs no change to how
 * the journal is written.
 *
 * <p><b>Holes.</b> An ordering number missing below the journal's head may be an insert that is not
 * committed yet (PostgreSQL allocates the numbers before commit); the projection waits up to
 * {@code almanac.instances.gap-wait} for it before it goes past ({@link GapTracker}).
 *
 * <p><b>Where it runs.</b> On a node whose {@code pekko.actor.provider} is {@code cluster}, as a
 * cluster singleton named {@value #NAME} (once per cluster, handed over when its node leaves; two
 * instances during a hand-over take turns on the offset row's lock); otherwise as one actor of the
 * node. A failing database does not stop it or the node: it backs off from
 * {@code failure-backoff-min} to {@code failure-backoff-max} and warns at the first failure and
 * then at most once a minute. It also runs retention every {@code retention-interval} (and once at
 * start): rows of done windows older than {@code retention} move to {@code
 * almanac_instance_history}.
 *
 * <pre>{@code
 * SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(30)); // creates the tables
 * InstanceProjection.Handle projection = InstanceProjection.start(system);
 * ...
 * projection.lag();   // how far the table is behind the journal
 * projection.stop();
 * }</pre>
 */
public final class InstanceProjection {

  /** The projection's name: its offset row's and its actor's (or cluster singleton's). */
  public static final String NAME = "almanac-instances";

  private static final Logger log = LoggerFactory.getLogger(InstanceProjection.class);

  /** How soon it reads again after stopping at a hole (at most the poll interval). */
  private static final Duration HOLE_RETRY = Duration.ofMillis(10);

  private InstanceProjection() {}

  /** A running projection (or, with {@code almanac.instances.enabled = off}, a stopped one). */
  public static final class Handle {
    private final ActorRef<Msg> ref;
    private final Progress progress;

    private Handle(ActorRef<Msg> ref, Progress progress) {
      this.ref = ref;
      this.progress = progress;
    }

    /**
     * How far the table is behind the journal, as seen by the projection on this node: the age of
     * the oldest journal event it knows of and has not applied (by the event's write time), zero
     * when it has applied every event it has seen. Zero as well on a node that does not run the
     * cluster's singleton (see {@link #runningHere()}). The poll interval adds up to its length.
     *
     * @return the lag, never negative
     */
    public Duration lag() {
      long since = progress.pendingSinceMillis;
      return since < 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, System.currentTimeMillis() - since));
    }

    /**
     * @return the journal's head ordering minus the applied offset, as of the last poll on this node
     *     (0 where it does not run)
     */
    public long lagEvents() {
      return Math.max(0, progress.head - progress.offset);
    }

    /**
     * @return at the last commit on this node: its time minus the write time of the oldest event it
     *     applied (how long events waited to reach the table), or empty before the first
     */
    public java.util.Optional<Duration> lastApplyDelay() {
      long d = progress.lastApplyDelayMillis;
      return d < 0 ? java.util.Optional.empty() : java.util.Optional.of(Duration.ofMillis(d));
    }

    /**
     * @return failed polls (or retention runs) in a row on this node, 0 after a success (the
     *     database answers again)
     */
    public int consecutiveFailures() {
      return progress.failures;
    }

    Progress progress() {
      return progress;
    }

    ActorRef<Msg> ref() {
      return ref;
    }

    /** @return the journal ordering applied through, as of the last poll on this node */
    public long offset() {
      return progress.offset;
    }

    /** @return whether the projection runs on this node (has polled here and is not stopped) */
    public boolean runningHere() {
      return progress.running;
    }

    /** Stops the projection (in a cluster: the singleton, wherever it runs). Its offset stays. */
    public void stop() {
      if (ref != null) {
        ref.tell(Stop.INSTANCE);
      }
    }
  }

  /**
   * Starts the projection with the system clock.
   *
   * @param system the node's ActorSystem; its configuration names the journal (e.g.
   *     {@code almanac-h2.conf}) and holds {@code almanac.instances}; run {@code
   *     SchemaBootstrap.ensureSchema} first
   * @return its handle
   * @throws InvalidSpecException for a wrong {@code almanac.instances} setting, naming key and value
   */
  public static Handle start(ActorSystem<?> system) {
    return start(system, Clock.systemUTC());
  }

  /**
   * Starts the projection.
   *
   * @param system the node's ActorSystem
   * @param clock the clock of retention and of the rows' offset time (principle 3)
   * @return its handle
   * @throws InvalidSpecException for a wrong {@code almanac.instances} setting, naming key and value
   */
  public static Handle start(ActorSystem<?> system, Clock clock) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(clock, "clock");
    InstanceSettings settings = InstanceSettings.from(system.settings().config());
    Progress progress = new Progress();
    if (!settings.enabled()) {
      log.info("instance projection: almanac.instances.enabled is off; the instance table is not kept");
      return new Handle(null, progress);
    }
    Behavior<Msg> behavior = Behaviors.supervise(behavior(settings, clock, progress))
        .onFailure(SupervisorStrategy.restartWithBackoff(settings.failureBackoffMin(), settings.failureBackoffMax(), 0.2));
    ActorRef<Msg> ref;
    if (clustered(system)) {
      ref = ClusterSingleton.get(system).init(SingletonActor.of(behavior, NAME).withStopMessage(Stop.INSTANCE));
    } else {
      ref = system.systemActorOf(behavior, NAME, Props.empty());
    }
    Handle handle = new Handle(ref, progress);
    lagGauge(system, handle);
    return handle;
  }

  /** The handle the lag gauge reads on a system: the last one started there. */
  static final class Current implements org.apache.pekko.actor.Extension {
    volatile Handle handle;
    /** The meters the gauge is registered with, or null. */
    io.almanac.spi.StoreMeters registeredWith;
  }

  private static final org.apache.pekko.actor.AbstractExtensionId<Current> CURRENT =
      new org.apache.pekko.actor.AbstractExtensionId<>() {
        @Override
        public Current createExtension(org.apache.pekko.actor.ExtendedActorSystem system) {
          return new Current();
        }
      };

  static Current current(ActorSystem<?> system) {
    return CURRENT.get(system.classicSystem());
  }

  /**
   * almanac_projection_lag_seconds (NaN on a node that does not host the projection: a cluster's
   * others): registered once per system and meters, reading the handle last started, so a stop and
   * a start leave it on the running projection.
   */
  private static void lagGauge(ActorSystem<?> system, Handle handle) {
    Current current = current(system);
    current.handle = handle;
    io.almanac.spi.StoreMeters meters = io.almanac.spi.StoreMeters.of(system);
    synchronized (current) {
      if (!meters.installed()) {
        log.warn("instance projection: the node's meters are not installed yet, so almanac_projection_lag_seconds is "
            + "not registered; start the projection after Almanac.start");
        return;
      }
      if (current.registeredWith != meters) {
        current.registeredWith = meters;
        meters.projectionLag(() -> {
          Handle h = current.handle;
          return h != null && h.runningHere() ? h.lag() : null;
        });
      }
    }
  }

  static boolean clustered(ActorSystem<?> system) {
    String provider = system.settings().config().getString("pekko.actor.provider");
    return provider.equals("cluster") || provider.endsWith(".ClusterActorRefProvider");
  }

  // ---------------------------------------------------------------------------------------------
  // The actor

  interface Msg {}

  private enum Tick implements Msg { INSTANCE }

  private enum RetentionTick implements Msg { INSTANCE }

  enum Stop implements Msg { INSTANCE }

  /** Makes the actor fail, so its supervisor restarts it: for tests of the restart only. */
  enum Crash implements Msg { INSTANCE }

  private record Stepped(Step step, Throwable failure) implements Msg {}

  private record Retained(long moved, Throwable failure) implements Msg {}

  private static Behavior<Msg> behavior(InstanceSettings settings, Clock clock, Progress progress) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ActorSystem<?> system = ctx.getSystem();
      Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
      ProjectionWorker worker = new ProjectionWorker(NAME, InstanceStore.of(system.settings().config()),
          (bytes, id, manifest) -> serialization.deserialize(bytes, id, manifest).get(), settings, progress);
      InstanceStore store = InstanceStore.of(system.settings().config());
      RetentionRule rule = new RetentionRule(settings.retention());
      Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
      JournalDb db = JournalDb.of(system);
      progress.running = true;
      log.info("instance projection '{}' started on {} (poll every {}, retention {} every {})", NAME, system.address(),
          settings.pollInterval(), settings.retention(), settings.retentionInterval());
      timers.startTimerWithFixedDelay(RetentionTick.INSTANCE, settings.retentionInterval());
      ctx.getSelf().tell(Tick.INSTANCE);
      ctx.getSelf().tell(RetentionTick.INSTANCE);
      final class State {
        boolean busy;
        boolean retentionDue;
        int failures;
        long lastWarnNanos;
      }
      State st = new State();
      Runnable[] next = new Runnable[1];
      java.util.function.Consumer<Throwable> failed = e -> {
        st.failures++;
        progress.failures = st.failures;
        long now = System.nanoTime();
        Duration backoff = settings.failureBackoffMin().multipliedBy(1L << Math.min(20, st.failures - 1));
        if (backoff.compareTo(settings.failureBackoffMax()) > 0) {
          backoff = settings.failureBackoffMax();
        }
        if (st.failures == 1 || now - st.lastWarnNanos >= Duration.ofMinutes(1).toNanos()) {
          st.lastWarnNanos = now;
          progress.warnings++;
          log.warn("instance projection '{}': a step failed ({} failure(s) in a row); retrying in {}: {}", NAME,
              st.failures, backoff, e.toString());
        }
        timers.startSingleTimer(Tick.INSTANCE, Tick.INSTANCE, backoff);
      };
      next[0] = () -> {
        if (st.busy) {
          return;
        }
        st.busy = true;
        if (st.retentionDue) {
          st.retentionDue = false;
          ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> {
            try (Connection c = db.connect()) {
              return Retention.run(c, store, NAME, rule, clock.instant(), settings.retentionBatchSize());
            } catch (java.sql.SQLException e) {
              throw new java.util.concurrent.CompletionException(e);
            }
          }, blocking), (moved, e) -> new Retained(moved == null ? 0 : moved, e));
        } else {
          ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> {
            try (Connection c = db.connect()) {
              return worker.step(c, clock.instant());
            } catch (java.sql.SQLException e) {
              throw new java.util.concurrent.CompletionException(e);
            }
          }, blocking), Stepped::new);
        }
      };
      return Behaviors.<Msg>receive(Msg.class)
          .onMessage(Tick.class, t -> {
            next[0].run();
            return Behaviors.same();
          })
          .onMessage(RetentionTick.class, t -> {
            st.retentionDue = true;
            next[0].run();
            return Behaviors.same();
          })
          .onMessage(Stepped.class, s -> {
            st.busy = false;
            if (s.failure() != null) {
              failed.accept(unwrap(s.failure()));
              return Behaviors.same();
            }
            recovered(st.failures);
            st.failures = 0;
            progress.failures = 0;
            if (s.step().more() || st.retentionDue) {
              ctx.getSelf().tell(Tick.INSTANCE);
            } else if (s.step().atHole()) {
              timers.startSingleTimer(Tick.INSTANCE, Tick.INSTANCE, HOLE_RETRY.compareTo(settings.pollInterval()) < 0
                  ? HOLE_RETRY : settings.pollInterval());
            } else {
              timers.startSingleTimer(Tick.INSTANCE, Tick.INSTANCE, settings.pollInterval());
            }
            return Behaviors.same();
          })
          .onMessage(Retained.class, r -> {
            st.busy = false;
            if (r.failure() != null) {
              st.retentionDue = true; // again after the back-off
              failed.accept(unwrap(r.failure()));
              return Behaviors.same();
            }
            recovered(st.failures);
            st.failures = 0;
            progress.failures = 0;
            if (r.moved() > 0) {
              log.info("instance projection '{}': retention moved {} row(s) older than {} to {}", NAME, r.moved(),
                  settings.retention(), InstanceStore.HISTORY);
            }
            ctx.getSelf().tell(Tick.INSTANCE);
            return Behaviors.same();
          })
          .onMessage(Stop.class, s -> {
            log.info("instance projection '{}' stopped at offset {}", NAME, worker.offset());
            return Behaviors.stopped();
          })
          .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
            progress.running = false;
            db.close();
            return Behaviors.same();
          })
          .onSignal(org.apache.pekko.actor.typed.PreRestart.class, s -> {
            // restartWithBackoff sends PreRestart, not PostStop: the setup opens a new pool on restart
            db.close();
            return Behaviors.same();
          })
          .onMessage(Crash.class, c -> {
            throw new IllegalStateException("instance projection: crash asked (a test of the restart)");
          })
          .build();
    }));
  }

  private static void recovered(int failures) {
    if (failures > 0) {
      log.info("instance projection '{}': the database answers again after {} failure(s)", NAME, failures);
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
  }
}

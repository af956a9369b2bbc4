package io.almanac.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.internal.protocol.AlmanacSerializable;
import io.almanac.persistence.SchemaBootstrap;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/**
 * The ceiling of the persistence stack itself, without any scheduler logic: N event-sourced actors
 * on Almanac's journal configuration each persist K times in a row (the next persist after the
 * previous one is acknowledged, as a task entity does), all N at once. Reported: events/s and
 * persists/s with one event per persist (Almanac's fire path persists 3 times per fire, each one
 * event) and with three events per persist (what a fire that wrote its three events at once would
 * cost). Each measured pass follows an unmeasured warm-up pass of the same size on the same system.
 */
final class PersistCeiling {

  private PersistCeiling() {}

  /** A journal-shaped event: a 120-character payload, serialized by Jackson as Almanac's events are. */
  record Recorded(String window, String payload) implements AlmanacSerializable {}

  private record Go(int remaining) {}

  private static final String PAYLOAD = "x".repeat(120);

  private static final class Writer extends EventSourcedBehavior<Go, Recorded, Integer> {
    private final ActorRef<Go> self;
    private final int eventsPerPersist;
    private final CountDownLatch done;

    Writer(ActorRef<Go> self, String id, int eventsPerPersist, CountDownLatch done) {
      super(PersistenceId.ofUniqueId("ceiling|" + id));
      this.self = self;
      this.eventsPerPersist = eventsPerPersist;
      this.done = done;
    }

    @Override
    public Integer emptyState() {
      return 0;
    }

    @Override
    public CommandHandler<Go, Recorded, Integer> commandHandler() {
      return newCommandHandlerBuilder().forAnyState().onCommand(Go.class, (state, go) -> {
        List<Recorded> events = new ArrayList<>(eventsPerPersist);
        for (int i = 0; i < eventsPerPersist; i++) {
          events.add(new Recorded("w" + (state + i), PAYLOAD));
        }
        return Effect().persist(events).thenRun(s -> {
          if (go.remaining() > 1) {
            // the next persist only after this one is acknowledged, as an entity's next command
            self.tell(new Go(go.remaining() - 1));
          } else {
            done.countDown();
          }
        });
      }).build();
    }

    @Override
    public EventHandler<Integer, Recorded> eventHandler() {
      return newEventHandlerBuilder().forAnyState().onAnyEvent((state, e) -> state + 1);
    }
  }

  /** One pass: n writers persisting k times each, all at once; returns the seconds it took. */
  private static double pass(ActorSystem<Void> system, String name, int n, int k, int eventsPerPersist) throws Exception {
    CountDownLatch done = new CountDownLatch(n);
    List<ActorRef<Go>> writers = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String id = name + i;
      Behavior<Go> behavior = Behaviors.setup(ctx -> new Writer(ctx.getSelf(), id, eventsPerPersist, done));
      writers.add(system.systemActorOf(behavior, name + "-" + i, Props.empty()));
    }
    long t0 = System.nanoTime();
    writers.forEach(w -> w.tell(new Go(k)));
    if (!done.await(600, TimeUnit.SECONDS)) {
      throw new IllegalStateException("ceiling pass '" + name + "' did not finish in 600 s");
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * @param dir where the H2 files go
   * @param n actors persisting at once
   * @param k persists per actor
   * @return the JSON line's fields
   */
  static Map<String, Object> run(Path dir, int n, int k) throws Exception {
    Map<String, Object> out = Workloads.head("pekko-persistence", "ceiling", null);
    out.put("store", "Almanac's journal configuration (" + (Db.postgres() ? "almanac-postgres.conf" : "almanac-h2.conf") + ")");
    out.put("actors", n);
    out.put("persists_per_actor", k);
    for (int eventsPerPersist : new int[] {1, 3}) {
      Db db = Db.at(dir, "ceiling-" + eventsPerPersist);
      db.createEmpty();
      Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
          AlmanacSut.storeConfig(db),
          "pekko.loglevel = WARNING",
          "pekko.log-dead-letters = off",
          "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
          // profiling only, as for Almanac's runs: extra HOCON from -Dalmanac.bench.overrides
          System.getProperty("almanac.bench.overrides", ""))));
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "ceiling", config);
      try {
        SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
        pass(system, "warm-up", n, k, eventsPerPersist); // JIT and pool warm-up, not measured
        double s = pass(system, "w", n, k, eventsPerPersist);
        String key = eventsPerPersist == 1 ? "one_event_per_persist" : "three_events_per_persist";
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("seconds", s);
        r.put("persists_per_s", n * (double) k / s);
        r.put("events_per_s", n * (double) k * eventsPerPersist / s);
        out.put(key, r);
        Bench.progress("  ceiling %s: %,.0f persists/s, %,.0f events/s (%d actors x %d persists)", key,
            n * (double) k / s, n * (double) k * eventsPerPersist / s, n, k);
      } finally {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        db.drop();
      }
    }
    return out;
  }

}

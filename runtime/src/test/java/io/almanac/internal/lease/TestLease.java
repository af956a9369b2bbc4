package io.almanac.internal.lease;

import com.typesafe.config.ConfigFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.scaladsl.Lease;
import scala.Function1;
import scala.Option;
import scala.concurrent.Future;
import scala.runtime.BoxedUnit;

/**
 * A lease for tests of what Pekko and Almanac do with one (configured as {@code lease-class}): every
 * instance by lease name. The test switches one off ({@link #revoke}: {@code checkLease} false,
 * its holder not told), makes its holder lose it ({@link #lose}: the lost-lease callback), or stops
 * the "database" ({@link #stopDatabase}: every held lease lost, none acquired until {@link
 * #startDatabase}). Call {@link #reset} before each test.
 */
public final class TestLease extends Lease {

  public static final Map<String, TestLease> BY_NAME = new ConcurrentHashMap<>();
  private static volatile boolean databaseDown;

  volatile boolean held;
  private volatile Function1<Option<Throwable>, BoxedUnit> lost;

  public TestLease(LeaseSettings settings) {
    super(settings);
    BY_NAME.put(settings.leaseName(), this);
  }

  /**
   * Forgets every lease, starts the database, and starts a one-node cluster (joined to itself) whose
   * lease block {@code test-lease} is this class.
   *
   * @param name the ActorSystem's name (lease names start with it)
   * @param settings further configuration lines, e.g. {@code pekko.cluster.singleton.use-lease = test-lease}
   * @return the test kit
   */
  public static ActorTestKit oneNodeCluster(String name, String... settings) {
    reset();
    ActorTestKit testKit = ActorTestKit.create(name, ConfigFactory.parseString(String.join("\n",
        "pekko.actor.provider = cluster",
        "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }",
        "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
        // leaving a cluster (still joining, or with its leases lost) takes its coordinated-shutdown
        // phases; Pekko's 10 s test-kit default failed a test on a loaded 2-core machine
        "pekko.actor.testkit.typed.system-shutdown-default = 60s",
        "test-lease.lease-class = \"" + TestLease.class.getName() + "\"",
        String.join("\n", settings))).withFallback(ConfigFactory.load()));
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    return testKit;
  }

  /** A behavior that tells the probe every message it gets. */
  public static Behavior<String> echo(ActorRef<String> probe) {
    return Behaviors.receiveMessage(m -> {
      probe.tell(m);
      return Behaviors.same();
    });
  }

  /** Forgets every lease and starts the database. */
  public static void reset() {
    BY_NAME.clear();
    databaseDown = false;
  }

  @Override
  public Future<Object> acquire() {
    if (databaseDown) {
      return scala.concurrent.Future$.MODULE$.failed(new IllegalStateException("database down"));
    }
    held = true;
    return Future.successful(true);
  }

  @Override
  public Future<Object> acquire(Function1<Option<Throwable>, BoxedUnit> leaseLostCallback) {
    lost = leaseLostCallback;
    return acquire();
  }

  @Override
  public Future<Object> release() {
    held = false;
    return databaseDown ? scala.concurrent.Future$.MODULE$.failed(new IllegalStateException("database down"))
        : Future.successful(true);
  }

  @Override
  public boolean checkLease() {
    return held;
  }

  /** Not held any more; the holder is not told (it finds out at its next checkLease). */
  void revoke() {
    held = false;
  }

  /** Lost: its holder is told through the callback it acquired it with. */
  public void lose() {
    held = false;
    if (lost != null) {
      lost.apply(Option.apply(new IllegalStateException("heartbeat failed: database down")));
    }
  }

  /** The database stops: every held lease's heartbeat fails, so each holder is told it lost it. */
  public static void stopDatabase() {
    databaseDown = true;
    for (TestLease lease : BY_NAME.values()) {
      if (lease.held) {
        lease.lose();
      }
    }
  }

  /** The database is back: leases can be acquired again. */
  public static void startDatabase() {
    databaseDown = false;
  }
}

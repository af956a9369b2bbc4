package io.almanac.persistence.pools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore;
import io.almanac.spi.PoolStore.Answer;
import io.almanac.spi.PoolStore.Limit;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The JDBC pool store's contract on a real database, with two store instances as two nodes
 * competing for the same pools. Time passing is the database's own (a hold is expired by setting
 * its expiry in the past, as the database's clock would after hold-ttl), never a sleep.
 */
abstract class PoolStoreScenarios {

  private final List<JdbcPoolStore> stores = new ArrayList<>();

  /** @return the JDBC URL of a fresh database (or schema) */
  abstract String url();

  /** @return user, password, properties */
  abstract Properties properties();

  /** @return a label for the printed measurement */
  abstract String label();

  JdbcPoolStore store(String node) {
    JdbcPoolStore s = new JdbcPoolStore(url(), properties(), node, Duration.ofSeconds(30), Duration.ofHours(1),
        Duration.ofSeconds(5));
    stores.add(s);
    return s;
  }

  @AfterEach
  void closeStores() {
    stores.forEach(JdbcPoolStore::close);
  }

  static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(url(), properties()); Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  @Test
  @DisplayName("two nodes competing: never more than max-concurrent holds, a release lets one more in")
  void twoNodesNeverExceedTheLimit() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("openai", 3, 0, null));
    get(a.declare(limits));
    get(b.declare(limits));
    List<CompletableFuture<Answer>> asks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      asks.add(a.acquire(List.of("openai"), "t" + i, "w").toCompletableFuture());
      asks.add(b.acquire(List.of("openai"), "u" + i, "w").toCompletableFuture());
    }
    int admitted = 0;
    for (CompletableFuture<Answer> f : asks) {
      Answer answer = f.get(20, TimeUnit.SECONDS);
      if (answer.admitted()) {
        admitted++;
      } else {
        assertEquals(PoolWaitReason.FULL, answer.reason());
        assertEquals("openai", answer.pool());
      }
    }
    assertEquals(3, admitted);
    assertEquals(3, get(a.inUse()).get("openai"));
    assertEquals(3, get(b.inUse()).get("openai"));
    // release one of a's holds (whichever it got) or b's: one more is admitted
    for (int i = 0; i < 20; i++) {
      get(a.release("t" + i, "w"));
      get(b.release("u" + i, "w"));
    }
    assertEquals(0, get(a.inUse()).get("openai"));
    assertTrue(get(b.acquire(List.of("openai"), "x", "w")).admitted());
    assertEquals(1, get(a.inUse()).get("openai"));
  }

  @Test
  @DisplayName("pool budgets: two nodes' usage sums into the pool's day exactly; a spent day refuses BUDGET before any "
      + "room, with the day; another day and a raise admit again; a raise adds up")
  void budgetsSumAcrossNodes() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("openai", 100, 0, null), new Limit("search", 100, 0, null));
    get(a.declare(limits));
    get(b.declare(limits));
    java.time.LocalDate day = java.time.LocalDate.of(2027, 1, 4);
    java.time.LocalDate next = day.plusDays(1);
    List<CompletableFuture<Void>> adds = new ArrayList<>();
    for (int i = 0; i < 25; i++) { // 50 attempts of 0.1 across two nodes at once: exactly 5.00
      adds.add(a.addUsage("openai", day, 100_000).toCompletableFuture());
      adds.add(b.addUsage("openai", day, 100_000).toCompletableFuture());
    }
    for (CompletableFuture<Void> f : adds) {
      f.get(20, TimeUnit.SECONDS);
    }
    assertEquals(new PoolStore.PoolDay("openai", day, 5_000_000, 50, 0), get(b.dayUsage("openai", day)));
    assertEquals(PoolStore.PoolDay.empty("openai", next), get(a.dayUsage("openai", next)));
    assertEquals(PoolStore.PoolDay.empty("search", day), get(a.dayUsage("search", day)));

    java.util.Map<String, PoolStore.Budget> spent = java.util.Map.of("openai", new PoolStore.Budget(day, 5_000_000));
    Answer refused = get(a.acquire(List.of("search", "openai"), "t", "1", spent));
    assertFalse(refused.admitted());
    assertEquals(PoolWaitReason.BUDGET, refused.reason());
    assertEquals("openai", refused.pool());
    assertEquals(new PoolStore.PoolDay("openai", day, 5_000_000, 50, 0), refused.day());
    assertEquals(0, get(a.inUse()).get("search"), "all or none: the other pool took nothing");
    assertTrue(get(a.acquire(List.of("openai"), "t", "2", java.util.Map.of("openai", new PoolStore.Budget(day, 5_000_001))))
        .admitted(), "below the budget");
    assertTrue(get(a.acquire(List.of("openai"), "t", "3", java.util.Map.of("openai", new PoolStore.Budget(next, 5_000_000))))
        .admitted(), "the next day starts afresh");
    assertTrue(get(a.acquire(List.of("openai"), "t", "4")).admitted(), "without budgets nothing is checked");

    assertEquals(new PoolStore.PoolDay("openai", day, 5_000_000, 50, 1_000_000), get(b.raiseBudget("openai", day, 1_000_000)));
    assertEquals(new PoolStore.PoolDay("openai", day, 5_000_000, 50, 1_500_000), get(a.raiseBudget("openai", day, 500_000)));
    assertTrue(get(b.acquire(List.of("openai"), "u", "1", spent)).admitted(), "raised to 6.50");
    get(b.addUsage("openai", day, 1_500_000));
    Answer again = get(b.acquire(List.of("openai"), "u", "2", spent));
    assertEquals(PoolWaitReason.BUDGET, again.reason());
    assertEquals(6_500_000, again.day().costMicros());
    assertEquals(PoolStore.PoolDay.empty("openai", next), get(b.dayUsage("openai", next)), "a raise is for its day only");
  }

  @Test
  @DisplayName("an acquire that waits for a locked pool row completes with what the database did once the lock goes, "
      + "not with a timeout of the store's own (the executor bounds the stage, and gives back a late admission)")
  void acquireAnswersWithWhatTheDatabaseDid() throws Exception {
    JdbcPoolStore a = new JdbcPoolStore(url(), properties(), "node-a", Duration.ofSeconds(30), Duration.ofHours(1),
        Duration.ofMillis(300));
    stores.add(a);
    get(a.declare(List.of(new Limit("p", 1, 0, null))));
    try (Connection lock = DriverManager.getConnection(url(), properties())) {
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        s.executeQuery("SELECT name FROM almanac_pool WHERE name = 'p' FOR UPDATE").close();
      }
      CompletableFuture<Answer> asked = a.acquire(List.of("p"), "t", "1").toCompletableFuture();
      // past twice the operation timeout, within the statement's query timeout (1 s): still waiting for the row
      assertThrows(java.util.concurrent.TimeoutException.class, () -> asked.get(700, TimeUnit.MILLISECONDS),
          "the store does not give up before the database answers");
      lock.commit();
      assertTrue(get(asked).admitted(), "the answer is what the database committed");
    }
    assertEquals(1, get(a.inUse()).get("p"));
    get(a.release("t", "1"));
    assertEquals(0, get(a.inUse()).get("p"));
  }

  @Test
  @DisplayName("a closed store stops renewing and deletes none of its holds (a job still running keeps its place): "
      + "they expire with their TTL")
  void closeKeepsTheHolds() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("p", 1, 0, null));
    get(a.declare(limits));
    get(b.declare(limits));
    assertTrue(get(a.acquire(List.of("p"), "t", "1")).admitted());
    a.close();
    assertEquals(1, get(b.inUse()).get("p"), "the hold stays after close");
    assertEquals(PoolWaitReason.FULL, get(b.acquire(List.of("p"), "u", "1")).reason());
    sql("UPDATE almanac_pool_hold SET expires_at = " + JdbcPoolStore.NOW_MS + " - 1 WHERE node = 'node-a'"); // hold-ttl passes
    assertTrue(get(b.acquire(List.of("p"), "u", "1")).admitted());
  }

  @Test
  @DisplayName("a dead node's holds stop counting once expired; a renewal extends only the renewing node's")
  void deadNodesHoldsExpire() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("p", 2, 0, null));
    get(a.declare(limits));
    get(b.declare(limits));
    assertTrue(get(a.acquire(List.of("p"), "t", "1")).admitted());
    assertTrue(get(a.acquire(List.of("p"), "t", "2")).admitted());
    assertEquals(PoolWaitReason.FULL, get(b.acquire(List.of("p"), "u", "1")).reason());
    // node-a is killed: it renews no more, and hold-ttl passes by the database's clock
    sql("UPDATE almanac_pool_hold SET expires_at = " + JdbcPoolStore.NOW_MS + " - 1 WHERE node = 'node-a'");
    assertEquals(0, get(b.inUse()).get("p"));
    assertTrue(get(b.acquire(List.of("p"), "u", "1")).admitted());
    assertEquals(1, get(b.renew()), "one statement renews the node's holds");
    assertEquals(1, get(b.inUse()).get("p"));
  }

  @Test
  @DisplayName("a restarted node deletes the holds of its earlier life when it declares its pools")
  void earlierLifeHoldsDeleted() throws Exception {
    JdbcPoolStore first = store("node-a");
    List<Limit> limits = List.of(new Limit("p", 1, 0, null));
    get(first.declare(limits));
    assertTrue(get(first.acquire(List.of("p"), "t", "1")).admitted());
    JdbcPoolStore again = store("node-a"); // same node, new incarnation (kill -9 and restart)
    assertEquals(PoolWaitReason.FULL, get(again.acquire(List.of("p"), "t", "2")).reason());
    get(again.declare(limits));
    assertTrue(get(again.acquire(List.of("p"), "t", "2")).admitted());
  }

  @Test
  @DisplayName("rate: N starts per period, then RATE with the time until the oldest of them is a period ago")
  void rate() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("r", 100, 2, Duration.ofHours(1)));
    get(a.declare(limits));
    get(b.declare(limits));
    assertTrue(get(a.acquire(List.of("r"), "t", "1")).admitted());
    assertTrue(get(b.acquire(List.of("r"), "t", "2")).admitted());
    Answer third = get(a.acquire(List.of("r"), "t", "3"));
    assertFalse(third.admitted());
    assertEquals(PoolWaitReason.RATE, third.reason());
    assertNotNull(third.retryAfter());
    assertTrue(third.retryAfter().compareTo(Duration.ofMinutes(59)) > 0
        && third.retryAfter().compareTo(Duration.ofMinutes(60).plusSeconds(1)) <= 0,
        "the next start once the first is an hour old: " + third.retryAfter());
    passes(Duration.ofHours(1).plusMillis(1)); // by the database's clock
    assertTrue(get(b.acquire(List.of("r"), "t", "3")).admitted());
  }

  /** Time passes for the pools' recorded starts: each is moved back by {@code d}, as the database's clock would move on. */
  void passes(Duration d) throws Exception {
    sql("UPDATE almanac_pool_start SET started_at = started_at - " + d.toMillis());
  }

  /** @return the start rows the store keeps for the pool */
  int startRows(String pool) throws Exception {
    try (Connection c = DriverManager.getConnection(url(), properties()); Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM almanac_pool_start WHERE pool = '" + pool + "'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  @DisplayName("rate 4 per hour across two nodes, after an idle spell: 4 starts, then none until the first is an hour "
      + "old (a token bucket would have let 3 more in after 45 minutes); the store keeps at most N starts")
  void rateIsASlidingWindowAcrossNodes() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("r", 100, 4, Duration.ofHours(1)));
    get(a.declare(limits));
    get(b.declare(limits));
    for (int round = 0; round < 3; round++) {
      int admitted = 0;
      for (int i = 0; i < 10; i++) { // a burst from both nodes
        JdbcPoolStore node = i % 2 == 0 ? a : b;
        String w = round + "-" + i;
        Answer answer = get(node.acquire(List.of("r"), "t", w));
        if (answer.admitted()) {
          admitted++;
          get(node.release("t", w));
        } else {
          assertEquals(PoolWaitReason.RATE, answer.reason());
        }
      }
      assertEquals(4, admitted, "round " + round);
      assertTrue(startRows("r") <= 4, "at most N starts kept: " + startRows("r"));
      passes(Duration.ofMinutes(45));
      Answer later = get(a.acquire(List.of("r"), "t", round + "-late"));
      assertEquals(PoolWaitReason.RATE, later.reason(), "45 minutes later, 4 starts are still within the hour");
      assertTrue(later.retryAfter().compareTo(Duration.ofMinutes(14)) > 0
          && later.retryAfter().compareTo(Duration.ofMinutes(15).plusSeconds(1)) <= 0, later.toString());
      passes(Duration.ofHours(2)); // an idle spell
    }
  }

  @Test
  @DisplayName("a pools' table of an earlier version (a token bucket's columns, kept for its nodes) takes the sliding window's "
      + "schema at declare, and its pools admit")
  void earlierSchemaUpgraded() throws Exception {
    sql("CREATE TABLE almanac_pool (name VARCHAR(100) NOT NULL PRIMARY KEY, max_concurrent INT NOT NULL,"
        + " rate_permits INT NOT NULL, rate_per_ms BIGINT NOT NULL, tokens DOUBLE PRECISION NOT NULL,"
        + " refilled_at BIGINT NOT NULL, paused_until BIGINT)");
    sql("INSERT INTO almanac_pool VALUES ('old', 1, 1, 3600000, 0.0, 0, NULL)");
    JdbcPoolStore a = store("node-a");
    get(a.declare(List.of(new Limit("old", 2, 1, Duration.ofHours(1)), new Limit("new", 1, 0, null))));
    assertTrue(get(a.acquire(List.of("old"), "t", "1")).admitted());
    assertEquals(PoolWaitReason.RATE, get(a.acquire(List.of("old"), "t", "2")).reason());
    assertTrue(get(a.acquire(List.of("new"), "t", "3")).admitted());
    // a node of the earlier version, still running during a rolling upgrade, keeps its columns
    sql("UPDATE almanac_pool SET tokens = 0.5, refilled_at = 1 WHERE name = 'old'");
    JdbcPoolStore b = store("node-b"); // a second start alters nothing more and still admits
    get(b.declare(List.of(new Limit("old", 2, 1, Duration.ofHours(1)), new Limit("new", 1, 0, null))));
    assertEquals(PoolWaitReason.RATE, get(b.acquire(List.of("old"), "t", "4")).reason());
  }

  @Test
  @DisplayName("pause: a paused pool admits nothing on any node until the pause ends; other pools are not paused")
  void pause() throws Exception {
    JdbcPoolStore a = store("node-a");
    JdbcPoolStore b = store("node-b");
    List<Limit> limits = List.of(new Limit("p", 5, 0, null), new Limit("q", 5, 0, null));
    get(a.declare(limits));
    get(b.declare(limits));
    get(a.pause("p", Duration.ofMinutes(10)));
    Answer refused = get(b.acquire(List.of("p"), "t", "1"));
    assertEquals(PoolWaitReason.PAUSED, refused.reason());
    assertTrue(refused.retryAfter().compareTo(Duration.ofMinutes(9)) > 0, refused.toString());
    get(b.pause("p", Duration.ofSeconds(1))); // a shorter pause does not shorten it
    assertEquals(PoolWaitReason.PAUSED, get(a.acquire(List.of("p"), "t", "1")).reason());
    assertTrue(get(a.acquire(List.of("q"), "t", "1")).admitted());
    sql("UPDATE almanac_pool SET paused_until = " + JdbcPoolStore.NOW_MS + " - 1 WHERE name = 'p'");
    assertTrue(get(b.acquire(List.of("p"), "t", "2")).admitted());
  }

  @Test
  @DisplayName("R33: a pause of Duration's maximum or of 9,999,999,999 s (a job's result past its bound) is stored "
      + "saturated: the pool answers PAUSED with a wait that fits, the store goes on answering for every pool")
  void overflowingPauseSaturates() throws Exception {
    JdbcPoolStore a = store("node-a");
    List<Limit> limits = List.of(new Limit("p", 5, 0, null), new Limit("q", 5, 0, null), new Limit("r", 5, 0, null));
    get(a.declare(limits));
    get(a.pause("p", java.time.temporal.ChronoUnit.FOREVER.getDuration()));
    get(a.pause("r", Duration.ofSeconds(9_999_999_999L)));
    for (String pool : List.of("p", "r")) {
      Answer refused = get(a.acquire(List.of(pool), "t", "1"));
      assertEquals(PoolWaitReason.PAUSED, refused.reason(), refused.toString());
      assertTrue(refused.retryAfter().compareTo(Duration.ofDays(365L * 300)) > 0, refused.toString());
      io.almanac.spi.Saturating.plus(java.time.Instant.now(), refused.retryAfter()); // fits an instant, as the executor adds it
    }
    assertTrue(get(a.acquire(List.of("q"), "t", "1")).admitted(), "the other pools are not touched");
  }

  @Test
  @DisplayName("several pools: all or none (a full one takes nothing from the others)")
  void allOrNone() throws Exception {
    JdbcPoolStore a = store("node-a");
    get(a.declare(List.of(new Limit("a", 5, 0, null), new Limit("b", 1, 0, null))));
    assertTrue(get(a.acquire(List.of("b"), "t", "0")).admitted());
    Answer refused = get(a.acquire(List.of("a", "b"), "t", "1"));
    assertEquals("b", refused.pool());
    assertEquals(0, get(a.inUse()).get("a"));
  }

  @Test
  @DisplayName("cost: one admission and its release, measured")
  void admissionCost() throws Exception {
    JdbcPoolStore a = store("node-a");
    get(a.declare(List.of(new Limit("m", 1000, 0, null), new Limit("mr", 1000, 1_000_000, Duration.ofSeconds(1)))));
    for (String pool : List.of("m", "mr")) {
      int n = 300;
      for (int i = 0; i < 50; i++) { // warm-up
        get(a.acquire(List.of(pool), "w", "x" + i));
        get(a.release("w", "x" + i));
      }
      long acquire = 0;
      long release = 0;
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        assertTrue(get(a.acquire(List.of(pool), "t", "w" + i)).admitted());
        long t1 = System.nanoTime();
        get(a.release("t", "w" + i));
        release += System.nanoTime() - t1;
        acquire += t1 - t0;
      }
      System.out.printf("pool store %s, pool %s: acquire %.0f us, release %.0f us per attempt (mean of %d)%n", label(),
          pool.equals("m") ? "without rate" : "with rate", acquire / 1000.0 / n, release / 1000.0 / n, n);
    }
  }
}

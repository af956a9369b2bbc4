package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Queries and retention on whichever database the system's configuration names: rows inserted
 * directly (3 tasks x 60 windows, every status), pages compared with the same selection done in
 * memory, for every kind of filter and several page sizes; retention with a SettableClock in
 * batches, the history still queryable.
 */
public final class InstanceQueriesScenarios {

  private InstanceQueriesScenarios() {}

  private static final Instant T0 = Instant.parse("2026-09-01T00:00:00Z");
  private static final InstanceStatus[] STATUSES = InstanceStatus.values();

  static List<InstanceRow> rows() {
    List<InstanceRow> out = new ArrayList<>();
    int n = 0;
    for (String task : List.of("t1", "t2", "t3")) {
      for (int i = 0; i < 60; i++) {
        Instant start = T0.plus(Duration.ofHours(6L * i));
        InstanceStatus s = STATUSES[(n++) % STATUSES.length];
        Instant updated = start.plus(Duration.ofMinutes(task.equals("t2") ? 30 : 10));
        out.add(new InstanceRow(task, String.format("w%03d", i), start, start.plus(Duration.ofHours(6)), s, 1, 0, 3,
            RunKind.FIRST, s == InstanceStatus.SUCCEEDED ? "ok" : null, s == InstanceStatus.FAILED ? "boom" : null, start,
            start.plusSeconds(1), null, start, updated, i + 1, null));
      }
    }
    return out;
  }

  private static final Comparator<InstanceRow> ORDER = Comparator.comparing(InstanceRow::windowStart)
      .thenComparing(InstanceRow::taskId).thenComparing(InstanceRow::windowKey);

  private static List<InstanceRow> pages(Connection c, InstanceFilter.Builder f, int limit) throws Exception {
    List<InstanceRow> out = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      InstancePage p = InstanceQueries.find(c, f.limit(limit).after(after).build());
      assertTrue(p.rows().size() <= limit);
      if (p.next() != null) {
        assertEquals(limit, p.rows().size(), "only the last page is short");
      }
      out.addAll(p.rows());
      after = p.next();
      assertTrue(++pages < 1000);
    } while (after != null);
    return out;
  }

  private static final Comparator<InstanceRow> BY_UPDATED = Comparator.comparing(InstanceRow::updatedAt)
      .thenComparing(InstanceRow::taskId).thenComparing(InstanceRow::windowKey);

  private static void check(Connection c, List<InstanceRow> all, String what, InstanceFilter.Builder f, Predicate<InstanceRow> p)
      throws Exception {
    check(c, all, what, f, p, ORDER);
  }

  private static void check(Connection c, List<InstanceRow> all, String what, InstanceFilter.Builder f, Predicate<InstanceRow> p,
      Comparator<InstanceRow> order) throws Exception {
    List<InstanceRow> expected = all.stream().filter(p).sorted(order).toList();
    List<InstanceRow> newestFirst = all.stream().filter(p).sorted(order.reversed()).toList();
    for (int limit : new int[] {1, 7, 500}) {
      assertEquals(expected, pages(c, f, limit), what + ", limit " + limit);
      // descending: the same rows newest first, page after page across the cursor
      assertEquals(newestFirst, pages(c, f.descending(true), limit), what + ", descending, limit " + limit);
      f.descending(false);
    }
  }

  /**
   * @param system an ActorSystem on the database (the tables empty or missing)
   */
  public static void queriesAndRetention(ActorSystem<?> system) throws Exception {
    SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(30));
    InstanceStore store = InstanceStore.of(system.settings().config());
    List<InstanceRow> all = rows();
    Instant from = T0.plus(Duration.ofDays(3));
    Instant to = T0.plus(Duration.ofDays(9));
    Set<InstanceStatus> some = EnumSet.of(InstanceStatus.FAILED, InstanceStatus.FINAL_FAILED, InstanceStatus.SKIPPED);
    try (JournalDb db = JournalDb.of(system); Connection c = db.connect()) {
      store.truncate(c);
      store.insert(c, all);
      check(c, all, "everything", InstanceFilter.builder(), r -> true);
      check(c, all, "one task", InstanceFilter.builder().task("t2"), r -> r.taskId().equals("t2"));
      check(c, all, "one status", InstanceFilter.builder().status(InstanceStatus.SUCCEEDED),
          r -> r.status() == InstanceStatus.SUCCEEDED);
      check(c, all, "three statuses", InstanceFilter.builder().statuses(some), r -> some.contains(r.status()));
      check(c, all, "a range", InstanceFilter.builder().from(from).to(to),
          r -> !r.windowStart().isBefore(from) && r.windowStart().isBefore(to));
      check(c, all, "task, status and range", InstanceFilter.builder().task("t1").status("failed").from(from).to(to),
          r -> r.taskId().equals("t1") && r.status() == InstanceStatus.FAILED && !r.windowStart().isBefore(from)
              && r.windowStart().isBefore(to));
      check(c, all, "statuses and range", InstanceFilter.builder().statuses(some).from(from).to(to),
          r -> some.contains(r.status()) && !r.windowStart().isBefore(from) && r.windowStart().isBefore(to));
      check(c, all, "an unknown task", InstanceFilter.builder().task("nobody"), r -> false);
      // by last change: t1 and t3 changed 10 minutes after their start, t2 30 (ties broken by task, then window)
      Instant uFrom = from.plus(Duration.ofMinutes(20));
      Instant uTo = to.plus(Duration.ofMinutes(20));
      check(c, all, "by last change", InstanceFilter.builder().byUpdated(true).from(uFrom).to(uTo),
          r -> !r.updatedAt().isBefore(uFrom) && r.updatedAt().isBefore(uTo), BY_UPDATED);
      check(c, all, "by last change, statuses and task", InstanceFilter.builder().byUpdated(true).from(uFrom).to(uTo)
          .statuses(some).task("t2"), r -> r.taskId().equals("t2") && some.contains(r.status())
          && !r.updatedAt().isBefore(uFrom) && r.updatedAt().isBefore(uTo), BY_UPDATED);
      check(c, all, "by last change, one status", InstanceFilter.builder().byUpdated(true).from(uFrom).to(uTo)
          .status(InstanceStatus.SUCCEEDED), r -> r.status() == InstanceStatus.SUCCEEDED
          && !r.updatedAt().isBefore(uFrom) && r.updatedAt().isBefore(uTo), BY_UPDATED);
      assertEquals(all.get(5), store.row(c, all.get(5).taskId(), all.get(5).windowKey(), false).orElseThrow());

      // Retention, in batches of 7, by a settable clock.
      SettableClock clock = new SettableClock(T0.plus(Duration.ofDays(5)));
      RetentionRule rule = new RetentionRule(Duration.ofDays(2));
      List<InstanceRow> due = all.stream().filter(r -> rule.due(r, clock.instant())).sorted(ORDER).toList();
      assertTrue(due.size() > 7, "more than one batch: " + due.size());
      assertEquals(due.size(), Retention.run(c, store, "test", rule, clock.instant(), 7));
      assertEquals(0, Retention.run(c, store, "test", rule, clock.instant(), 7), "nothing left to move");
      List<InstanceRow> history = pages(c, InstanceFilter.builder().history(true), 7);
      assertEquals(due, history.stream().map(InstanceRow::live).toList());
      assertTrue(history.stream().allMatch(r -> clock.instant().equals(r.movedAt())));
      List<InstanceRow> left = all.stream().filter(r -> !rule.due(r, clock.instant())).sorted(ORDER).toList();
      assertEquals(left, pages(c, InstanceFilter.builder(), 500));
      check(c, left, "live after retention", InstanceFilter.builder().status(InstanceStatus.SUCCEEDED),
          r -> r.status() == InstanceStatus.SUCCEEDED);
      assertEquals(due.stream().filter(r -> r.taskId().equals("t3") && r.status() == InstanceStatus.SKIPPED).toList(),
          pages(c, InstanceFilter.builder().history(true).task("t3").status(InstanceStatus.SKIPPED), 2).stream()
              .map(InstanceRow::live).toList());
      // A day later, the rows that have become due move too; FINAL_FAILED ones never.
      clock.set(clock.instant().plus(Duration.ofDays(1)));
      long more = all.stream().filter(r -> rule.due(r, clock.instant())).count() - due.size();
      assertEquals(more, Retention.run(c, store, "test", rule, clock.instant(), 7));
      clock.set(clock.instant().plus(Duration.ofDays(1000)));
      Retention.run(c, store, "test", rule, clock.instant(), 7);
      assertTrue(pages(c, InstanceFilter.builder(), 500).stream().noneMatch(r -> RetentionRule.STATUSES.contains(r.status())));
      assertTrue(pages(c, InstanceFilter.builder().status(InstanceStatus.FINAL_FAILED), 500).size() > 0);
      assertNull(store.row(c, "t1", "nowhere", false).orElse(null));
      store.truncate(c);
    }
  }
}

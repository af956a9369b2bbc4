package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The executor's admission rules, one test each; entities are plain strings, time is passed in. */
class AdmissionTest {
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final List<Duration> NONE_RUNNING = List.of();

  private final List<String> watchLog = new ArrayList<>();

  private static ExecutorSettings settings(int maxConcurrent, int perTask, int prefetchPerSlot, double backlogRate,
      int backlogBurst, double perTaskRate, int perTaskBurst) {
    return new ExecutorSettings(maxConcurrent, perTask, prefetchPerSlot, Duration.ofSeconds(1), backlogRate, backlogBurst,
        perTaskRate, perTaskBurst, Duration.ofMillis(50), Duration.ofSeconds(5), 3, Duration.ofMillis(100),
        Duration.ofSeconds(10), Duration.ofSeconds(30), 10, "");
  }

  private Admission<String> admission(ExecutorSettings settings) {
    return new Admission<>(settings, T0, new Admission.Watch<>() {
      @Override
      public void watch(String task) {
        watchLog.add("watch " + task);
      }

      @Override
      public void unwatch(String task) {
        watchLog.add("unwatch " + task);
      }
    });
  }

  private Admission<String> twoSlots() {
    return admission(settings(2, 10, 0, 1000, 1000, 1000, 1000));
  }

  private static List<String> windows(List<Admission.Offered<String>> admitted) {
    return admitted.stream().map(Admission.Offered::window).toList();
  }

  private static Admission.Ready ready(String taskId, String window, int attempt, Instant leaseUntil) {
    return new Admission.Ready(new AttemptItem(taskId, window, "j", RunKind.FIRST, "UTC"),
        new TaskProtocol.AttemptGrant(taskId, window, attempt, RunKind.FIRST, leaseUntil, T0, T0, T0, Map.of(), List.of(),
            "e"));
  }

  @Test
  void admitsQueuedWindowsOnlyIntoFreeSlots() {
    Admission<String> a = twoSlots();
    for (String w : List.of("w1", "w2", "w3")) {
      assertEquals(Admission.OfferDecision.QUEUED, a.offer("t-" + w, w, RunKind.FIRST, "e-" + w, false));
    }
    assertEquals(List.of("w1", "w2"), windows(a.admit(NONE_RUNNING, T0)));
    assertTrue(a.isQueued("t-w3|w3"), "the third waits for a slot");
    assertEquals(List.of(), windows(a.admit(NONE_RUNNING, T0)), "two reserved slots: no room");
  }

  @Test
  void atMaxPendingResultsNothingIsAdmittedOrTakenIntoASlot() {
    ExecutorSettings s = new ExecutorSettings(2, 10, 0, Duration.ofSeconds(1), 3, 1000, 1000, 1000, 1000,
        Duration.ofMillis(50), Duration.ofSeconds(5), 3, Duration.ofMillis(100), Duration.ofSeconds(10),
        Duration.ofSeconds(30), 10, "");
    Admission<String> a = admission(s);
    for (String w : List.of("w1", "w2")) {
      a.offer("t-" + w, w, RunKind.FIRST, "e-" + w, false);
    }
    assertEquals(List.of(), windows(a.admit(NONE_RUNNING, 3, T0)), "3 results pending: the bound");
    assertTrue(a.resultsFull(3));
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, 2, T0)),
        "below it: the slots the results leave usable (2 pending + 1 to come = the bound)");
    assertEquals(List.of("w2"), windows(a.admit(NONE_RUNNING, 0, T0)), "none pending: both slots");
    assertTrue(a.slotFree(0, 2));
    assertFalse(a.slotFree(1, 2), "a job in its slot is a result to come: 1 + 2 reaches the bound");
    assertFalse(a.slotFree(2, 0), "max-concurrent");
    assertTrue(a.slotFree(1, 0));
    assertEquals(8, settings(2, 10, 0, 1000, 1000, 1000, 1000).maxPendingResults(), "default: 4 x max-concurrent");
  }

  @Test
  void runningJobsHoldTheirSlots() {
    Admission<String> a = twoSlots();
    a.offer("t", "w1", RunKind.FIRST, "e", false);
    assertEquals(List.of(), windows(a.admit(List.of(Duration.ofSeconds(5), Duration.ofSeconds(5)), T0)));
    assertEquals(List.of("w1"), windows(a.admit(List.of(Duration.ofSeconds(5)), T0)));
  }

  @Test
  void anOfferOfAnAdmittedWindowIsIgnored() {
    Admission<String> a = twoSlots();
    a.offer("t", "w", RunKind.FIRST, "e", false);
    a.admit(NONE_RUNNING, T0);
    assertEquals(Admission.OfferDecision.ADMITTED_ALREADY, a.offer("t", "w", RunKind.FIRST, "e", false));
  }

  @Test
  void anOfferOfAWindowWaitingForASlotIsIgnored() {
    Admission<String> a = twoSlots();
    a.ready(ready("t", "w", 1, T0.plusSeconds(30)));
    assertEquals(Admission.OfferDecision.ADMITTED_ALREADY, a.offer("t", "w", RunKind.FIRST, "e", false));
  }

  @Test
  void theSameEntityOfferingAQueuedWindowAgainIsToldItIsQueued() {
    Admission<String> a = twoSlots();
    a.offer("t", "w", RunKind.FIRST, "e", false);
    assertEquals(Admission.OfferDecision.QUEUED_ALREADY, a.offer("t", "w", RunKind.FIRST, "e", false));
    assertEquals(1, a.queuedFresh(), "queued once");
  }

  @Test
  void aNewIncarnationsOfferReplacesTheQueuedOne() {
    Admission<String> a = twoSlots();
    a.offer("t", "w", RunKind.FIRST, "old", false);
    assertEquals(Admission.OfferDecision.QUEUED, a.offer("t", "w", RunKind.FIRST, "new", false));
    assertEquals(List.of("watch old", "unwatch old", "watch new"), watchLog);
    assertEquals(1, a.queuedFresh());
  }

  @Test
  void nothingIsQueuedWhileDraining() {
    Admission<String> a = twoSlots();
    assertEquals(Admission.OfferDecision.NOT_WHILE_DRAINING, a.offer("t", "w", RunKind.FIRST, "e", true));
    assertFalse(a.isQueued("t|w"));
    assertEquals(List.of(), watchLog);
  }

  @Test
  void freshWindowsGoBeforeTheBacklog() {
    Admission<String> a = admission(settings(1, 10, 0, 1000, 1000, 1000, 1000));
    a.offer("t", "retry", RunKind.RETRY, "e", false);
    a.offer("t", "backfill", RunKind.BACKFILL, "e", false);
    a.offer("t", "manual", RunKind.MANUAL, "e", false);
    a.offer("t", "first", RunKind.FIRST, "e", false);
    assertEquals(2, a.queuedFresh());
    assertEquals(2, a.queuedBacklog());
    List<String> order = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      List<Admission.Offered<String>> next = a.admit(NONE_RUNNING, T0);
      order.addAll(windows(next));
      a.endReservation(next.get(0).key());
      a.release("t");
    }
    assertEquals(List.of("manual", "first", "retry", "backfill"), order);
  }

  @Test
  void thePerTaskLimitHoldsBackATasksFurtherWindowsButNotOtherTasks() {
    Admission<String> a = admission(settings(4, 1, 0, 1000, 1000, 1000, 1000));
    a.offer("busy", "w1", RunKind.FIRST, "e", false);
    a.offer("busy", "w2", RunKind.FIRST, "e", false);
    a.offer("other", "w3", RunKind.FIRST, "f", false);
    assertEquals(List.of("w1", "w3"), windows(a.admit(NONE_RUNNING, T0)));
    assertTrue(a.isQueued("busy|w2"));
  }

  @Test
  void aReleasedTaskHasRoomAgain() {
    Admission<String> a = admission(settings(4, 1, 0, 1000, 1000, 1000, 1000));
    a.offer("t", "w1", RunKind.FIRST, "e", false);
    a.offer("t", "w2", RunKind.FIRST, "e", false);
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, T0)));
    assertTrue(a.endReservation("t|w1"));
    a.release("t");
    assertEquals(List.of("w2"), windows(a.admit(NONE_RUNNING, T0)));
  }

  @Test
  void aStartWhoseReservationWasFreedCountsForItsTaskAllTheSame() {
    Admission<String> a = admission(settings(4, 1, 0, 1000, 1000, 1000, 1000));
    a.countUnreserved("t");
    a.offer("t", "w2", RunKind.FIRST, "e", false);
    assertEquals(List.of(), windows(a.admit(NONE_RUNNING, T0)));
  }

  @Test
  void theBacklogStartsAtTheOverallRateAndRefillsWithTime() {
    Admission<String> a = admission(settings(10, 10, 0, 1, 1, 1000, 1000));
    a.offer("a", "w1", RunKind.RETRY, "e", false);
    a.offer("b", "w2", RunKind.RETRY, "f", false);
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, T0)), "a burst of one");
    assertEquals(List.of(), windows(a.admit(List.of(), T0.plusMillis(500))), "half a token");
    assertEquals(List.of("w2"), windows(a.admit(List.of(), T0.plusSeconds(1))), "one token a second");
  }

  @Test
  void theBacklogStartsAtEachTasksRate() {
    Admission<String> a = admission(settings(10, 10, 0, 1000, 1000, 1, 1));
    a.offer("a", "w1", RunKind.BACKFILL, "e", false);
    a.offer("a", "w2", RunKind.BACKFILL, "e", false);
    a.offer("b", "w3", RunKind.BACKFILL, "f", false);
    assertEquals(List.of("w1", "w3"), windows(a.admit(NONE_RUNNING, T0)), "task a's second waits for its token");
    assertEquals(List.of("w2"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(1))));
  }

  @Test
  void freshWindowsAreNotRateLimited() {
    Admission<String> a = admission(settings(10, 10, 0, 1, 1, 1, 1));
    for (int i = 0; i < 3; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(3, a.admit(NONE_RUNNING, T0).size());
  }

  @Test
  void aReservationEndsOnceWhenItsEntityAnswers() {
    Admission<String> a = twoSlots();
    a.offer("t", "w", RunKind.FIRST, "e", false);
    a.admit(NONE_RUNNING, T0);
    assertTrue(a.endReservation("t|w"));
    assertFalse(a.endReservation("t|w"), "answered twice, or after its entity restarted");
    assertEquals(List.of("watch e", "unwatch e"), watchLog);
  }

  @Test
  void startedAttemptsWaitForASlotInTheOrderTheyStarted() {
    Admission<String> a = twoSlots();
    a.ready(ready("t", "w1", 1, T0.plusSeconds(30)));
    a.ready(ready("t", "w2", 1, T0.plusSeconds(30)));
    assertEquals(2, a.readyCount());
    assertEquals("w1", a.pollReady().item().window());
    assertEquals("w2", a.pollReady().item().window());
    assertNull(a.pollReady());
    assertTrue(a.noneAdmitted());
  }

  @Test
  void waitingAttemptsCountAgainstTheRoom() {
    Admission<String> a = twoSlots();
    a.ready(ready("x", "r1", 1, T0.plusSeconds(30)));
    a.ready(ready("x", "r2", 1, T0.plusSeconds(30)));
    a.offer("t", "w", RunKind.FIRST, "e", false);
    assertEquals(List.of(), windows(a.admit(NONE_RUNNING, T0)));
  }

  /**
   * A node that has seen 32 slot takes, one every {@code gap} up to {@code now}, and 16 slot holds of
   * {@code hold} by jobs of 1 ms (the rest of the hold: their results' writes).
   */
  private static void paced(Admission<String> a, Duration hold, Duration gap, Instant now) {
    for (int i = 0; i < 16; i++) {
      a.jobEnded(Duration.ofMillis(1), hold);
    }
    for (int i = 32; i > 0; i--) {
      a.slotTaken(now.minus(gap.multipliedBy(i - 1)));
    }
  }

  @Test
  void admitsAheadOfTheSlotsWhileSlotsAreHeldBriefly() {
    // 2 slots, prefetch-per-slot 3: at most 6 ahead; the slots take one attempt a millisecond and a
    // slot is held 10 ms, so they take 10 in one job time: the bound (6) decides
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofMillis(10), Duration.ofMillis(1), T0);
    for (int i = 0; i < 20; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(2 + 6, a.admit(NONE_RUNNING, T0).size(), "the slots and the prefetch's bound, max-concurrent x 3");
    assertEquals(6, a.prefetchBound());
  }

  @Test
  void admitsAheadOnlyWhatTheSlotsTakeInOneJobTime() {
    // the slots take one attempt every 5 ms and a slot is held 10 ms: 2 are taken in one job time
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofMillis(10), Duration.ofMillis(5), T0);
    for (int i = 0; i < 20; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(2 + 2, a.admit(NONE_RUNNING, T0).size(), "the slots and what they take in one job time");
  }

  @Test
  void admitsNothingAheadBeforeAFullRingOfSlotHolds() {
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    for (int i = 0; i < 15; i++) {
      a.jobEnded(Duration.ofMillis(10), Duration.ofMillis(10));
    }
    for (int i = 0; i < 32; i++) {
      a.slotTaken(T0);
    }
    for (int i = 0; i < 10; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(2, a.admit(NONE_RUNNING, T0).size());
  }

  @Test
  void admitsNothingAheadWhileAJobRunsLong() {
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofMillis(10), Duration.ofMillis(1), T0);
    for (int i = 0; i < 10; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(1, a.admit(List.of(Duration.ofSeconds(2)), T0).size(), "one free slot, nothing ahead");
  }

  @Test
  void theStartsRoundTripIsOneJobTimeWhenItIsTheLonger() {
    // millisecond slot holds, but a start takes 20 ms to come back from its entity: the slots, about
    // one take a millisecond, take about 20 in that time; the bound is 8 x 4 = 32
    Admission<String> a = admission(settings(8, 100, 4, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofMillis(1), Duration.ofMillis(1), T0);
    assertEquals(1, a.ahead(NONE_RUNNING, T0), "one take in one 1 ms hold");
    for (int i = 0; i < 16; i++) {
      a.offer("t" + i, "w", RunKind.FIRST, "e", false);
    }
    List<Admission.Offered<String>> admitted = a.admit(NONE_RUNNING, T0);
    for (Admission.Offered<String> o : admitted) {
      a.endReservation(o.key(), T0.plusMillis(20));
    }
    assertEquals(21, a.ahead(NONE_RUNNING, T0), "32 takes in 31 ms x 20 ms");
  }

  @Test
  void aSlowResultWriteDoesNotTurnThePrefetchOff() {
    // 1 ms jobs whose results take 2 s to be written (a journal under load): the slots are held 2 s
    // each, they take 4 a second, and a start comes back after 2 s too: 8 in one job time
    Admission<String> a = admission(settings(8, 100, 4, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofSeconds(2), Duration.ofMillis(250), T0);
    assertEquals(8, a.ahead(List.of(Duration.ofMillis(1)), T0), "32 takes in 7.75 s x 2 s");
  }

  @Test
  void theSlotsPaceDecaysWhenNothingIsTaken() {
    Admission<String> a = admission(settings(8, 100, 4, 1000, 1000, 1000, 1000));
    paced(a, Duration.ofMillis(10), Duration.ofMillis(1), T0);
    assertEquals(10, a.ahead(NONE_RUNNING, T0));
    assertEquals(1, a.ahead(NONE_RUNNING, T0.plusMillis(500)), "32 takes in 531 ms: under one take per 10 ms");
  }

  @Test
  void thePrefetchRuleIsPure() {
    List<Duration> ms10 = Collections.nCopies(16, Duration.ofMillis(10));
    List<Instant> everyMs = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      everyMs.add(T0.minusMillis(i));
    }
    List<Duration> noTrips = Collections.nCopies(16, null);
    Duration second = Duration.ofSeconds(1);
    assertEquals(10, JobPace.ahead(8, 4, second, ms10, List.of(), ms10, noTrips, everyMs, T0),
        "32 takes in 31 ms x 10 ms");
    assertEquals(0, JobPace.ahead(8, 4, second, ms10, List.of(second), ms10, noTrips, everyMs, T0),
        "a job running 1 s (prefetch-max-job): none");
    List<Instant> notFull = new ArrayList<>(everyMs);
    notFull.set(3, null);
    assertEquals(0, JobPace.ahead(8, 4, second, ms10, List.of(), ms10, noTrips, notFull, T0), "before 32 takes: none");
    assertEquals(32, JobPace.ahead(8, 4, second, ms10, List.of(), Collections.nCopies(16, Duration.ofMillis(900)), noTrips,
        everyMs, T0), "long holds at a fast pace: the bound, max-concurrent x prefetch-per-slot");
    assertEquals(0, JobPace.ahead(8, 0, second, ms10, List.of(), ms10, noTrips, everyMs, T0), "prefetch-per-slot 0: off");
    assertEquals(8, JobPace.ahead(8, 1, second, ms10, List.of(), ms10, noTrips, everyMs, T0), "at most max-concurrent x 1");
  }

  @Test
  void aCancelOfAWaitingAttemptIsFencedByItsAttemptNumber() {
    Admission<String> a = admission(settings(2, 1, 0, 1000, 1000, 1000, 1000));
    a.countUnreserved("t");
    a.ready(ready("t", "w", 2, T0.plusSeconds(30)));
    assertFalse(a.cancelReady("t", "w", 1), "an older attempt's cancel");
    assertEquals(1, a.readyCount());
    assertTrue(a.cancelReady("t", "w", 2));
    assertEquals(0, a.readyCount());
    a.offer("t", "w2", RunKind.FIRST, "e", false);
    assertEquals(List.of("w2"), windows(a.admit(NONE_RUNNING, T0)), "its task's count released");
  }

  @Test
  void aLeaseHasEndedAtItsInstant() {
    assertFalse(Admission.leaseEnded(T0, T0.minusNanos(1)));
    assertTrue(Admission.leaseEnded(T0, T0));
    assertTrue(Admission.leaseEnded(T0, T0.plusSeconds(1)));
  }

  @Test
  void waitingAttemptsWhoseLeaseEndedAreTakenOff() {
    Admission<String> a = twoSlots();
    Admission.Ready soon = ready("t", "soon", 1, T0.plusSeconds(1));
    a.ready(soon);
    a.ready(ready("t", "later", 1, T0.plusSeconds(30)));
    assertEquals(List.of(), a.takeExpired(T0));
    assertEquals(List.of(soon), a.takeExpired(T0.plusSeconds(1)));
    assertEquals(1, a.readyCount());
    assertEquals(Admission.OfferDecision.QUEUED, a.offer("t", "soon", RunKind.RETRY, "e", false),
        "its window may be offered again");
  }

  @Test
  void forgettingAnEntityFreesItsReservationsAndDropsItsQueuedOffers() {
    Admission<String> a = admission(settings(1, 10, 0, 1000, 1000, 1000, 1000));
    a.offer("t", "w1", RunKind.FIRST, "gone", false);
    a.offer("t", "w2", RunKind.FIRST, "gone", false);
    a.offer("u", "w3", RunKind.FIRST, "stays", false);
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, T0)));
    a.forget(o -> o.task().equals("gone"));
    assertFalse(a.isQueued("t|w2"));
    assertTrue(a.isQueued("u|w3"));
    assertFalse(a.endReservation("t|w1"), "its reservation is freed");
    assertEquals(List.of("w3"), windows(a.admit(NONE_RUNNING, T0)));
    assertEquals(List.of("watch gone", "watch stays", "unwatch gone"), watchLog);
  }

  @Test
  void aLostLeaseDropsWhatIsAdmittedAndKeepsWhatIsQueued() {
    Admission<String> a = admission(settings(1, 10, 0, 1000, 1000, 1000, 1000));
    a.offer("t", "w1", RunKind.FIRST, "e", false);
    a.offer("t", "w2", RunKind.FIRST, "e", false);
    a.admit(NONE_RUNNING, T0);
    a.ready(ready("x", "r", 1, T0.plusSeconds(30)));
    assertEquals(2, a.dropAdmitted(), "one reserved, one waiting for a slot");
    assertTrue(a.noneAdmitted());
    assertTrue(a.isQueued("t|w2"));
    assertEquals(List.of("w2"), windows(a.admit(NONE_RUNNING, T0)));
  }

  @Test
  void anEntityIsWatchedWhileItHoldsAnything() {
    Admission<String> a = twoSlots();
    a.offer("t", "w1", RunKind.FIRST, "e", false);
    a.offer("t", "w2", RunKind.FIRST, "e", false);
    a.admit(NONE_RUNNING, T0);
    a.endReservation("t|w1");
    assertEquals(List.of("watch e"), watchLog, "still holds w2's reservation");
    a.endReservation("t|w2");
    assertEquals(List.of("watch e", "unwatch e"), watchLog);
    assertSame(null, a.pollReady());
  }
}

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

  private static ExecutorSettings settings(int maxConcurrent, int perTask, int startAhead, double backlogRate,
      int backlogBurst, double perTaskRate, int perTaskBurst) {
    return new ExecutorSettings(maxConcurrent, perTask, startAhead, Duration.ofSeconds(1), backlogRate, backlogBurst,
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

  @Test
  void admitsAheadOfTheSlotsWhileJobsRunShort() {
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    for (int i = 0; i < 16; i++) {
      a.jobEnded(Duration.ofMillis(10));
    }
    for (int i = 0; i < 10; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(2 + 3, a.admit(NONE_RUNNING, T0).size(), "the slots and start-ahead's cap");
  }

  @Test
  void admitsNothingAheadBeforeAFullRingOfShortJobs() {
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    for (int i = 0; i < 15; i++) {
      a.jobEnded(Duration.ofMillis(10));
    }
    for (int i = 0; i < 10; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(2, a.admit(NONE_RUNNING, T0).size());
  }

  @Test
  void admitsNothingAheadWhileAJobRunsLong() {
    Admission<String> a = admission(settings(2, 100, 3, 1000, 1000, 1000, 1000));
    for (int i = 0; i < 16; i++) {
      a.jobEnded(Duration.ofMillis(10));
    }
    for (int i = 0; i < 10; i++) {
      a.offer("t", "w" + i, RunKind.FIRST, "e", false);
    }
    assertEquals(1, a.admit(List.of(Duration.ofSeconds(2)), T0).size(), "one free slot, nothing ahead");
  }

  @Test
  void theStartAheadRoomFollowsTheJobsMeanPace() {
    List<Duration> ms10 = Collections.nCopies(16, Duration.ofMillis(10));
    assertEquals(800, JobPace.ahead(8, 1024, Duration.ofSeconds(1), ms10, List.of()));
    assertEquals(0, JobPace.ahead(8, 0, Duration.ofSeconds(1), ms10, List.of()), "start-ahead 0: off");
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

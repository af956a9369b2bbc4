package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The executor's hold on its node lease, one test per rule; the fence's reads and the time are passed in. */
class FenceHoldTest {
  private static final long LIMIT = 1_000;

  private static FenceHold held() {
    FenceHold h = new FenceHold(true, 0);
    assertTrue(h.startAsk());
    assertEquals(FenceHold.Answer.GRANTED, h.answered(true, true));
    return h;
  }

  @Test
  void withoutAFenceJobsRunAndNothingIsAskedFor() {
    FenceHold h = new FenceHold(false, 0);
    assertEquals(FenceHold.State.NONE, h.state());
    assertTrue(h.mayRun(true));
    assertFalse(h.startAsk());
    assertFalse(h.mayEnd(), "nothing to end when downed");
  }

  @Test
  void withAFenceNothingRunsUntilTheLeaseIsTaken() {
    FenceHold h = new FenceHold(true, 0);
    assertEquals(FenceHold.State.ACQUIRING, h.state());
    assertFalse(h.mayRun(true));
    assertTrue(h.acquiring());
  }

  @Test
  void oneAskAtATime() {
    FenceHold h = new FenceHold(true, 0);
    assertTrue(h.startAsk());
    assertFalse(h.startAsk(), "an ask is on its way");
    h.answered(true, false);
    assertTrue(h.startAsk(), "asked again after the answer");
  }

  @Test
  void aGrantedLeaseLetsJobsRunWhileItIsValid() {
    FenceHold h = held();
    assertEquals(FenceHold.State.HELD, h.state());
    assertTrue(h.mayRun(true));
    assertFalse(h.mayRun(false));
  }

  @Test
  void aLeaseNotTakenIsAskedForAgain() {
    FenceHold h = new FenceHold(true, 0);
    h.startAsk();
    assertEquals(FenceHold.Answer.NOT_TAKEN, h.answered(true, false));
    assertTrue(h.acquiring());
    assertTrue(h.startAsk());
  }

  @Test
  void anAnswerForAnIdentityGivenUpIsStale() {
    FenceHold h = new FenceHold(true, 0);
    h.startAsk();
    assertEquals(FenceHold.Answer.STALE, h.answered(false, true));
    assertFalse(h.mayRun(true), "not held by the identity now");
  }

  @Test
  void anAnswerAfterTheEndIsStale() {
    FenceHold h = new FenceHold(true, 0);
    h.startAsk();
    h.end();
    assertEquals(FenceHold.Answer.STALE, h.answered(true, true));
    assertEquals(FenceHold.State.ENDED, h.state());
  }

  @Test
  void aHeldLeaseIsRenewedOrItsRenewalFails() {
    FenceHold h = held();
    h.startAsk();
    assertEquals(FenceHold.Answer.RENEWED, h.answered(true, true));
    h.startAsk();
    assertEquals(FenceHold.Answer.RENEWAL_FAILED, h.answered(true, false));
  }

  @Test
  void aPauseLongerThanTheLimitMakesAHeldLeaseSuspect() {
    FenceHold h = held();
    assertEquals(-1, h.paused(500, LIMIT));
    assertEquals(2_000, h.paused(2_500, LIMIT), "the gap since the last check");
    assertTrue(h.suspect(false));
    assertFalse(h.suspect(true));
  }

  @Test
  void aPauseIsNotJudgedWhileARenewalIsOnItsWayOrWithoutALease() {
    FenceHold h = held();
    h.startAsk();
    assertEquals(-1, h.paused(5_000, LIMIT));
    assertEquals(-1, new FenceHold(true, 0).paused(5_000, LIMIT));
  }

  @Test
  void aHeldLeaseThatIsNoLongerValidIsBrokenUnlessARenewalIsOnItsWay() {
    FenceHold h = held();
    assertFalse(h.broken(true));
    assertTrue(h.broken(false));
    h.startAsk();
    assertFalse(h.broken(false));
  }

  @Test
  void onlyAHeldLeaseOfTheIdentityNowCountsAsLost() {
    FenceHold h = held();
    assertFalse(h.lossCounts(false));
    assertTrue(h.lossCounts(true));
    assertFalse(new FenceHold(true, 0).lossCounts(true));
  }

  @Test
  void aLostLeaseIsAskedForUnderANewIdentityUnlessTheFenceEnded() {
    FenceHold h = held();
    h.lost(false);
    assertTrue(h.acquiring());
    assertTrue(h.startAsk());
    FenceHold gone = held();
    gone.lost(true);
    assertEquals(FenceHold.State.ENDED, gone.state());
    assertFalse(gone.startAsk());
    assertFalse(gone.mayRun(true));
  }

  @Test
  void aDownedNodeEndsItsLeaseOnce() {
    FenceHold h = held();
    assertTrue(h.mayEnd());
    h.end();
    assertFalse(h.mayEnd());
    assertFalse(h.startAsk());
  }
}

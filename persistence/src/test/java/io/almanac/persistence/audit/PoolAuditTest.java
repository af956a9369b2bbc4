package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.PoolJournal;
import io.almanac.journal.PoolJournal.Event;
import io.almanac.journal.PoolJournal.HoldAcquired;
import io.almanac.journal.PoolJournal.HoldReleased;
import io.almanac.journal.PoolJournal.PoolDeclared;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * I8 over a pool's journal, folded with the runtime's PoolState: more live holds than max-concurrent
 * or more starts than the rate in one period is a violation; expired and given-back holds do not
 * count; raises are told with who made them; the verifier reports I8 and fails on it.
 */
class PoolAuditTest {

  private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");

  private static HoldAcquired hold(String task, int atSeconds) {
    return new HoldAcquired("llm", task, "w", "n1", "i1", T0.plusSeconds(atSeconds), T0.plusSeconds(atSeconds + 30));
  }

  @Test
  @DisplayName("two live holds in a pool of one is a violation; a release or an expiry in between is not")
  void maxConcurrent() {
    PoolDeclared one = new PoolDeclared("llm", 1, 0, null, "n1", "i1", T0);
    PoolAudit.Report over = PoolAudit.verify("llm", List.of(one, hold("a", 1), hold("b", 2)));
    assertEquals(1, over.violations().size(), over.toString());
    assertTrue(over.violations().get(0).contains("2 live holds after admitting b w on n1, max-concurrent 1"),
        over.violations().get(0));
    assertTrue(PoolAudit.verify("llm", List.of(one, hold("a", 1), new HoldReleased("llm", "a", "w", T0.plusSeconds(2)),
        hold("b", 3))).ok());
    PoolAudit.Report expired = PoolAudit.verify("llm", List.of(one, hold("a", 1), hold("b", 40)));
    assertTrue(expired.ok(), "a's hold expired at 31 s: " + expired);
    assertEquals(1, expired.peakHolders());
  }

  @Test
  @DisplayName("a rate of 2 per minute: a third start within the minute is a violation, one just past it is not")
  void rate() {
    PoolDeclared rated = new PoolDeclared("llm", 10, 2, Duration.ofMinutes(1), "n1", "i1", T0);
    PoolAudit.Report over = PoolAudit.verify("llm", List.of(rated, hold("a", 0), hold("b", 10), hold("c", 60)));
    assertEquals(1, over.violations().size(), over.toString());
    assertTrue(over.violations().get(0).contains("3 starts within PT1M"), over.violations().get(0));
    PoolAudit.Report ok = PoolAudit.verify("llm", List.of(rated, hold("a", 0), hold("b", 10), hold("c", 61)));
    assertTrue(ok.ok(), ok.toString());
    assertEquals(2, ok.peakStarts());
  }

  @Test
  @DisplayName("the verifier reports I8: a violation names the pool's journal and fails; raises are notes with who")
  void verifierReportsI8() {
    List<Event> events = List.of(new PoolDeclared("llm", 1, 0, null, "n1", "i1", T0), hold("a", 1), hold("b", 2),
        new PoolJournal.PoolBudgetRaised("llm", LocalDate.of(2026, 12, 6), 2_000_000, "alice", "quarter end",
            T0.plusSeconds(3)));
    VerificationReport r = Verifier.create().checkPool("llm", events).report();
    assertEquals(1, r.violations().size());
    assertEquals("pool|llm", r.violations().get(0).taskId());
    assertEquals(VerificationReport.Invariant.I8, r.violations().get(0).invariant());
    String text = r.toText();
    assertTrue(text.contains("I8 pools within their limits") && text.contains("1 pool journal") && text.contains("FAILED"),
        text);
    assertTrue(text.contains("note: pool llm: 2026-12-06T10:00:03Z budget of 2026-12-06 raised by 2.00 by alice: quarter end"),
        text);
  }
}

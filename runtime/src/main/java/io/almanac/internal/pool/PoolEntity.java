package io.almanac.internal.pool;

import io.almanac.journal.PoolJournal;
import io.almanac.journal.PoolState;
import io.almanac.spi.PoolStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * A resource pool as a sharded persistent entity ({@code pool|<name>}): the one writer of the
 * pool's holds, starts, pause, usage and raises across the cluster. Each command is decided by the
 * pure {@link PoolState} at the entity's clock and persisted as a {@link PoolJournal} event before
 * the answer: an admission is durable before its attempt starts, and the audit rebuilds the pool's
 * day from the journal. Reads (a day, the live holds) and a refusal write nothing. INTERNAL API.
 */
public final class PoolEntity extends EventSourcedBehavior<PoolProtocol.Command, PoolJournal.Event, PoolState> {

  /** The entity type of the pools. */
  public static final EntityTypeKey<PoolProtocol.Command> TYPE_KEY =
      EntityTypeKey.create(PoolProtocol.Command.class, "almanac-pool");

  /** Events between snapshots (each snapshot is bounded: see {@link PoolState}). */
  static final int SNAPSHOT_EVERY = 200;

  private static final PoolProtocol.Answered ADMITTED = new PoolProtocol.Answered(PoolStore.Answer.ADMITTED);

  private final String pool;
  private final Clock clock;

  /**
   * @param pool the pool's name (the entity id)
   * @param clock the pool's time: holds' expiry, the rate and pauses are judged by it
   * @return the entity's behavior
   */
  public static Behavior<PoolProtocol.Command> create(String pool, Clock clock) {
    return new PoolEntity(pool, clock);
  }

  private PoolEntity(String pool, Clock clock) {
    super(PersistenceId.ofUniqueId(PoolJournal.persistenceId(pool)),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
    this.pool = Objects.requireNonNull(pool, "pool");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public PoolState emptyState() {
    return PoolState.empty(pool);
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    // The journal is kept (the audit reads the pool's whole history); snapshots bound recovery.
    return RetentionCriteria.snapshotEvery(SNAPSHOT_EVERY, 2);
  }

  @Override
  public EventHandler<PoolState, PoolJournal.Event> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(PoolState::evolve);
  }

  @Override
  public CommandHandler<PoolProtocol.Command, PoolJournal.Event, PoolState> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(PoolProtocol.Declare.class, this::declare)
        .onCommand(PoolProtocol.Acquire.class, this::acquire)
        .onCommand(PoolProtocol.AcquireAll.class, this::acquireAll)
        .onCommand(PoolProtocol.Release.class, this::release)
        .onCommand(PoolProtocol.Renew.class, this::renew)
        .onCommand(PoolProtocol.Pause.class, this::pause)
        .onCommand(PoolProtocol.AddUsage.class, this::addUsage)
        .onCommand(PoolProtocol.RaiseBudget.class, this::raise)
        .onCommand(PoolProtocol.GetDay.class, (s, c) -> Effect().reply(c.replyTo(), new PoolProtocol.DayIs(s.day(c.day()))))
        .onCommand(PoolProtocol.GetHolds.class, (s, c) -> Effect().reply(c.replyTo(), new PoolProtocol.Holds(s.liveHoldList(clock.instant()))))
        .onCommand(PoolProtocol.GetLiveHolds.class, (s, c) -> Effect().reply(c.replyTo(), new PoolProtocol.LiveHolds(s.liveHolds(clock.instant()))))
        .build();
  }

  private Effect<PoolJournal.Event, PoolState> declare(PoolState s, PoolProtocol.Declare c) {
    PoolStore.Limit l = c.limit();
    boolean same = s.maxConcurrent() == l.maxConcurrent() && s.ratePermits() == l.ratePermits()
        && Objects.equals(s.ratePer(), l.ratePer());
    boolean earlierLife = s.holds().values().stream()
        .anyMatch(h -> h.node().equals(c.node()) && !h.incarnation().equals(c.incarnation()));
    if (same && !earlierLife) {
      return Effect().reply(c.replyTo(), Done.getInstance());
    }
    return Effect().persist(new PoolJournal.PoolDeclared(pool, l.maxConcurrent(), l.ratePermits(),
            l.hasRate() ? l.ratePer() : null, c.node(), c.incarnation(), clock.instant()))
        .thenReply(c.replyTo(), x -> Done.getInstance());
  }

  private Effect<PoolJournal.Event, PoolState> acquire(PoolState s, PoolProtocol.Acquire c) {
    Admission a = admit(s, c.taskId(), c.window(), c.node(), c.incarnation(), c.budget(), c.ttl(), clock.instant());
    if (a.event() == null) {
      return Effect().reply(c.replyTo(), new PoolProtocol.Answered(a.answer()));
    }
    return Effect().persist(a.event()).thenReply(c.replyTo(), x -> ADMITTED);
  }

  private Effect<PoolJournal.Event, PoolState> acquireAll(PoolState s, PoolProtocol.AcquireAll c) {
    Instant now = clock.instant();
    List<PoolJournal.Event> events = new ArrayList<>();
    List<PoolStore.Answer> answers = new ArrayList<>(c.asks().size());
    PoolState t = s;
    for (PoolProtocol.Ask ask : c.asks()) {
      Admission a = admit(t, ask.taskId(), ask.window(), c.node(), c.incarnation(), ask.budget(), c.ttl(), now);
      answers.add(a.answer());
      if (a.event() != null) {
        events.add(a.event());
        t = t.evolve(a.event()); // the next ask is decided on the holds and starts this one took
      }
    }
    PoolProtocol.AnsweredAll reply = new PoolProtocol.AnsweredAll(answers);
    return events.isEmpty() ? Effect().reply(c.replyTo(), reply)
        : Effect().persist(events).thenReply(c.replyTo(), x -> reply); // one write for the batch
  }

  /** An ask's answer, and the hold to write when it admits. */
  private record Admission(PoolStore.Answer answer, PoolJournal.HoldAcquired event) {}

  /** The one rule of an ask: admitted again after a lost answer, refused by the state, or a new hold. */
  private Admission admit(PoolState s, String taskId, String window, String node, String incarnation,
      PoolStore.Budget budget, Duration ttl, Instant now) {
    PoolState.Hold own = s.holds().get(PoolState.key(taskId, window));
    if (own != null && own.node().equals(node) && own.incarnation().equals(incarnation) && own.expiresAt().isAfter(now)) {
      return new Admission(PoolStore.Answer.ADMITTED, null); // asked again after a lost answer: nothing written
    }
    if (!s.declared()) {
      return new Admission(PoolStore.Answer.refused(pool, io.almanac.PoolWaitReason.FULL, null), null);
    }
    PoolStore.Answer refusal = s.refusal(budget, now);
    if (refusal != null) {
      return new Admission(refusal, null);
    }
    return new Admission(PoolStore.Answer.ADMITTED, new PoolJournal.HoldAcquired(pool, taskId, window, node, incarnation,
        now, io.almanac.spi.Saturating.plus(now, ttl)));
  }

  private Effect<PoolJournal.Event, PoolState> release(PoolState s, PoolProtocol.Release c) {
    PoolState.Hold h = s.holds().get(PoolState.key(c.taskId(), c.window()));
    if (h == null || !h.node().equals(c.node())) {
      return Effect().reply(c.replyTo(), Done.getInstance()); // idempotent; another node's hold is not ours to free
    }
    return Effect().persist(new PoolJournal.HoldReleased(pool, c.taskId(), c.window(), clock.instant()))
        .thenReply(c.replyTo(), x -> Done.getInstance());
  }

  private Effect<PoolJournal.Event, PoolState> renew(PoolState s, PoolProtocol.Renew c) {
    Instant now = clock.instant();
    boolean holds = s.holds().values().stream()
        .anyMatch(h -> h.node().equals(c.node()) && h.incarnation().equals(c.incarnation()) && h.expiresAt().isAfter(now));
    if (!holds) {
      return Effect().reply(c.replyTo(), Done.getInstance()); // nothing to renew: no write
    }
    return Effect().persist(new PoolJournal.HoldsRenewed(pool, c.node(), c.incarnation(), now,
            io.almanac.spi.Saturating.plus(now, c.ttl())))
        .thenReply(c.replyTo(), x -> Done.getInstance());
  }

  private Effect<PoolJournal.Event, PoolState> pause(PoolState s, PoolProtocol.Pause c) {
    Instant now = clock.instant();
    Instant until = io.almanac.spi.Saturating.plus(now, c.pause());
    if (s.pausedUntil() != null && !until.isAfter(s.pausedUntil())) {
      return Effect().reply(c.replyTo(), Done.getInstance()); // a pause that ends later stays
    }
    return Effect().persist(new PoolJournal.PoolPaused(pool, now, until)).thenReply(c.replyTo(), x -> Done.getInstance());
  }

  private Effect<PoolJournal.Event, PoolState> addUsage(PoolState s, PoolProtocol.AddUsage c) {
    return Effect().persist(new PoolJournal.UsageAdded(pool, c.day(), c.costMicros(), clock.instant()))
        .thenReply(c.replyTo(), x -> Done.getInstance());
  }

  private Effect<PoolJournal.Event, PoolState> raise(PoolState s, PoolProtocol.RaiseBudget c) {
    return Effect().persist(new PoolJournal.PoolBudgetRaised(pool, c.day(), c.amountMicros(), c.actor(), c.note(),
            clock.instant()))
        .thenReply(c.replyTo(), after -> new PoolProtocol.DayIs(after.day(c.day())));
  }
}

package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.WriterStamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads task journals for the audit through Pekko Persistence Query: the JDBC read journal
 * ({@code jdbc-read-journal}), so the same code reads H2 and PostgreSQL. It needs no running node:
 * {@link #builder(Config)} starts a plain local ActorSystem (no cluster, no sharding, no task
 * entity) on the journal configuration, e.g. {@code include "almanac-h2.conf"}. An H2 file can be
 * open in one JVM only: stop the node first (PostgreSQL can be read while nodes run).
 *
 * <pre>{@code
 * try (AuditReader reader = AuditReader.builder(config).progressEvery(50_000).start()) {
 *   for (String id : reader.taskIds()) {
 *     TaskHistory history = reader.read(id);
 *     ...
 *   }
 * }
 * }</pre>
 *
 * Every {@link Builder#progressEvery(long)} events (all tasks together) it reports a
 * {@link ReadProgress} to its listener (by default a log line at INFO). Not thread-safe: read one
 * task at a time.
 *
 * <p><b>Gaps.</b> A task's events are read in pages of sequence numbers, {@code [1, P]},
 * {@code [P+1, 2P]}, ... up to the task's highest sequence number, each page one
 * {@code currentEventsByPersistenceId} query, with {@code P} the read journal's
 * {@code max-buffer-size}. Reading page by page instead of one open-ended query crosses gaps left by
 * deleted events (retention deletes events below a snapshot): pekko-persistence-jdbc 1.1.1 ends an
 * open-ended query at the first gap wider than {@code max-buffer-size}, which would hide the rest of
 * the journal. A journal whose first events were deleted starts at a later sequence number; the
 * {@link Verifier} notes it.
 */
public final class AuditReader implements AutoCloseable {

  /** Persistence ids of tasks start with this ({@code task|<id>}). */
  public static final String TASK_PREFIX = "task|";

  /** Default: a progress report every 50,000 events. */
  public static final long DEFAULT_PROGRESS_EVERY = 50_000;

  /** Default: the longest one query (one task's events, the list of tasks) may take. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(30);

  /** Default: sequence numbers per query when the reader starts its own ActorSystem. */
  public static final int DEFAULT_PAGE_SIZE = 5_000;

  private static final Logger LOG = LoggerFactory.getLogger(AuditReader.class);

  private final ActorSystem<?> system;
  private final boolean ownsSystem;
  private final JdbcReadJournal journal;
  private final long progressEvery;
  private final Consumer<ReadProgress> listener;
  private final Duration readTimeout;
  private final int page;
  private final AtomicLong read = new AtomicLong();
  private volatile long startNanos;
  private Optional<Instant> triggerEnd;

  private AuditReader(ActorSystem<?> system, boolean ownsSystem, JdbcReadJournal journal, long progressEvery,
      Consumer<ReadProgress> listener, Duration readTimeout, int page) {
    this.system = system;
    this.ownsSystem = ownsSystem;
    this.journal = journal;
    this.progressEvery = progressEvery;
    this.listener = listener;
    this.readTimeout = readTimeout;
    this.page = page;
  }

  /**
   * A reader that starts its own local ActorSystem on {@code config} and terminates it on
   * {@link #close()}. The configuration's {@code pekko.actor.provider} is overridden with
   * {@code local}, so a node's configuration (with {@code almanac-embedded.conf}) can be passed as
   * it is.
   *
   * @param config the journal configuration, e.g. {@code include "almanac-h2.conf"}
   * @return a builder
   */
  public static Builder builder(Config config) {
    return new Builder(Objects.requireNonNull(config, "config"), null);
  }

  /**
   * A reader on an ActorSystem the caller owns (and terminates).
   *
   * @param system an ActorSystem whose configuration has the JDBC read journal
   * @return a builder
   */
  public static Builder builder(ActorSystem<?> system) {
    return new Builder(null, Objects.requireNonNull(system, "system"));
  }

  /** Sets up an {@link AuditReader}. */
  public static final class Builder {
    private final Config config;
    private final ActorSystem<?> system;
    private long progressEvery = DEFAULT_PROGRESS_EVERY;
    private Consumer<ReadProgress> listener = p -> LOG.info("audit: {}", p);
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private int pageSize = DEFAULT_PAGE_SIZE;

    private Builder(Config config, ActorSystem<?> system) {
      this.config = config;
      this.system = system;
    }

    /**
     * @param events how many events between two progress reports; at least 1 (default 50,000)
     * @return this builder
     * @throws IllegalArgumentException if {@code events} is below 1
     */
    public Builder progressEvery(long events) {
      if (events < 1) {
        throw new IllegalArgumentException("progressEvery '" + events + "' is invalid: must be at least 1");
      }
      this.progressEvery = events;
      return this;
    }

    /**
     * @param listener receives a progress report every {@link #progressEvery(long)} events, on a
     *     stream thread (default: a log line at INFO)
     * @return this builder
     */
    public Builder onProgress(Consumer<ReadProgress> listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * @param timeout the longest one query may take (default 30 minutes)
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder readTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("readTimeout '" + timeout + "' is invalid: must be positive");
      }
      this.readTimeout = timeout;
      return this;
    }

    /**
     * Sequence numbers per query, for a reader that starts its own ActorSystem (it sets the read
     * journal's {@code max-buffer-size} to it). A reader on a caller's system uses that system's
     * {@code jdbc-read-journal.max-buffer-size}.
     *
     * @param events sequence numbers per query; at least 1 (default 5,000)
     * @return this builder
     * @throws IllegalArgumentException if {@code events} is below 1
     */
    public Builder pageSize(int events) {
      if (events < 1) {
        throw new IllegalArgumentException("pageSize '" + events + "' is invalid: must be at least 1");
      }
      this.pageSize = events;
      return this;
    }

    /**
     * Starts the reader: its ActorSystem (unless one was given) and the read journal, which opens
     * the connection pool.
     *
     * @return the reader; close it when done
     * @throws JournalReadException if the read journal cannot be started (bad configuration,
     *     unreachable database)
     */
    public AuditReader start() {
      ActorSystem<?> sys = system;
      boolean owns = false;
      try {
        if (sys == null) {
          Config local = ConfigFactory.parseString(String.join("\n",
              "pekko.actor.provider = local",
              "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
              // Larger pages than the plugin's 500: a long journal is read in fewer queries.
              "jdbc-read-journal.max-buffer-size = " + pageSize,
              "pekko.log-dead-letters = off"));
          sys = ActorSystem.create(Behaviors.empty(), "almanac-audit", ConfigFactory.load(local.withFallback(config)));
          owns = true;
        }
        JdbcReadJournal journal = PersistenceQuery.get(sys).getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
        int page = sys.settings().config().getInt(JdbcReadJournal.Identifier() + ".max-buffer-size");
        return new AuditReader(sys, owns, journal, progressEvery, listener, readTimeout, Math.max(1, page));
      } catch (RuntimeException e) {
        if (owns) {
          terminate(sys);
        }
        throw new JournalReadException("the read journal '" + JdbcReadJournal.Identifier() + "' could not be started: "
            + rootMessage(e), e);
      }
    }
  }

  /**
   * The ids of every task with events in the journal, sorted ({@code currentPersistenceIds}
   * filtered by {@value #TASK_PREFIX}).
   *
   * @return the task ids
   * @throws JournalReadException if the journal cannot be read
   */
  public List<String> taskIds() {
    List<String> ids = new ArrayList<>(await("the persistence ids", journal.currentPersistenceIds()
        .filter(id -> id.startsWith(TASK_PREFIX))
        .map(id -> id.substring(TASK_PREFIX.length()))
        .runWith(Sink.seq(), system)));
    ids.sort(null);
    return ids;
  }

  /**
   * The events of one task as a stream: {@code currentEventsByPersistenceId} of
   * {@code task|<taskId>}, page by page up to its current highest sequence number (see the class
   * doc: gaps), so it completes at the current end of the journal. Counted for progress; each
   * event carries the task's zone as of that event. Each event is described alone: a timeout's
   * recorded cause, written in the event after it, is added by {@link #read(String)} (see
   * {@link AuditEvent#withCauses(List)}).
   *
   * @param taskId the task's id
   * @return the events in journal order; empty for an unknown task
   */
  public Source<AuditEvent, NotUsed> events(String taskId) {
    Objects.requireNonNull(taskId, "taskId");
    String pid = TaskJournal.persistenceId(taskId);
    return Source.lazyCompletionStageSource(() -> journal.currentLastSequenceNumberByPersistenceId(pid)
            .thenApply(highest -> pages(pid, highest.orElse(0L))))
        .mapMaterializedValue(m -> NotUsed.getInstance())
        .statefulMap(
            () -> (ZoneId) ZoneOffset.UTC,
            (ZoneId zone, EventEnvelope env) -> {
              List<AuditEvent> es = toAudit(taskId, env, zone);
              return Pair.create(es.get(es.size() - 1).zone(), es);
            },
            zone -> Optional.<List<AuditEvent>>empty())
        .mapConcat(es -> es) // one row may stand for two events (TaskJournal.expand): both, with its sequence number
        .map(this::counted);
  }

  /** Every event up to {@code highest}, one query per page of sequence numbers (see the class doc: gaps). */
  private Source<EventEnvelope, NotUsed> pages(String pid, long highest) {
    long size = page;
    return Source.unfold(1L, from -> from > highest ? Optional.empty()
            : Optional.of(Pair.create(from + size, Pair.create(from, Math.min(highest, from + size - 1)))))
        .flatMapConcat(range -> journal.currentEventsByPersistenceId(pid, range.first(), range.second()));
  }

  /**
   * Reads one task's events into memory, each timeout described with the cause recorded with it
   * ({@link AuditEvent#withCauses(List)}).
   *
   * @param taskId the task's id
   * @return its history; {@link TaskHistory#isEmpty()} for an unknown task
   * @throws JournalReadException if the journal cannot be read
   */
  public TaskHistory read(String taskId) {
    List<AuditEvent> events = AuditEvent.withCauses(await("persistence id " + TaskJournal.persistenceId(taskId),
        events(taskId).runWith(Sink.seq(), system)));
    Instant own = TaskHistory.lastAt(events);
    Instant until = latest(own, events.isEmpty() ? null : triggerLastEventAt().orElse(null));
    return new TaskHistory(taskId, events, until);
  }

  /**
   * When the trigger wrote its last event (its watermark progress, written while a node runs, or
   * a registration). Read once and cached.
   *
   * @return the time of the trigger's last event; empty if the trigger has no events or its last
   *     event cannot be read (logged)
   */
  public Optional<Instant> triggerLastEventAt() {
    if (triggerEnd == null) {
      String pid = TriggerJournal.PERSISTENCE_ID;
      Instant at = null;
      try {
        Optional<Long> last = await("the last sequence number of " + pid, journal.currentLastSequenceNumberByPersistenceId(pid));
        if (last.isPresent()) {
          List<EventEnvelope> tail = await("persistence id " + pid,
              journal.currentEventsByPersistenceId(pid, last.get(), last.get()).runWith(Sink.seq(), system));
          for (EventEnvelope env : tail) {
            at = latest(at, triggerEventAt(env));
          }
        }
      } catch (JournalReadException e) {
        // Only a bound for the checks: without it each task's journal ends at its own last event.
        LOG.warn("audit: the trigger's last event could not be read; each task's journal ends at its own last event: {}",
            e.getMessage());
      }
      triggerEnd = Optional.ofNullable(at);
    }
    return triggerEnd;
  }

  /**
   * Who wrote each of the trigger's events ({@code almanac-trigger}), for invariant I5: every event
   * still in its journal (retention deletes the trigger's old events), page by page as a task's.
   * Not counted for progress.
   *
   * @return the trigger's events in journal order, each with its writer (null when unknown); empty
   *     when the trigger has no events
   * @throws JournalReadException if the journal cannot be read
   */
  public List<Verifier.Written> triggerWriters() {
    String pid = TriggerJournal.PERSISTENCE_ID;
    return await("persistence id " + pid, Source.lazyCompletionStageSource(() -> journal.currentLastSequenceNumberByPersistenceId(pid)
            .thenApply(highest -> pages(pid, highest.orElse(0L))))
        .map(env -> {
          Instant at = triggerEventAt(env);
          return new Verifier.Written(env.sequenceNr(), env.event().getClass().getSimpleName(),
              at != null ? at : Instant.ofEpochMilli(env.timestamp()), writerOf(env));
        })
        .runWith(Sink.seq(), system));
  }

  /**
   * The registrations the trigger's journal still holds ({@code TasksRegistered}; retention deletes
   * the trigger's older events), per task in journal order: registering writes no task entity, so a
   * task registered and never fired has no journal of its own, and one fired records its spec after
   * its registration (see {@link Verifier#registrations}). Not counted for progress.
   *
   * @return each task's registrations, each with the instant its windows became the trigger's
   * @throws JournalReadException if the journal cannot be read
   */
  public Map<String, List<Verifier.Registration>> registrations() {
    return await("persistence id " + TriggerJournal.PERSISTENCE_ID, registrationsOf(null));
  }

  /**
   * The registrations of one task, or of all, as {@link #registrations()} reads them, without blocking.
   *
   * @param taskId the task, or null for every task
   * @return each task's registrations in journal order
   */
  public CompletionStage<Map<String, List<Verifier.Registration>>> registrationsOf(String taskId) {
    String pid = TriggerJournal.PERSISTENCE_ID;
    return Source.lazyCompletionStageSource(
            () -> journal.currentLastSequenceNumberByPersistenceId(pid).thenApply(highest -> pages(pid, highest.orElse(0L))))
        .filter(env -> env.event() instanceof TriggerJournal.TasksRegistered)
        .runWith(Sink.seq(), system)
        .thenApply(envs -> {
          Map<String, List<Verifier.Registration>> out = new java.util.TreeMap<>();
          for (EventEnvelope env : envs) {
            TriggerJournal.TasksRegistered r = (TriggerJournal.TasksRegistered) env.event();
            Instant at = r.since() != null ? r.since() : r.at() != null ? r.at() : Instant.ofEpochMilli(env.timestamp());
            for (io.almanac.journal.SpecRecord spec : r.specs()) {
              if (taskId == null || taskId.equals(spec.id())) {
                out.computeIfAbsent(spec.id(), k -> new ArrayList<>()).add(new Verifier.Registration(spec, at));
              }
            }
          }
          return out;
        });
  }

  /**
   * The names of every resource pool with events in the journal ({@code pool|<name>}), sorted.
   *
   * @return the pools
   * @throws JournalReadException if the journal cannot be read
   */
  public List<String> poolNames() {
    List<String> ids = new ArrayList<>(await("the persistence ids", journal.currentPersistenceIds()
        .filter(id -> id.startsWith(io.almanac.journal.PoolJournal.PREFIX))
        .map(id -> id.substring(io.almanac.journal.PoolJournal.PREFIX.length()))
        .runWith(Sink.seq(), system)));
    ids.sort(null);
    return ids;
  }

  /**
   * Reads one pool's journal into memory (see {@link PoolAudit}).
   *
   * @param pool the pool
   * @return its events in journal order; empty for an unknown pool
   * @throws JournalReadException if the journal cannot be read
   */
  public List<io.almanac.journal.PoolJournal.Event> readPool(String pool) {
    String pid = io.almanac.journal.PoolJournal.persistenceId(Objects.requireNonNull(pool, "pool"));
    return await("persistence id " + pid, Source.lazyCompletionStageSource(
            () -> journal.currentLastSequenceNumberByPersistenceId(pid).thenApply(h -> pages(pid, h.orElse(0L))))
        .map(env -> (io.almanac.journal.PoolJournal.Event) env.event())
        .runWith(Sink.seq(), system));
  }

  /**
   * Events read so far by this reader, all tasks together.
   *
   * @return the count
   */
  public long eventsRead() {
    return read.get();
  }

  /**
   * The progress so far (what the listener last got, brought up to date).
   *
   * @return events read and time since the first one
   */
  public ReadProgress progress() {
    long start = startNanos;
    return new ReadProgress(read.get(), start == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - start));
  }

  /** Terminates the reader's own ActorSystem (not one passed to {@link #builder(ActorSystem)}). */
  @Override
  public void close() {
    if (ownsSystem) {
      terminate(system);
    }
  }

  private AuditEvent counted(AuditEvent e) {
    if (startNanos == 0) {
      startNanos = System.nanoTime();
    }
    long n = read.incrementAndGet();
    if (n % progressEvery == 0) {
      try {
        listener.accept(progress());
      } catch (RuntimeException ex) {
        LOG.warn("audit progress listener failed: {}", ex.toString());
      }
    }
    return e;
  }

  private static List<AuditEvent> toAudit(String taskId, EventEnvelope env, ZoneId zone) {
    List<Object> events = env.event() instanceof TaskJournal.Event te ? List.copyOf(TaskJournal.expand(te)) : List.of(env.event());
    List<AuditEvent> out = new ArrayList<>(events.size());
    for (Object raw : events) {
      AuditEvent e = AuditEvent.of(taskId, env.sequenceNr(), raw, zone).withWriter(writerOf(env));
      out.add(e.at() == null ? e.withAt(Instant.ofEpochMilli(env.timestamp())) : e);
      zone = e.zone();
    }
    return out;
  }

  /** The event's writer, from its metadata (see {@link WriterStamp}); null when it has none. */
  static WriterStamp writerOf(EventEnvelope env) {
    return env.getEventMetaData().orElse(null) instanceof WriterStamp w ? w : null;
  }

  /** The instant the trigger's event records, as {@link AuditKinds#TRIGGER} reads it; null: its write time stands for it. */
  private static Instant triggerEventAt(EventEnvelope env) {
    return env.event() instanceof TriggerJournal.Event e ? AuditKinds.triggerAt(e) : null;
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }

  private <T> T await(String what, CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(readTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new JournalReadException("the journal could not be read (" + what + "): " + rootMessage(e), e.getCause());
    } catch (TimeoutException e) {
      throw new JournalReadException("the journal could not be read (" + what + "): no answer within " + readTimeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JournalReadException("the journal could not be read (" + what + "): interrupted", e);
    }
  }

  static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }

  private static void terminate(ActorSystem<?> system) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("the audit's ActorSystem did not terminate within 30 s: {}", e.toString());
    }
  }
}

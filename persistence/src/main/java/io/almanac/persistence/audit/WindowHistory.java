package io.almanac.persistence.audit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * One task's journal read live, on a running node's own ActorSystem: the node holds its H2 file, so
 * no second process can read it while it runs. Reads through the node's JDBC read journal with an
 * {@link AuditReader} on that system (which it does not terminate), so the events are described as
 * the audit describes them. Thread-safe: each call is one read of the task's whole journal (page by
 * page, as {@link AuditReader#events(String)}), so its time grows with the task's journal; its memory
 * does not: {@link #why} and {@link #timeline} keep only what the window needs
 * ({@link WindowExplanation.Digest}), at most {@code maxEvents} events, and fail with a
 * {@link HistoryTooLargeException} beyond; a read that takes longer than its timeout fails with a
 * {@link JournalReadException}.
 *
 * <pre>{@code
 * WindowHistory history = WindowHistory.of(system);
 * history.why("digest", "2026-11-29").thenAccept(why -> System.out.println(why.map(Explanation::verdict)));
 * }</pre>
 */
public final class WindowHistory {

  /** Default: the most events one read keeps (the window's own and the task-level ones). */
  public static final long DEFAULT_MAX_EVENTS = 100_000;

  /** Default: the longest one read may take. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private final ActorSystem<?> system;
  private final Function<String, Source<AuditEvent, NotUsed>> source;
  /** A task's registrations in the trigger's journal (registration writes no task entity). */
  private final Function<String, CompletionStage<List<Verifier.Registration>>> registrations;
  private final long maxEvents;
  private final Duration timeout;

  /** @param source a task's events as a stream (the reader's; a test's) */
  WindowHistory(ActorSystem<?> system, Function<String, Source<AuditEvent, NotUsed>> source, long maxEvents,
      Duration timeout) {
    this(system, source, id -> java.util.concurrent.CompletableFuture.completedFuture(List.of()), maxEvents, timeout);
  }

  WindowHistory(ActorSystem<?> system, Function<String, Source<AuditEvent, NotUsed>> source,
      Function<String, CompletionStage<List<Verifier.Registration>>> registrations, long maxEvents, Duration timeout) {
    this.system = system;
    this.source = source;
    this.registrations = registrations;
    this.maxEvents = maxEvents;
    this.timeout = timeout;
  }

  /**
   * A reader of the node's journal.
   *
   * @param system the node's ActorSystem, with the JDBC read journal configured (as {@code almanac-h2.conf}
   *     and {@code almanac-postgres.conf} do)
   * @return the history reader
   * @throws JournalReadException if the read journal cannot be started
   */
  public static WindowHistory of(ActorSystem<?> system) {
    return of(system, DEFAULT_MAX_EVENTS, DEFAULT_TIMEOUT);
  }

  /**
   * A reader of the node's journal with bounds.
   *
   * @param system the node's ActorSystem, with the JDBC read journal configured
   * @param maxEvents the most events one read keeps in memory; at least 1
   * @param timeout the longest one read may take; positive
   * @return the history reader
   * @throws IllegalArgumentException if a bound is invalid
   * @throws JournalReadException if the read journal cannot be started
   */
  public static WindowHistory of(ActorSystem<?> system, long maxEvents, Duration timeout) {
    Objects.requireNonNull(system, "system");
    if (maxEvents < 1) {
      throw new IllegalArgumentException("maxEvents '" + maxEvents + "' is invalid: must be at least 1");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout '" + timeout + "' is invalid: must be positive");
    }
    // A live reader: progress is not reported (a log line every 50,000 events would be noise).
    AuditReader reader = AuditReader.builder(system).progressEvery(Long.MAX_VALUE).onProgress(p -> { }).start();
    return new WindowHistory(system, reader::events,
        id -> reader.registrationsOf(id).thenApply(byTask -> byTask.getOrDefault(id, List.of())), maxEvents, timeout);
  }

  /**
   * What one window's explanation needs of a task's journal, read as a stream and kept bounded.
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return the digest; fails with {@link HistoryTooLargeException} when more than {@code maxEvents}
   *     would be kept, with {@link JournalReadException} when the read takes longer than its timeout
   */
  public CompletionStage<WindowExplanation.Digest> digest(String taskId, String window) {
    WindowExplanation.Digest digest = new WindowExplanation.Digest(window, maxEvents);
    return source.apply(taskId)
        .completionTimeout(timeout)
        .runForeach(digest::add, system)
        // then the task's registrations (a task never fired has no journal of its own)
        .thenCompose(done -> registrations.apply(taskId).toCompletableFuture()
            .orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
            .thenApply(regs -> {
              digest.registered(regs);
              return done;
            }))
        .handle((done, error) -> {
          if (error == null) {
            return digest;
          }
          Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
              ? error.getCause() : error;
          if (e instanceof java.util.concurrent.TimeoutException) {
            throw new JournalReadException("task '" + taskId + "': no answer within " + timeout + " ("
                + digest.read() + " events read)", e);
          }
          if (e instanceof RuntimeException r) {
            throw r;
          }
          throw new JournalReadException("task '" + taskId + "': " + AuditReader.rootMessage(e), e);
        });
  }

  /**
   * Every event of one task's journal, in journal order, each timeout with its recorded cause: all
   * in memory, unbounded (for tools and tests; the HTTP routes use {@link #digest}).
   *
   * @param taskId the task's id
   * @return the events; empty for a task the journal does not know
   */
  public CompletionStage<List<AuditEvent>> events(String taskId) {
    return source.apply(taskId).runWith(Sink.seq(), system).thenApply(AuditEvent::withCauses);
  }

  /**
   * The events of one window of a task.
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return the window's events in journal order; empty when the task is unknown
   *     ({@link Optional#empty()}) and an empty list when the task has no events about that window
   */
  public CompletionStage<Optional<List<AuditEvent>>> timeline(String taskId, String window) {
    return digest(taskId, window).thenApply(d -> d.isEmpty() ? Optional.empty() : Optional.of(d.windowEvents()));
  }

  /**
   * The durable steps of one window of a task, per attempt ({@link WindowSteps}).
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return its steps in journal order (empty when it has none), or empty for a task the journal does not know
   */
  public CompletionStage<Optional<List<WindowSteps.Step>>> steps(String taskId, String window) {
    return digest(taskId, window).thenApply(d -> d.isEmpty() ? Optional.empty()
        : Optional.of(WindowSteps.of(d.windowEvents())));
  }

  /**
   * What each attempt of one window logged and the stack trace of its failure, as recorded with the
   * attempt's end ({@link io.almanac.journal.TaskJournal.AttemptLogged}); kept with the window's history,
   * so it lives as long as the journal keeps the window's events.
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return the attempts' logs in journal order (none for an attempt that logged nothing and did not
   *     throw), or empty for a task the journal does not know
   */
  public CompletionStage<Optional<List<io.almanac.journal.TaskJournal.AttemptLogged>>> logs(String taskId,
      String window) {
    return digest(taskId, window).thenApply(d -> d.isEmpty() ? Optional.empty() : Optional.of(d.attemptLogs()));
  }

  /**
   * Why a window of a task is as it is ({@link WindowExplanation}).
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return the explanation, or empty for a task the journal does not know
   */
  public CompletionStage<Optional<WindowExplanation.Explanation>> why(String taskId, String window) {
    return digest(taskId, window).thenApply(d -> d.isEmpty() ? Optional.empty() : Optional.of(d.explain(taskId)));
  }
}

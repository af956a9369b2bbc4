package io.almanac.persistence.audit;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * One task's journal read live, on a running node's own ActorSystem: the node holds its H2 file, so
 * no second process can read it while it runs. Reads through the node's JDBC read journal with an
 * {@link AuditReader} on that system (which it does not terminate), so the events are described as
 * the audit describes them. Thread-safe: each call is one read of the task's whole journal (page by
 * page, as {@link AuditReader#events(String)}), so its cost grows with the task's journal: retention
 * bounds it.
 *
 * <pre>{@code
 * WindowHistory history = WindowHistory.of(system);
 * history.why("digest", "2026-11-29").thenAccept(why -> System.out.println(why.map(Explanation::verdict)));
 * }</pre>
 */
public final class WindowHistory {

  private final ActorSystem<?> system;
  private final AuditReader reader;

  private WindowHistory(ActorSystem<?> system, AuditReader reader) {
    this.system = system;
    this.reader = reader;
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
    Objects.requireNonNull(system, "system");
    // A live reader: progress is not reported (a log line every 50,000 events would be noise).
    AuditReader reader = AuditReader.builder(system).progressEvery(Long.MAX_VALUE).onProgress(p -> { }).start();
    return new WindowHistory(system, reader);
  }

  /**
   * Every event of one task's journal, in journal order, each timeout with its recorded cause.
   *
   * @param taskId the task's id
   * @return the events; empty for a task the journal does not know
   */
  public CompletionStage<List<AuditEvent>> events(String taskId) {
    return reader.events(taskId).runWith(Sink.seq(), system).thenApply(AuditEvent::withCauses);
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
    return events(taskId).thenApply(all -> all.isEmpty() ? Optional.empty()
        : Optional.of(all.stream().filter(e -> e.isAbout(window)).toList()));
  }

  /**
   * Why a window of a task is as it is ({@link WindowExplanation}).
   *
   * @param taskId the task's id
   * @param window the window's key
   * @return the explanation, or empty for a task the journal does not know
   */
  public CompletionStage<Optional<WindowExplanation.Explanation>> why(String taskId, String window) {
    return events(taskId).thenApply(all -> all.isEmpty() ? Optional.empty()
        : Optional.of(WindowExplanation.explain(taskId, all, window)));
  }
}

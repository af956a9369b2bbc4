package io.almanac.samples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.EventSource;
import io.almanac.IncomingEvent;
import io.almanac.InvalidSpecException;
import io.almanac.PublishResult;
import io.almanac.RefusedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link EventSource} over a spool directory: the documented example of a message-queue
 * consumer (docs/triggers.md, "Message queues"). Each {@code *.json} file in the directory is one
 * event, with the JSON of {@code POST /api/events}: {@code {"type","id","eventTime","summary"}}
 * ({@code eventTime} an ISO-8601 instant, optional; {@code summary} optional).
 *
 * <p>Every {@code interval} its own thread scans the directory (oldest name first) and publishes
 * each file not already in flight. The file is settled only when the publisher's stage completes,
 * as a broker's message is acknowledged:
 *
 * <ul>
 *   <li>the stage completes: the event is in the journal; the file moves to {@code done/};
 *   <li>the stage fails with {@link InvalidSpecException} or {@link RefusedException}, or the file
 *       is not an event (not JSON, a field of the wrong JSON type, another field): it will never be
 *       accepted, so it is dead-lettered: {@code <name>.reason} (the refusal, one line) is written to
 *       {@code rejected/}, then the file is moved there;
 *   <li>any other failure (a task's queue of publishes is full: {@link io.almanac.OverloadedException};
 *       the outcome is unknown: {@link io.almanac.PublishOutcomeUnknownException}; the file could not be
 *       read) is transient: the file stays and the next scan delivers it again. A second delivery of an
 *       event that did reach the journal is recognised by its id and counted as a duplicate. An
 *       overloaded file is logged at DEBUG only (a storm would otherwise log a line per file and scan).
 * </ul>
 *
 * <p>Writers must create a file under another name (e.g. {@code .tmp}, or a name starting with a
 * dot) and rename it to {@code *.json} when it is complete, so a scan never reads half a file. A
 * file settled under a name already in {@code done/} or {@code rejected/} replaces it. {@link
 * #close()} stops the scans; a stage still in flight then settles its file when it completes, or
 * leaves it for the next start.
 */
public final class SpoolDirectoryEventSource implements EventSource {

  private static final Logger LOG = LoggerFactory.getLogger(SpoolDirectoryEventSource.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Set<String> FIELDS = Set.of("type", "id", "eventTime", "summary");

  /** What became of a file. */
  public enum Disposition {
    /** The event is in the journal: the file is in {@code done/}. */
    DONE,
    /** The event will never be accepted: the file and its reason are in {@code rejected/}. */
    REJECTED,
    /** A transient failure: the file stays for the next scan. */
    RETRY
  }

  /** Told of each file settled, e.g. for metrics or tests. */
  @FunctionalInterface
  public interface Listener {
    /**
     * @param file the file as it was in the spool directory
     * @param disposition what became of it
     * @param result what each task did (DONE only; else null)
     * @param error why it was rejected or left (else null)
     */
    void settled(Path file, Disposition disposition, PublishResult result, Throwable error);
  }

  private final Path dir;
  private final Path done;
  private final Path rejected;
  private final Duration interval;
  private final Listener listener;
  private final Set<Path> inFlight = ConcurrentHashMap.newKeySet();
  private volatile ScheduledExecutorService scanner;
  private volatile Publisher publisher;

  /**
   * @param dir the spool directory (created with {@code done/} and {@code rejected/} at start)
   * @param interval how often it is scanned (at least 10 ms)
   */
  public SpoolDirectoryEventSource(Path dir, Duration interval) {
    this(dir, interval, (file, disposition, result, error) -> { });
  }

  /**
   * @param dir the spool directory (created with {@code done/} and {@code rejected/} at start)
   * @param interval how often it is scanned (at least 10 ms)
   * @param listener told of each file settled
   */
  public SpoolDirectoryEventSource(Path dir, Duration interval, Listener listener) {
    this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath();
    this.done = this.dir.resolve("done");
    this.rejected = this.dir.resolve("rejected");
    if (interval == null || interval.toMillis() < 10) {
      throw new InvalidSpecException("interval", interval, "must be at least 10 ms");
    }
    this.interval = interval;
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public synchronized void start(Publisher publisher) throws IOException {
    if (scanner != null) {
      throw new IllegalStateException("spool " + dir + " is already started");
    }
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    Files.createDirectories(done);
    Files.createDirectories(rejected);
    scanner = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "almanac-spool-" + dir.getFileName());
      t.setDaemon(true);
      return t;
    });
    scanner.scheduleWithFixedDelay(this::scan, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    LOG.info("event source: spool directory {} scanned every {}", dir, interval);
  }

  @Override
  public synchronized void close() {
    ScheduledExecutorService s = scanner;
    if (s == null || s.isShutdown()) {
      return;
    }
    s.shutdownNow();
    try {
      if (!s.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("event source: spool directory {}: the scan did not stop within 10 s", dir);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("event source: spool directory {} stopped", dir);
  }

  /** @return whether {@link #close()} stopped the scans (none runs or will run) */
  public boolean stopped() {
    ScheduledExecutorService s = scanner;
    return s != null && s.isTerminated();
  }

  @Override
  public String toString() {
    return "SpoolDirectoryEventSource(" + dir + ")";
  }

  /** One scan: publishes each {@code *.json} file not in flight, oldest name first. */
  void scan() {
    try {
      for (Path file : files()) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        if (inFlight.add(file)) {
          deliver(file);
        }
      }
    } catch (IOException | RuntimeException e) {
      // never let one failure end the schedule: the next scan tries again
      LOG.warn("event source: spool directory {} could not be scanned: {}", dir, e.toString());
    }
  }

  private List<Path> files() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.json")) {
      for (Path p : stream) {
        if (!p.getFileName().toString().startsWith(".") && Files.isRegularFile(p)) {
          files.add(p);
        }
      }
    }
    files.sort(null);
    return files;
  }

  private void deliver(Path file) {
    IncomingEvent event;
    try {
      event = parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (InvalidSpecException e) {
      settle(file, null, e);
      return;
    } catch (java.nio.file.NoSuchFileException e) {
      inFlight.remove(file); // settled by a delivery that ended after this scan listed it
      return;
    } catch (IOException e) {
      settle(file, null, e); // unreadable now (e.g. removed or locked): transient
      return;
    }
    CompletableFuture<PublishResult> stage;
    try {
      stage = publisher.publish(event).toCompletableFuture();
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    stage.whenComplete((result, error) -> settle(file, result, error));
  }

  /** Moves the file as its outcome says, and always lets it be delivered again if it is still there. */
  private void settle(Path file, PublishResult result, Throwable failure) {
    Throwable error = unwrap(failure);
    Disposition disposition = error == null ? Disposition.DONE
        : error instanceof InvalidSpecException || error instanceof RefusedException ? Disposition.REJECTED
        : Disposition.RETRY;
    Disposition outcome = disposition;
    Throwable why = error;
    try {
      switch (disposition) {
        case DONE -> {
          Files.move(file, done.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
          LOG.debug("event source: {} published ({})", file.getFileName(), result);
        }
        case REJECTED -> {
          String reason = (error instanceof RefusedException refused ? refused.reason() + ": " : "")
              + error.getMessage();
          Files.writeString(rejected.resolve(file.getFileName() + ".reason"), reason.replaceAll("\\R", " ") + "\n",
              StandardCharsets.UTF_8);
          Files.move(file, rejected.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
          LOG.warn("event source: {} rejected: {}", file.getFileName(), reason);
        }
        case RETRY -> {
          if (error instanceof io.almanac.OverloadedException) {
            LOG.debug("event source: {} not published (overloaded), left for the next scan: {}", file.getFileName(),
                error.getMessage());
          } else {
            LOG.warn("event source: {} not published, left for the next scan: {}", file.getFileName(), String.valueOf(error));
          }
        }
        default -> throw new IllegalStateException(disposition.name());
      }
    } catch (IOException | RuntimeException e) {
      // the file stays in the spool directory: the next scan delivers it again (a duplicate if it was published)
      LOG.warn("event source: {} could not be moved ({}), left for the next scan: {}", file.getFileName(), disposition,
          e.toString());
      outcome = Disposition.RETRY;
      why = e;
    } finally {
      inFlight.remove(file);
    }
    try {
      listener.settled(file, outcome, outcome == Disposition.DONE ? result : null, why);
    } catch (RuntimeException e) {
      LOG.warn("event source: the listener failed for {}: {}", file.getFileName(), e.toString());
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /**
   * A file's event: its JSON types checked here, its values by the node.
   *
   * @param text the file's content
   * @return the event
   * @throws InvalidSpecException naming the field for a file that is not one event
   */
  static IncomingEvent parse(String text) {
    JsonNode parsed;
    try {
      parsed = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      String why = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("");
      throw new InvalidSpecException("body", text, "is not valid JSON: " + why);
    }
    if (!(parsed instanceof ObjectNode object)) {
      throw new InvalidSpecException("body", text, "must be a JSON object with type, id, eventTime, summary");
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidSpecException(name, object.get(name).toString(), "is not a field of an event (type, id, "
            + "eventTime, summary)");
      }
    }
    String time = text(object, "eventTime");
    Instant eventTime;
    try {
      eventTime = time == null ? null : Instant.parse(time.trim());
    } catch (DateTimeParseException e) {
      throw new InvalidSpecException("eventTime", time, "is not an ISO-8601 instant (e.g. 2026-11-29T02:15:00Z)");
    }
    return IncomingEvent.of(text(object, "type"), text(object, "id")).withEventTime(eventTime)
        .withSummary(text(object, "summary"));
  }

  private static String text(ObjectNode object, String field) {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new InvalidSpecException(field, v.toString(), "must be a JSON string");
    }
    return v.asText();
  }
}

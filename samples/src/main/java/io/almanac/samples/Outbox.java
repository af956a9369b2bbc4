package io.almanac.samples;

import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The demo's stand-in for a downstream system that must not receive a message twice: an
 * append-only file ({@code outbox.log}), one tab-separated line per pushed message:
 *
 * <pre>
 * pushed-at (UTC)   task/window (idempotency key)   effect key   attempt=N   message id   text
 * </pre>
 *
 * Each line is forced to disk before the push counts as done, so after a crash the file tells
 * whether a push whose outcome the effect ledger does not know did happen. A window pushed twice
 * shows as two lines with the same key and effect: {@code cut -f2,3 data/outbox.log | sort | uniq -d}
 * prints nothing when every window pushed at most once.
 */
public final class Outbox {

  /** The outbox file's name inside the demo's data folder. */
  public static final String FILE_NAME = "outbox.log";

  private static final Map<Path, Outbox> OPEN = new ConcurrentHashMap<>();

  private final Path file;
  private final Clock clock;
  /** One writer thread: lines never interleave, and no actor or job thread does the file I/O. */
  private final ExecutorService writer;

  private Outbox(Path file, Clock clock) {
    this.file = file;
    this.clock = clock;
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "outbox-writer");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The outbox in a data folder; one instance per file in this JVM.
   *
   * @param dataDir the demo's data folder (created if missing)
   * @param clock the clock that stamps lines
   * @return the outbox writing {@code dataDir/outbox.log}
   */
  public static Outbox in(Path dataDir, Clock clock) {
    Path file = dataDir.resolve(FILE_NAME).toAbsolutePath().normalize();
    return OPEN.computeIfAbsent(file, f -> new Outbox(f, clock));
  }

  /** @return the outbox file */
  public Path file() {
    return file;
  }

  /**
   * Pushes a message for a window, at most once per (window, effect key): through the window's
   * effect ledger (R19), so a retry of the window finds the message id the earlier attempt
   * recorded and pushes nothing. If an earlier attempt died between starting the push and
   * recording it, the ledger says the outcome is unknown; the outbox itself is then asked (by the
   * window's idempotency key) whether the push happened, and the answer is recorded.
   *
   * <p>Blocking: call it from the job's own thread.
   *
   * @param ctx the running attempt
   * @param effectKey the effect's key in the window's ledger, e.g. {@code push:outbox}
   * @param text the message
   * @param timeout how long to wait for the ledger and the file
   * @return the message id: the new one, or the one recorded by an earlier attempt
   * @throws Exception if the ledger or the file fails, the wait is interrupted or times out
   */
  public String pushOnce(JobContext ctx, String effectKey, String text, Duration timeout) throws Exception {
    try {
      return await(ctx.ledger().once(effectKey, () -> push(ctx.idempotencyKey(), effectKey, ctx.attempt(), text)), timeout);
    } catch (EffectOutcomeUnknownException unknown) {
      Optional<String> found = find(ctx.idempotencyKey(), effectKey);
      String id = found.isPresent() ? found.get() : await(push(ctx.idempotencyKey(), effectKey, ctx.attempt(), text), timeout);
      return await(ctx.ledger().record(effectKey, id), timeout);
    }
  }

  /**
   * Appends one line and forces it to disk, on the outbox's writer thread.
   *
   * @param idempotencyKey the window's key ({@code task/window})
   * @param effectKey the effect
   * @param attempt the attempt that pushes
   * @param text the message
   * @return the new message's id, once the line is on disk
   */
  public CompletionStage<String> push(String idempotencyKey, String effectKey, int attempt, String text) {
    return CompletableFuture.supplyAsync(() -> {
      String id = "msg-" + UUID.randomUUID().toString().substring(0, 8);
      String line = clock.instant() + "\t" + idempotencyKey + "\t" + effectKey + "\tattempt=" + attempt + "\t" + id + "\t"
          + text.replace('\t', ' ').replace('\n', ' ') + "\n";
      try {
        Files.createDirectories(file.getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
          ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
          while (bytes.hasRemaining()) {
            ch.write(bytes);
          }
          ch.force(true);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + file, e);
      }
      return id;
    }, writer);
  }

  /**
   * @param idempotencyKey the window's key ({@code task/window})
   * @param effectKey the effect
   * @return the id of the message pushed for them, if any
   */
  public Optional<String> find(String idempotencyKey, String effectKey) {
    return lines().stream()
        .map(l -> l.split("\t", -1))
        .filter(f -> f.length >= 5 && f[1].equals(idempotencyKey) && f[2].equals(effectKey))
        .map(f -> f[4])
        .findFirst();
  }

  /** @return every line of the outbox, oldest first (empty if nothing was pushed yet) */
  public List<String> lines() {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Waits for a stage, unwrapping its failure; interruptible (a cancelled job is interrupted). */
  static <T> T await(CompletionStage<T> stage, Duration timeout) throws Exception {
    try {
      return stage.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw e;
    } catch (TimeoutException e) {
      throw new TimeoutException("no answer within " + timeout);
    }
  }
}

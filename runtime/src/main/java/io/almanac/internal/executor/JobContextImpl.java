package io.almanac.internal.executor;

import io.almanac.EffectLedger;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import io.almanac.JobLog;
import io.almanac.journal.AttemptLog;
import io.almanac.LeaseLostException;
import io.almanac.LeasePolicy;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.AlmanacException;
import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import io.almanac.StepResultTooLargeException;
import io.almanac.StepTypeMismatchException;
import io.almanac.Usage;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.StepBounds;
import io.almanac.journal.UsageRecord;
import io.almanac.journal.WindowState;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.pattern.AskTimeoutException;

/**
 * The context of one running attempt; called from job threads. It holds the attempt's data and a
 * {@link JobPort}, never an actor (JobContextHoldsNoActorTest). INTERNAL API.
 */
final class JobContextImpl implements JobContext, EffectLedger {
  private static final org.slf4j.Logger JOB_LOG = org.slf4j.LoggerFactory.getLogger(JobLog.LOGGER);

  private final JobPort port;
  /** The executor's clock: the lease's remaining time is measured on it, as the executor's lease check does. */
  private final Clock clock;
  private final RunningAttempt running;
  private final TaskProtocol.AttemptGrant grant;
  private final ZoneId zone;
  private final Map<String, String> recorded;
  private final Set<String> pendingAtStart;
  private final Set<String> intendedHere = ConcurrentHashMap.newKeySet();
  /** The window's steps recorded by earlier attempts (and by this one, as it records them). */
  private final Map<String, WindowState.RecordedStep> steps;
  /** The step names this attempt reached: a name is reached at most once per attempt. */
  private final Set<String> reached = ConcurrentHashMap.newKeySet();
  /** The steps this attempt got from the record without running them, in the order reached. */
  private final List<String> replayed = new CopyOnWriteArrayList<>();
  private final JobLogSettings logBounds;
  private final JobLogBuffer lines;
  private final AttemptJobLog log = new AttemptJobLog();
  /** Guards the live report's throttle and its latest progress. */
  private final Object live = new Object();
  private Double fraction;
  private String progressText;
  private Instant liveSentAt;
  private boolean liveFlushPending;
  private boolean ended;

  JobContextImpl(JobPort port, RunningAttempt running, TaskProtocol.AttemptGrant grant, String zone, Clock clock) {
    this(port, running, grant, zone, clock, JobLogSettings.DEFAULT);
  }

  JobContextImpl(JobPort port, RunningAttempt running, TaskProtocol.AttemptGrant grant, String zone, Clock clock,
      JobLogSettings logBounds) {
    this.logBounds = logBounds;
    this.lines = new JobLogBuffer(logBounds);
    this.port = port;
    this.clock = clock;
    this.running = running;
    this.grant = grant;
    this.zone = ZoneId.of(zone);
    this.recorded = new ConcurrentHashMap<>(grant.effects());
    this.pendingAtStart = new HashSet<>(grant.pendingEffects());
    this.steps = grant.steps().isEmpty() ? new ConcurrentHashMap<>() : new ConcurrentHashMap<>(grant.steps());
  }

  @Override
  public String taskId() {
    return grant.taskId();
  }

  @Override
  public WindowKey window() {
    return WindowKey.of(grant.window());
  }

  @Override
  public Instant windowStart() {
    return grant.windowStart();
  }

  @Override
  public Instant scheduledAt() {
    return grant.dueAt();
  }

  @Override
  public Instant windowEnd() {
    return grant.windowEnd();
  }

  @Override
  public ZoneId zone() {
    return zone;
  }

  @Override
  public int attempt() {
    return grant.attempt();
  }

  @Override
  public RunKind runKind() {
    return grant.kind();
  }

  @Override
  public String idempotencyKey() {
    return grant.taskId() + "/" + grant.window();
  }

  @Override
  public Instant deadline() {
    return running.deadline;
  }

  @Override
  public CompletionStage<Instant> heartbeat() {
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    return port.heartbeat(running.item, running.attempt);
  }

  @Override
  public boolean isCancelled() {
    return running.cancelled.isDone();
  }

  @Override
  public boolean holdsLease() {
    return !running.fenced && !running.cancelled.isDone() && port.leaseValid();
  }

  private LeaseLostException leaseLost() {
    String why;
    if (running.fenced || !port.leaseValid()) {
      why = "its node lost the executor's lease (a freeze, the journal's database out of reach, or downed); "
          + "another node may run the window's retry";
    } else {
      why = "the attempt was cancelled (its lease expired, an operator cancelled it, or it was superseded)";
    }
    return new LeaseLostException(running.item.taskId(), running.item.window(), running.attempt, why);
  }

  /**
   * Never an intent or an effect recorded for an attempt that may run beside its retry. A write waits
   * for the task's journal as long as the attempt holds its lease, not a fixed ask timeout (a loaded
   * journal answers late, and a write given up early fails a job that would have succeeded): until
   * the answer, or the attempt's cancellation (the executor cancels it when its lease ends, as it does
   * on an operator's cancel or a lost fence), or, should neither come, the lease's remaining time
   * plus the ask timeout. Without an answer the write fails with {@link EffectOutcomeUnknownException}
   * saying whether the effect ran; a refusal is passed on as it is.
   */
  private CompletionStage<TaskProtocol.EffectReply> recordEffect(String key, String value, boolean intent) {
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    CompletableFuture<TaskProtocol.EffectReply> out = new CompletableFuture<>();
    write(key, value, intent, out);
    running.cancelled.whenComplete((v, e) -> out.completeExceptionally(noAnswer(key, intent, leaseLost())));
    return out;
  }

  /**
   * One ask of the write. Should it get no answer while a heartbeat extended the lease meanwhile, it
   * is asked again for the new lease: the same write twice is safe (an intent already recorded by this
   * attempt is answered as pending and lets it run its effect, a value already recorded is answered
   * with that value).
   */
  private void write(String key, String value, boolean intent, CompletableFuture<TaskProtocol.EffectReply> out) {
    Instant leaseAtAsk = running.deadline;
    port.recordEffect(running.item, running.attempt, key, value, intent, ledgerWait()).whenComplete((reply, error) -> {
      if (error == null) {
        out.complete(reply);
        return;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (!unanswered(cause)) {
        out.completeExceptionally(cause);
      } else if (!out.isDone() && holdsLease() && running.deadline.isAfter(leaseAtAsk)) {
        write(key, value, intent, out);
      } else {
        out.completeExceptionally(noAnswer(key, intent, cause));
      }
    });
  }

  /** The attempt's lease's remaining time (none once it ended), at most the longest lease, plus the ask timeout. */
  Duration ledgerWait() {
    Duration remaining = Duration.between(clock.instant(), running.deadline);
    if (remaining.isNegative()) {
      remaining = Duration.ZERO;
    } else if (remaining.compareTo(LeasePolicy.MAX_CEILING) > 0) {
      remaining = LeasePolicy.MAX_CEILING;
    }
    return remaining.plus(port.askTimeout());
  }

  /** Whether a write's failure is the lack of an answer (rather than a refusal). */
  private static boolean unanswered(Throwable error) {
    return error instanceof java.util.concurrent.TimeoutException || error instanceof AskTimeoutException;
  }

  /**
   * A write that got no answer while the attempt held its lease. An intent's: the effect was not run,
   * and whether the intent was recorded is unknown, so this attempt must not make the effect by other
   * means (a job that answers {@link EffectOutcomeUnknownException} by checking downstream and making
   * the effect itself would make it outside the ledger, and a retry that finds no intent would make it
   * again): {@link LeaseLostException}, the attempt is over. A value's: the effect ran and its record
   * is unknown: {@link EffectOutcomeUnknownException}, the downstream check the ledger's contract asks.
   */
  private RuntimeException noAnswer(String key, boolean intent, Throwable cause) {
    String held = "got no answer from the task's journal while the attempt held its lease (" + cause.getMessage() + ")";
    if (intent) {
      LeaseLostException lost = new LeaseLostException(grant.taskId(), grant.window(), grant.attempt(), "the intent of "
          + "effect '" + key + "' " + held + ": the effect was not run and must not be made by this attempt; whether the "
          + "intent was recorded is unknown, so a later attempt may find this effect's outcome unknown");
      lost.initCause(cause);
      return lost;
    }
    return new EffectOutcomeUnknownException(grant.taskId(), grant.window(), key, "ran, but the record of its value "
        + held + "; unless that record lands, a later attempt finds this effect's outcome unknown", cause);
  }


  @Override
  public JobLog log() {
    return log;
  }

  @Override
  public io.opentelemetry.context.Context traceContext() {
    io.almanac.internal.trace.AttemptTrace trace = running.trace;
    return trace == null ? io.opentelemetry.context.Context.root() : trace.context();
  }

  @Override
  public void progress(double fraction, String text) {
    if (Double.isNaN(fraction) || fraction < 0 || fraction > 1) {
      throw new IllegalArgumentException("fraction '" + fraction + "' is invalid: must be a number from 0 to 1 (task '"
          + grant.taskId() + "' window '" + grant.window() + "' attempt " + grant.attempt() + ")");
    }
    synchronized (live) {
      this.fraction = fraction;
      this.progressText = text == null ? null : JobLogBuffer.cut(text, logBounds.maxLineLength());
    }
    liveChanged();
  }

  /**
   * The attempt ended: no live report is sent from now on.
   *
   * @param error what the job threw or its stage failed with, or null
   * @return what the attempt leaves: its kept lines and the stack trace of {@code error}
   */
  AttemptLog end(Throwable error) {
    synchronized (live) {
      ended = true;
    }
    return lines.snapshot(JobLogBuffer.stackTrace(error, logBounds.maxStackTrace()));
  }

  /**
   * Something a view shows changed: it is sent at once when the last send is a live-interval old,
   * otherwise once when the interval has passed (one pending send at a time, carrying the latest).
   */
  private void liveChanged() {
    boolean now;
    Duration wait = null;
    synchronized (live) {
      if (ended) {
        return;
      }
      Instant t = clock.instant();
      now = liveSentAt == null || !t.isBefore(liveSentAt.plus(logBounds.liveInterval()));
      if (now) {
        liveSentAt = t;
      } else if (!liveFlushPending) {
        liveFlushPending = true;
        wait = Duration.between(t, liveSentAt.plus(logBounds.liveInterval()));
      }
    }
    if (now) {
      sendLive();
    } else if (wait != null) {
      port.later(wait, this::flushLive);
    }
  }

  private void flushLive() {
    synchronized (live) {
      liveFlushPending = false;
      if (ended) {
        return;
      }
      liveSentAt = clock.instant();
    }
    sendLive();
  }

  private void sendLive() {
    io.almanac.WindowView.Progress p;
    synchronized (live) {
      if (ended) {
        return;
      }
      p = new io.almanac.WindowView.Progress(grant.attempt(), fraction, progressText, clock.instant(), lines.latest());
    }
    port.live(running.item, running.attempt, p);
  }

  /** The attempt's {@link JobLog}: each line kept (bounded), logged to SLF4J with the attempt's MDC, shown live. */
  private final class AttemptJobLog implements JobLog {
    @Override
    public void info(String format, Object... args) {
      line(JobLog.Level.INFO, format, args);
    }

    @Override
    public void warn(String format, Object... args) {
      line(JobLog.Level.WARN, format, args);
    }

    @Override
    public void error(String format, Object... args) {
      line(JobLog.Level.ERROR, format, args);
    }

    private void line(JobLog.Level level, String format, Object[] args) {
      org.slf4j.helpers.FormattingTuple f = org.slf4j.helpers.MessageFormatter.arrayFormat(format, args);
      Throwable t = f.getThrowable();
      String text = f.getMessage() == null ? "null" : f.getMessage();
      if (t != null) {
        text = text + " (" + t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage()) + ")";
      }
      lines.add(clock.instant(), level, text);
      java.util.Map<String, String> before = org.slf4j.MDC.getCopyOfContextMap();
      try (io.almanac.internal.meter.AttemptMdc mdc = io.almanac.internal.meter.AttemptMdc.of(grant.taskId(),
          grant.window(), grant.attempt())) {
        switch (level) {
          case INFO -> JOB_LOG.info(f.getMessage(), t);
          case WARN -> JOB_LOG.warn(f.getMessage(), t);
          case ERROR -> JOB_LOG.error(f.getMessage(), t);
        }
      } finally {
        if (before != null) {
          org.slf4j.MDC.setContextMap(before); // the job's own thread keeps its MDC
        }
      }
      liveChanged();
    }
  }

  @Override
  public CompletionStage<Void> cancellation() {
    return running.cancelled.copy();
  }

  @Override
  public boolean isStopping() {
    return running.stopping.isDone();
  }

  @Override
  public CompletionStage<Void> stopping() {
    return running.stopping.copy();
  }

  @Override
  public EffectLedger ledger() {
    return this;
  }

  @Override
  public Optional<String> recorded(String key) {
    return Optional.ofNullable(recorded.get(key));
  }

  @Override
  public CompletionStage<String> once(String key, Supplier<CompletionStage<String>> effect) {
    String done = recorded.get(key);
    if (done != null) {
      return CompletableFuture.completedFuture(done);
    }
    if (pendingAtStart.contains(key) && !intendedHere.contains(key)) {
      return CompletableFuture.failedFuture(new EffectOutcomeUnknownException(grant.taskId(), grant.window(), key));
    }
    return recordEffect(key, null, true).thenCompose(intent -> {
      if (intent.value() != null) {
        recorded.put(key, intent.value());
        return CompletableFuture.completedFuture(intent.value());
      }
      intendedHere.add(key);
      CompletionStage<String> result;
      try {
        result = effect.get();
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      return result.thenCompose(value -> record(key, value == null ? "" : value));
    });
  }

  @Override
  public CompletionStage<String> record(String key, String value) {
    return recordEffect(key, value, false).thenApply(reply -> {
      recorded.put(key, reply.value());
      return reply.value();
    });
  }

  // ---- durable steps (distinct from the ledger above: no intent; a step cut off midway runs again)

  /** How step results are written and read: Java time and Optional as values, dates as text. */
  private static final JsonMapper STEP_JSON = JsonMapper.builder()
      .addModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
      .addModule(new com.fasterxml.jackson.datatype.jdk8.Jdk8Module())
      .addModule(new com.fasterxml.jackson.module.paramnames.ParameterNamesModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .build();

  /** @return the steps this attempt replayed, in the order reached (told with its result) */
  List<String> replayedSteps() {
    return replayed.isEmpty() ? List.of() : List.copyOf(replayed);
  }

  @Override
  public <T> CompletionStage<T> step(String name, Class<T> type, Supplier<? extends CompletionStage<T>> body,
      Function<? super T, Usage> usage) {
    StepBounds bounds = port.stepBounds();
    if (name == null || name.isBlank()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("step.name", name, "a step's name must not be blank"));
    }
    if (name.length() > bounds.maxNameLength()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("step.name", name, name.length()
          + " characters, at most " + bounds.maxNameLength() + " (almanac.task.max-step-name-length)"));
    }
    if (type == null || body == null) {
      return CompletableFuture.failedFuture(new InvalidSpecException(type == null ? "step.type" : "step.body", null,
          "step '" + name + "' needs a " + (type == null ? "result type" : "body")));
    }
    if (!reached.add(name)) {
      return CompletableFuture.failedFuture(new InvalidSpecException("step.name", name, "this attempt already reached "
          + "step '" + name + "': each step of a window needs its own name (in a loop, e.g. 'search-' + i)"));
    }
    WindowState.RecordedStep done = steps.get(name);
    if (done != null) {
      T value;
      try {
        value = STEP_JSON.readValue(done.result(), type);
      } catch (JsonProcessingException | RuntimeException e) {
        return CompletableFuture.failedFuture(new StepTypeMismatchException(grant.taskId(), grant.window(), name,
            done.attempt(), done.type(), type.getName(), e));
      }
      replayed.add(name);
      io.almanac.internal.trace.AttemptTrace trace = running.trace;
      if (trace != null) {
        io.almanac.internal.trace.AttemptTrace.endStep(trace.step(name, true, done.attempt()), null);
      }
      return CompletableFuture.completedFuture(value);
    }
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    io.almanac.internal.trace.AttemptTrace trace = running.trace;
    if (trace == null) {
      return runStep(name, type, body, usage, bounds, null);
    }
    // traced: the step's span is current while its body is called (a model client's spans nest under it)
    io.opentelemetry.api.trace.Span span = trace.step(name, false, running.attempt);
    CompletionStage<T> out;
    try (io.opentelemetry.context.Scope scope = span.makeCurrent()) {
      out = runStep(name, type, body, usage, bounds, span);
    }
    return out.whenComplete((value, error) -> io.almanac.internal.trace.AttemptTrace.endStep(span,
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error));
  }

  /** Runs a step's body and records its result. */
  private <T> CompletionStage<T> runStep(String name, Class<T> type, Supplier<? extends CompletionStage<T>> body,
      Function<? super T, Usage> usage, StepBounds bounds, io.opentelemetry.api.trace.Span span) {
    Instant began = clock.instant();
    CompletionStage<T> stage;
    try {
      stage = body.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // a step that throws records nothing
    }
    if (stage == null) {
      return CompletableFuture.failedFuture(new AlmanacException("step '" + name
          + "': its body returned null instead of a CompletionStage"));
    }
    return stage.thenCompose(value -> recordStep(name, type, value, usage, Duration.between(began, clock.instant()),
        bounds, span));
  }

  /** Records a step's result (its bound checked here first, before anything is sent), then hands the result on. */
  private <T> CompletionStage<T> recordStep(String name, Class<T> type, T value, Function<? super T, Usage> usageOf,
      Duration took, StepBounds bounds, io.opentelemetry.api.trace.Span span) {
    String json;
    UsageRecord usage;
    try {
      json = STEP_JSON.writeValueAsString(value);
      usage = usageOf == null ? null : UsageRecord.of(usageOf.apply(value));
      if (span != null) {
        io.almanac.internal.trace.AttemptTrace.usage(span, usage);
      }
    } catch (JsonProcessingException e) {
      return CompletableFuture.failedFuture(new AlmanacException("task '" + grant.taskId() + "' window '" + grant.window()
          + "': step '" + name + "': its result of type " + type.getName() + " cannot be written as JSON ("
          + e.getOriginalMessage() + ")", e));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    int size = StepBounds.utf8Length(json);
    if (size > bounds.maxResultBytes()) {
      return CompletableFuture.failedFuture(new StepResultTooLargeException(grant.taskId(), grant.window(), name, size,
          bounds.maxResultBytes()));
    }
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    port.recordStep(running.item, running.attempt, name, type.getName(), json, usage, took, ledgerWait())
        .whenComplete((reply, error) -> {
          if (error == null) {
            steps.put(name, new WindowState.RecordedStep(running.attempt, type.getName(), reply.result(), usage, took,
                clock.instant()));
            if (reply.recordedNow() && usage != null) {
              port.stepUsed(running.item, running.attempt, usage);
            }
            out.complete(value);
            return;
          }
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          out.completeExceptionally(stepNotRecorded(name, cause));
        });
    running.cancelled.whenComplete((v, e) -> out.completeExceptionally(stepNotRecorded(name, leaseLost())));
    return out;
  }

  /** Why a step's record failed: the attempt lost the window, the task refused it, or no answer came. */
  private RuntimeException stepNotRecorded(String name, Throwable cause) {
    if (cause instanceof LeaseLostException lost) {
      return lost;
    }
    if (cause instanceof RefusedException refused && refused.reason() == RefusedException.Reason.STALE_ATTEMPT) {
      LeaseLostException lost = new LeaseLostException(grant.taskId(), grant.window(), grant.attempt(), "step '" + name
          + "' ran but was not recorded: " + refused.getMessage());
      lost.initCause(refused);
      return lost;
    }
    if (cause instanceof AlmanacException refusal) {
      return refusal;
    }
    return new AlmanacException("task '" + grant.taskId() + "' window '" + grant.window() + "': step '" + name
        + "' ran, but its record got no answer from the task's journal while the attempt held its lease ("
        + cause.getMessage() + "); a later attempt runs it again", cause);
  }
}

package io.almanac.internal.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.internal.meter.NodeMeters;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook alert sink ({@code almanac.alerts.webhook}): POSTs each alert as one JSON object to a
 * URL, one alert at a time and in the order raised, from a thread of its own. {@link #alert} never
 * blocks and never does I/O: it puts the alert in a bounded queue; when the queue is full the OLDEST
 * waiting alert is dropped (the newest say what holds now, e.g. TRIGGER_RECOVERED after
 * TRIGGER_STALLED), counted in {@code almanac.alerts.webhook.dropped} and logged at most once per
 * summary interval.
 *
 * <p>An attempt succeeds on a 2xx answer. A timeout, a connection error, 408, 425, 429 or 5xx is
 * tried again after the backoff (doubled each time, at most max-backoff) until max-attempts; any
 * other answer (3xx, 4xx) is refused for good at once: sending the same body again would not help.
 * Every attempt of an alert sends the same body with the same {@code id}, so a receiver can drop
 * repeats. Logs name the URL by scheme, host and port only and never show a header.
 */
final class WebhookSink implements AlertSink {
  private static final Logger LOG = LoggerFactory.getLogger("io.almanac.alerts");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the sink's steps run: one at a time, now or after a delay (a thread in production, the test's hand in tests). */
  interface Runner {
    /** @param step runs soon */
    void run(Runnable step);

    /** @param step runs after the delay @param delay the delay */
    void later(Runnable step, Duration delay);

    /** Stops: nothing given after this runs. */
    void close();
  }

  /** Told where each alert stands at the webhook (the alert history); called on the sink's thread or the raiser's. */
  interface DeliveryListener {
    void delivery(Alert alert, io.almanac.AlertRecord.DeliveryStatus status, int attempts, String detail);
  }

  private volatile DeliveryListener listener = (a, st, n, detail) -> { };

  /** @param l told where each alert stands at the webhook from now on */
  void onDelivery(DeliveryListener l) {
    listener = Objects.requireNonNull(l, "listener");
  }

  /** @return the webhook's name in the alert history: {@code webhook} and its scheme, host and port */
  String name() {
    return "webhook " + settings.target();
  }

  private final WebhookSettings settings;
  private final String node;
  private final NodeMeters meters;
  private final Runner runner;
  private final HttpClient http;
  private final Throttle dropLog;
  private final Throttle failLog;

  private final Object lock = new Object();
  private final ArrayDeque<Alert> queue = new ArrayDeque<>();
  /** A step is scheduled or running (under lock). */
  private boolean busy;
  private boolean closed;
  /** Stopping: new alerts are refused, a failed attempt is not tried again (under lock). */
  private boolean closing;
  /** The alert being sent and its attempts so far: touched by steps only, which run one at a time. */
  private volatile Alert current;
  private int attempts;

  WebhookSink(WebhookSettings settings, String node, NodeMeters meters, Runner runner, Duration logEvery,
      LongSupplier nanoTime) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.node = node;
    this.meters = Objects.requireNonNull(meters, "meters");
    this.runner = Objects.requireNonNull(runner, "runner");
    this.http = HttpClient.newBuilder().connectTimeout(settings.timeout()).followRedirects(HttpClient.Redirect.NEVER).build();
    this.dropLog = new Throttle(logEvery.toNanos(), nanoTime);
    this.failLog = new Throttle(logEvery.toNanos(), nanoTime);
  }

  /**
   * @param settings the checked settings
   * @param node this node, as the payload's {@code node}
   * @param meters where the counts go
   * @param logEvery the least time between two lines of dropped or failed alerts
   * @return a started sink, on a daemon thread of its own
   */
  static WebhookSink start(WebhookSettings settings, String node, NodeMeters meters, Duration logEvery) {
    return new WebhookSink(settings, node, meters, threadRunner(), logEvery, System::nanoTime);
  }

  /**
   * @param first the sink the node had (the logging one or the application's)
   * @param second the webhook
   * @return a sink that gives each alert to both, the first's failure not keeping it from the second
   */
  static AlertSink both(AlertSink first, AlertSink second) {
    return alert -> {
      try {
        first.alert(alert);
      } catch (RuntimeException e) {
        LOG.warn("the alert sink failed on a {} alert; the webhook still gets it", alert.kind(), e);
      }
      second.alert(alert);
    };
  }

  @Override
  public void alert(Alert alert) {
    if (!settings.sends(alert.kind())) {
      return;
    }
    Alert dropped = null;
    boolean start = false;
    boolean refused = false;
    int size;
    synchronized (lock) {
      if (closing) {
        refused = true;
      } else {
        if (queue.size() >= settings.queueSize()) {
          dropped = queue.pollFirst();
        }
        queue.addLast(alert);
        start = !busy;
        busy = true;
      }
      size = queue.size();
    }
    if (refused) {
      meters.webhookDropped("closed");
      listener.delivery(alert, io.almanac.AlertRecord.DeliveryStatus.FAILED, 0, "not sent: the node is stopping");
      dropLog.log(n -> "webhook alerts: the node is stopping, a " + alert.kind() + " alert is not sent to "
          + settings.target() + more(n));
      return;
    }
    if (dropped != null) {
      Alert d = dropped;
      meters.webhookDropped("queue_full");
      listener.delivery(d, io.almanac.AlertRecord.DeliveryStatus.FAILED, 0, "dropped: the webhook's queue was full");
      dropLog.log(n -> "webhook alerts: the queue to " + settings.target() + " is full (" + size + " alerts waiting): dropped the "
          + "oldest, a " + d.kind() + " alert" + about(d) + more(n));
    }
    if (start) {
      go(this::step);
    }
  }

  /**
   * Stops: refuses new alerts, sends those waiting for at most {@code grace} (a failed attempt is not
   * tried again), then stops sending; the alerts still not sent are counted in the log.
   *
   * @param grace the most time given to the alerts waiting
   */
  void close(Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    int left;
    synchronized (lock) {
      closing = true;
      long wait;
      while (busy && (wait = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      closed = true;
      left = queue.size() + (current == null ? 0 : 1);
    }
    runner.close();
    if (left > 0) {
      LOG.warn("webhook alerts: stopping with {} alerts not sent to {}", left, settings.target());
    }
  }

  /** One attempt of the alert at the head, or nothing left to do; a bug here skips the alert, never stops the sink. */
  private void step() {
    try {
      attempt();
    } catch (RuntimeException e) {
      LOG.error("webhook alerts: a {} alert could not be sent, skipped", current == null ? "" : current.kind(), e);
      next();
    }
  }

  private void attempt() {
    if (current == null) {
      synchronized (lock) {
        current = queue.pollFirst();
        if (current == null) {
          busy = false;
          lock.notifyAll(); // close() waits for this
          return;
        }
      }
      attempts = 0;
    }
    attempts++;
    Attempt result = post(current);
    if (result.sent()) {
      meters.webhookSent();
      listener.delivery(current, io.almanac.AlertRecord.DeliveryStatus.DELIVERED, attempts, null);
      next();
      return;
    }
    meters.webhookAttemptFailed(result.cause());
    Alert a = current;
    int n = attempts;
    if (result.retry() && closingNow()) {
      meters.webhookDropped("closed");
      listener.delivery(a, io.almanac.AlertRecord.DeliveryStatus.FAILED, n, result.detail() + "; not sent again: the node is stopping");
      failLog.log(k -> "webhook alerts: the node is stopping: a " + a.kind() + " alert" + about(a) + " is not sent again to "
          + settings.target() + " after " + result.detail() + more(k));
      next();
    } else if (!result.retry()) {
      meters.webhookDropped("refused");
      listener.delivery(a, io.almanac.AlertRecord.DeliveryStatus.FAILED, n, "refused: " + result.detail());
      failLog.log(k -> "webhook alerts: " + settings.target() + " refused a " + a.kind() + " alert" + about(a) + ": "
          + result.detail() + "; not sent again" + more(k));
      next();
    } else if (n >= settings.maxAttempts()) {
      meters.webhookDropped("gave_up");
      listener.delivery(a, io.almanac.AlertRecord.DeliveryStatus.FAILED, n, "gave up: " + result.detail());
      failLog.log(k -> "webhook alerts: gave up on a " + a.kind() + " alert" + about(a) + " after " + n + " attempts to "
          + settings.target() + ", the last: " + result.detail() + more(k));
      next();
    } else {
      Duration wait = settings.backoffAfter(n);
      listener.delivery(a, io.almanac.AlertRecord.DeliveryStatus.RETRYING, n, result.detail());
      failLog.log(k -> "webhook alerts: attempt " + n + " of " + settings.maxAttempts() + " to send a " + a.kind()
          + " alert to " + settings.target() + " failed (" + result.detail() + "); trying again in " + wait + more(k));
      if (!closedNow()) {
        try {
          runner.later(this::step, wait);
        } catch (RejectedExecutionException stopped) {
          // closing: close() counted what is left
        }
      }
    }
  }

  private void next() {
    current = null;
    go(this::step);
  }

  private void go(Runnable step) {
    if (closedNow()) {
      return;
    }
    try {
      runner.run(step);
    } catch (RejectedExecutionException stopped) {
      // closing: close() counted what is left
    }
  }

  private boolean closingNow() {
    synchronized (lock) {
      return closing;
    }
  }

  private boolean closedNow() {
    synchronized (lock) {
      return closed;
    }
  }

  /** What one attempt came to: sent; or failed with a bounded cause, a detail for the log, and whether to retry. */
  private record Attempt(boolean sent, boolean retry, String cause, String detail) {
    static final Attempt SENT = new Attempt(true, false, "", "");
  }

  private Attempt post(Alert alert) {
    try {
      HttpRequest.Builder b = HttpRequest.newBuilder(settings.url()).timeout(settings.timeout())
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body(alert, node)));
      settings.headers().forEach(b::setHeader);
      HttpResponse<String> answer = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      int status = answer.statusCode();
      if (status >= 200 && status < 300) {
        return Attempt.SENT;
      }
      boolean retry = status == 408 || status == 425 || status == 429 || status >= 500;
      String text = answer.body() == null ? "" : answer.body().strip();
      return new Attempt(false, retry, "status", "HTTP " + status
          + (text.isEmpty() ? "" : " " + (text.length() > 200 ? text.substring(0, 200) + "…" : text)));
    } catch (HttpTimeoutException e) {
      return new Attempt(false, true, "timeout", "no answer within " + settings.timeout());
    } catch (ConnectException e) {
      return new Attempt(false, true, "connect", "cannot connect" + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    } catch (IOException | RuntimeException e) {
      return new Attempt(false, true, "error", e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage().replace(settings.url().toString(), settings.target())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Attempt(false, false, "error", "interrupted (the node is stopping)");
    }
  }

  /**
   * The payload: {@code id, kind, task, window, message, at, node}. The id is derived from the node,
   * kind, task, window and time, so every attempt of an alert carries the same one.
   *
   * @param alert the alert
   * @param node the node that raised it
   * @return the JSON body, UTF-8
   */
  static byte[] body(Alert alert, String node) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", id(alert, node));
    o.put("kind", alert.kind().name());
    o.put("task", alert.taskId());
    o.put("window", alert.window());
    o.put("message", alert.message());
    o.put("at", alert.at() == null ? null : alert.at().toString());
    o.put("node", node);
    try {
      return JSON.writeValueAsBytes(o);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("an alert did not serialize", e);
    }
  }

  /** @return the alert's stable id: a name-based UUID of node, kind, task, window and time */
  static String id(Alert alert, String node) {
    String key = node + "\n" + alert.kind().name() + "\n" + alert.taskId() + "\n" + alert.window() + "\n" + alert.at();
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static String about(Alert a) {
    return (a.taskId() == null ? "" : " of task '" + a.taskId() + "'") + (a.window() == null ? "" : " window '" + a.window() + "'");
  }

  private static String more(long n) {
    return n == 0 ? "" : " (and " + n + " more such lines not logged since the last one)";
  }

  /** Logs at WARN at most once per interval; the next line says how many were folded meanwhile. */
  private static final class Throttle {
    private final long everyNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong last;
    private final AtomicLong folded = new AtomicLong();

    Throttle(long everyNanos, LongSupplier nanoTime) {
      this.everyNanos = everyNanos;
      this.nanoTime = nanoTime;
      this.last = new AtomicLong(nanoTime.getAsLong() - everyNanos);
    }

    void log(java.util.function.LongFunction<String> line) {
      long now = nanoTime.getAsLong();
      long l = last.get();
      if (now - l < everyNanos || !last.compareAndSet(l, now)) {
        folded.incrementAndGet();
        return;
      }
      LOG.warn(line.apply(folded.getAndSet(0)));
    }
  }

  private static Runner threadRunner() {
    ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "almanac-webhook-alerts");
      t.setDaemon(true);
      return t;
    });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    exec.setRemoveOnCancelPolicy(true);
    return new Runner() {
      @Override
      public void run(Runnable step) {
        exec.execute(step);
      }

      @Override
      public void later(Runnable step, Duration delay) {
        exec.schedule(step, delay.toNanos(), TimeUnit.NANOSECONDS);
      }

      @Override
      public void close() {
        exec.shutdownNow();
      }
    };
  }
}

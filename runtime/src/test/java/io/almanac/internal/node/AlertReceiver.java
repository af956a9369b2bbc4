package io.almanac.internal.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on the loopback interface (the JDK's), for webhook tests: it records every
 * request to {@code /alerts} and answers with the statuses the test scripts (204 once they run out);
 * a scripted status of 0 makes it hang until {@link #close}.
 */
public final class AlertReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request as the server saw it. */
  public record Request(String method, Map<String, List<String>> headers, String body) {
    /** @return the body as JSON */
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** @param name a header name @return its first value, or null */
    public String header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
          .map(e -> e.getValue().get(0)).orElse(null);
    }
  }

  private final HttpServer server;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final BlockingQueue<Request> received = new LinkedBlockingQueue<>();
  private final ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
  private final CountDownLatch hang = new CountDownLatch(1);

  private AlertReceiver(int port) {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(pool);
    server.createContext("/alerts", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      received.add(new Request(exchange.getRequestMethod(), Map.copyOf(exchange.getRequestHeaders()),
          new String(body, StandardCharsets.UTF_8)));
      Integer status = statuses.poll();
      if (status != null && status == 0) {
        try {
          hang.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        exchange.close();
        return;
      }
      byte[] answer = "ok".getBytes(StandardCharsets.UTF_8);
      int code = status == null ? 204 : status;
      exchange.sendResponseHeaders(code, code == 204 ? -1 : answer.length);
      if (code != 204) {
        exchange.getResponseBody().write(answer);
      }
      exchange.close();
    });
    server.start();
  }

  /** @return a receiver on a free port */
  public static AlertReceiver start() {
    return new AlertReceiver(0);
  }

  /** @param port the port (e.g. one a closed receiver had) @return a receiver on it */
  public static AlertReceiver on(int port) {
    return new AlertReceiver(port);
  }

  /** @param codes the next answers' statuses, in order (0: hang) @return this */
  public AlertReceiver answer(Integer... codes) {
    statuses.addAll(List.of(codes));
    return this;
  }

  /** @return the port */
  public int port() {
    return server.getAddress().getPort();
  }

  /** @return the URL alerts go to */
  public String url() {
    return "http://127.0.0.1:" + port() + "/alerts";
  }

  /**
   * @param within the deadline
   * @return the next request received
   * @throws AssertionError if none came within the deadline
   */
  public Request next(Duration within) {
    try {
      Request r = received.poll(within.toMillis(), TimeUnit.MILLISECONDS);
      if (r == null) {
        throw new AssertionError("no request reached the receiver within " + within);
      }
      return r;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** @return the requests received and not yet taken */
  public List<Request> pending() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    hang.countDown();
    server.stop(0);
    pool.shutdownNow();
  }
}

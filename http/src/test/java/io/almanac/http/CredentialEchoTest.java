package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.read.ListAppender;
import io.almanac.Almanac;
import io.almanac.testkit.Eventually;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Nothing a client sends as a credential is ever written to the node's log or echoed in an answer
 * (docs/http-api.md, Tokens): every malformed shape of an {@code Authorization} header carrying a read
 * or an operate token, and a token sent as a query parameter ({@code ?token=}), is sent over a plain
 * socket (so that any byte can be sent), and the whole answer (status line, headers, body) and every
 * line logged meanwhile by any logger, pekko-http's own at DEBUG included, are searched for the token.
 */
class CredentialEchoTest {

  /** The distinctive part of each token: searched for in the log and the answers. */
  private static final String READ_CORE = "Rd7kQ2vXp9";
  private static final String OPERATE_CORE = "Op4mW8zLc3";
  private static final String READ = "reader-" + READ_CORE + "-0001";
  private static final String OPERATE = "alice-" + OPERATE_CORE + "-0002";

  private ActorTestKit testKit;
  private ListAppender<ILoggingEvent> log;
  private final ch.qos.logback.classic.Logger root =
      (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @AfterEach
  void stop() {
    if (log != null) {
      root.detachAppender(log);
    }
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  /** The Authorization values of every malformed (or merely unusual) shape carrying {@code token}. */
  static List<String> shapes(String token, String other) {
    return List.of(
        "Bearer " + token + ", Bearer " + other, // two tokens joined by a comma
        "Bearer " + token + "," + other,
        "Bearer " + token + ", " + other,
        "Bearer " + token + "%00",
        "Bearer " + token + "\u0000", // a NUL byte
        "Bearer " + token + "\u0001", // a control character
        "Bearer " + token + "\u007f",
        "Bearer " + token + "   ", // trailing spaces
        "Bearer " + token + "\t",
        "Bearer  " + token, // two spaces
        "Bearer " + token + " " + other,
        "Bearer " + token + "\u00e4\u00f6", // non-ASCII (sent as UTF-8)
        "Bearer " + token + "\u20ac",
        "Bearer " + token + "x".repeat(4000), // long, under the header limit
        "Bearer " + token + "x".repeat(9000), // over max-header-value-length
        "Basic " + token,
        "bearer " + token, // lowercase scheme
        "BEARER " + token,
        "Token " + token,
        token,
        "Bearer \"" + token + "\"",
        "Bearer " + token + ";",
        "Bearer " + token + "==",
        "Bearer " + token + "=,",
        "Bearer realm=\"" + token + "\", " + other,
        "Bearer " + token + "\r\n\t" + other); // an obsolete line folding
  }

  @Test
  @DisplayName("no malformed Authorization header and no ?token= puts a read or an operate token in the node's log "
      + "(any logger, pekko-http's too, DEBUG included) or in an answer's status line, headers or body")
  void credentialsAreNeverLoggedNorEchoed() throws Exception {
    testKit = ActorTestKit.create("credential-echo-test", AlmanacHttpTest.config(String.join("\n",
        "pekko.loglevel = DEBUG",
        "almanac.http.tokens { reader { token = \"" + READ + "\", role = read }, alice { token = \"" + OPERATE
            + "\", role = operate } }",
        "almanac.http.read-requires-token = on")));
    log = new ListAppender<>();
    log.start();
    root.addAppender(log);
    Almanac almanac = Almanac.builder(testKit.system()).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    int port = binding.localAddress().getPort();

    List<String> leaks = new ArrayList<>();
    int sent = 0;
    for (String[] pair : new String[][] {{READ, OPERATE}, {OPERATE, READ}}) {
      for (String value : shapes(pair[0], pair[1])) {
        for (String request : List.of("POST /api/tasks/nope/pause", "GET /api/queue")) {
          for (String header : List.of("Authorization", "authorization", "Proxy-Authorization")) {
            String answer = send(port, request, header + ": " + value);
            sent++;
            check(leaks, request + " with " + header + ": " + printable(value), answer);
            if (header.equalsIgnoreCase("Authorization") && (value.contains(",") || value.contains("\r\n"))) {
              // a header joining two tokens never acts, whatever it carries
              int status = status(answer);
              assertTrue(status == 400 || status == 401 || status == 403, request + " " + printable(value) + ": " + answer);
            }
          }
        }
      }
      String token = pair[0];
      // two Authorization headers, a cookie, and the token as a query parameter, in every shape
      String twice = send(port, "POST /api/tasks/nope/pause", "Authorization: Bearer " + token
          + "\r\nAuthorization: Bearer " + pair[1]);
      check(leaks, "two Authorization headers", twice);
      assertEquals(401, status(twice), "which of two tokens acts would be a guess: " + twice);
      check(leaks, "a cookie", send(port, "GET /api/queue", "Cookie: token=" + token + "\"; a=\u0001"));
      for (String path : List.of("/api/queue", "/api/windows", "/api/tasks", "/api/tasks/nope",
          "/api/tasks/nope/windows/w/timeline", "/health/live", "/health/ready", "/metrics", "/", "/nothing")) {
        for (String query : List.of("token=" + token, "access_token=" + token, "token=" + token + "&token=" + pair[1],
            "token=" + token + "%zz", "token=" + token + "%00", "token=" + token + "%", "token=" + token + "\u0001",
            "token=" + token + "\u00e4", "token=" + token + "&task=x", "task=x&token=" + token,
            "token=" + token + "#fragment", "token=" + token + " x", "token=" + token + "x".repeat(3000))) {
          for (String method : List.of("GET", "POST")) {
            check(leaks, method + " " + path + "?" + printable(query), send(port, method + " " + path + "?" + query,
                "Authorization: Bearer " + READ));
            sent++;
          }
        }
      }
    }
    // every line pekko logs through the event stream is in: a marker logged after the last call shows it
    String marker = "credential-echo-marker-" + System.nanoTime();
    testKit.system().classicSystem().log().warning(marker);
    Eventually.eventually(Duration.ofSeconds(20), () -> assertTrue(lines().stream().anyMatch(l -> l.contains(marker))));
    root.detachAppender(log);
    // one line of each kind (logger and the start of its text), ahead of the answers
    java.util.Map<String, String> logged = new java.util.TreeMap<>();
    for (String line : lines()) {
      if (containsToken(line)) {
        logged.putIfAbsent(line.substring(0, Math.min(100, line.length())), "logged: "
            + line.substring(0, Math.min(600, line.length())));
      }
    }
    leaks.addAll(0, logged.values());
    assertTrue(sent > 400, "requests sent: " + sent);
    assertTrue(lines().stream().anyMatch(l -> l.contains("org.apache.pekko")), "pekko's own lines are captured too");
    assertEquals(List.of(), leaks.stream().distinct().limit(30).toList(), "credentials logged or echoed");
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Every captured line as text: logger, level, message, arguments, MDC and throwable. */
  private List<String> lines() {
    List<String> out = new ArrayList<>();
    for (ILoggingEvent e : List.copyOf(log.list)) {
      StringBuilder b = new StringBuilder(e.getLoggerName()).append(' ').append(e.getLevel()).append(' ')
          .append(e.getFormattedMessage()).append(' ').append(e.getMessage()).append(' ').append(e.getMDCPropertyMap());
      if (e.getArgumentArray() != null) {
        for (Object a : e.getArgumentArray()) {
          b.append(' ').append(a);
        }
      }
      for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
        b.append(' ').append(t.getClassName()).append(": ").append(t.getMessage());
        for (StackTraceElementProxy s : t.getStackTraceElementProxyArray()) {
          b.append(' ').append(s.getSTEAsString());
        }
      }
      out.add(b.toString());
    }
    return out;
  }

  private static void check(List<String> leaks, String what, String answer) {
    if (containsToken(answer)) {
      leaks.add("echoed to " + what + ": " + answer.substring(0, Math.min(600, answer.length())));
    }
    assertTrue(answer.startsWith("HTTP/1.1 "), what + ": " + answer);
    int status = status(answer);
    // refused (4xx, or 505 for a request line that a space breaks), or answered; never a failure of the node
    assertTrue(status >= 400 && status < 500 || status == 505 || status == 200, what + " answered " + answer);
  }

  /** Whether the text holds either token's distinctive part, in any case. */
  private static boolean containsToken(String text) {
    String lower = text.toLowerCase(java.util.Locale.ROOT);
    return Stream.of(READ_CORE, OPERATE_CORE).anyMatch(core -> lower.contains(core.toLowerCase(java.util.Locale.ROOT)));
  }

  private static int status(String answer) {
    return Integer.parseInt(answer.substring(9, 12));
  }

  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      b.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return b.length() > 120 ? b.substring(0, 120) + "..." : b.toString();
  }

  /**
   * Sends one request over a plain socket and reads the whole answer (the connection is closed after
   * it). ASCII characters (control characters too) are sent as one byte each, others as UTF-8.
   */
  static String send(int port, String requestLine, String headers) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String head = requestLine + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers + "\r\nConnection: close\r\n"
        + (requestLine.startsWith("POST") ? "Content-Length: 0\r\n" : "") + "\r\n";
    for (char c : head.toCharArray()) {
      if (c <= 0x7f) {
        out.write(c);
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return RawHttp.exchange(port, out.toByteArray());
  }
}

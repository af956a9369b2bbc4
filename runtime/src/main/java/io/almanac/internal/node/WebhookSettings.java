package io.almanac.internal.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.almanac.Alert;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The webhook alert sink's settings, {@code almanac.alerts.webhook}: read and checked at start, so a
 * bad value fails the node's start naming the key and the value (a header's value, which may be a
 * secret, is never echoed).
 *
 * @param url where alerts are POSTed (http or https)
 * @param timeout the most one attempt may take (to connect, and then to get the answer's status)
 * @param maxAttempts attempts per alert, the first included
 * @param backoff the wait after the first failed attempt; doubled after each further one
 * @param maxBackoff the longest wait between two attempts
 * @param queueSize the most alerts waiting to be sent (the one being sent not counted)
 * @param kinds the kinds sent; empty: every kind
 * @param headers extra request headers, by name
 */
public record WebhookSettings(URI url, Duration timeout, int maxAttempts, Duration backoff, Duration maxBackoff, int queueSize,
    Set<Alert.Kind> kinds, Map<String, String> headers) {

  static final String PATH = "almanac.alerts.webhook";

  public WebhookSettings {
    kinds = kinds.isEmpty() ? Collections.unmodifiableSet(EnumSet.noneOf(Alert.Kind.class))
        : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /**
   * @param config the node's configuration
   * @return the settings, or null when {@code almanac.alerts.webhook.url} is empty (no webhook)
   * @throws InvalidSpecException naming the key and the value of the first bad setting
   */
  public static WebhookSettings from(Config config) {
    knownKeysOnly(config);
    String urlText = Settings.stringOf(config, PATH + ".url").strip();
    if (urlText.isEmpty()) {
      return null;
    }
    URI url = url(urlText);
    Duration timeout = Settings.durationOf(config, PATH + ".timeout");
    Settings.positive(PATH + ".timeout", timeout);
    int maxAttempts = Settings.intOf(config, PATH + ".max-attempts");
    Settings.atLeast(PATH + ".max-attempts", maxAttempts, 1);
    Duration backoff = Settings.durationOf(config, PATH + ".backoff");
    Settings.positive(PATH + ".backoff", backoff);
    Duration maxBackoff = Settings.durationOf(config, PATH + ".max-backoff");
    if (maxBackoff.compareTo(backoff) < 0) {
      throw new InvalidSpecException(PATH + ".max-backoff", maxBackoff, "must be >= " + PATH + ".backoff (" + backoff + ")");
    }
    int queueSize = Settings.intOf(config, PATH + ".queue-size");
    Settings.atLeast(PATH + ".queue-size", queueSize, 1);
    return new WebhookSettings(url, timeout, maxAttempts, backoff, maxBackoff, queueSize, kinds(config),
        headers(config, url));
  }

  /** @return whether alerts of this kind are sent */
  boolean sends(Alert.Kind kind) {
    return kinds.isEmpty() || kinds.contains(kind);
  }

  /** @return the wait after the {@code failed}-th failed attempt: backoff doubled each time, at most maxBackoff */
  Duration backoffAfter(int failed) {
    Duration d = backoff;
    for (int i = 1; i < failed && d.compareTo(maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }

  /**
   * @return the url as logs show it: scheme, host and port only, since a path or query may hold a
   *     token (a Slack webhook's path does)
   */
  String target() {
    return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort())
        + (url.getRawPath() == null || url.getRawPath().isEmpty() || url.getRawPath().equals("/") ? "" : "/…");
  }

  /** The keys of almanac.alerts.webhook; another (a misspelt max-attempt) would be ignored silently. */
  static final List<String> KEYS = List.of("url", "timeout", "max-attempts", "backoff", "max-backoff", "queue-size", "kinds",
      "headers");

  private static void knownKeysOnly(Config config) {
    if (!config.hasPath(PATH)) {
      return;
    }
    for (String key : config.getObject(PATH).keySet()) {
      if (!KEYS.contains(key)) {
        // the value is not echoed: a header put here by mistake holds a secret
        throw new InvalidSpecException(PATH + "." + key, "(not shown)", "unknown key; known: " + String.join(", ", KEYS)
            + " (request headers go in " + PATH + ".headers)");
      }
    }
  }

  private static URI url(String text) {
    String key = PATH + ".url";
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      throw new InvalidSpecException(key, text, "is not a URL: " + e.getReason());
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new InvalidSpecException(key, text, "must be an http or https URL");
    }
    if (url.getHost() == null || url.getHost().isEmpty()) {
      throw new InvalidSpecException(key, text, "has no host");
    }
    if (url.getFragment() != null) {
      throw new InvalidSpecException(key, text, "must not have a fragment (#...)");
    }
    return url;
  }

  private static Set<Alert.Kind> kinds(Config config) {
    String key = PATH + ".kinds";
    List<String> names;
    try {
      names = config.getStringList(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(key, config.getValue(key).unwrapped(), "must be a list of alert kinds");
    }
    Set<Alert.Kind> kinds = EnumSet.noneOf(Alert.Kind.class);
    for (String name : names) {
      try {
        kinds.add(Alert.Kind.valueOf(name.strip()));
      } catch (IllegalArgumentException e) {
        throw new InvalidSpecException(key, name, "is not an alert kind; the kinds are " + Arrays.toString(Alert.Kind.values()));
      }
    }
    return kinds;
  }

  private static Map<String, String> headers(Config config, URI url) {
    String key = PATH + ".headers";
    Map<String, String> headers = new LinkedHashMap<>();
    Map<String, ConfigValue> entries;
    try {
      entries = config.getObject(key);
    } catch (ConfigException.Missing e) {
      return headers;
    } catch (ConfigException.WrongType e) {
      throw InvalidSpecException.withoutValue(key, "must be an object of header names and values, e.g. { Authorization = \"Bearer ...\" }");
    }
    HttpRequest.Builder probe = HttpRequest.newBuilder(url);
    for (Map.Entry<String, ConfigValue> e : entries.entrySet()) {
      String name = e.getKey();
      String field = key + "." + name;
      ConfigValueType type = e.getValue().valueType();
      if (type != ConfigValueType.STRING && type != ConfigValueType.NUMBER && type != ConfigValueType.BOOLEAN) {
        // the value is not echoed: it may be a secret
        throw new InvalidSpecException(field, "(a " + type.name().toLowerCase(Locale.ROOT) + ", not shown)",
            "must be a string (quote header names that hold dots)");
      }
      String value = String.valueOf(e.getValue().unwrapped());
      try {
        probe.setHeader(name, value);
      } catch (IllegalArgumentException refused) {
        throw new InvalidSpecException(field, "(not shown)", "is not a header the JDK's HTTP client may send: a restricted "
            + "name (Host, Content-Length, Connection, ...), an invalid name, or a value with control characters");
      }
      headers.put(name, value);
    }
    return headers;
  }
}

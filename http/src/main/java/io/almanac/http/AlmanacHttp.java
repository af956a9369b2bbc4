package io.almanac.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.almanac.Almanac;
import io.almanac.InvalidSpecException;
import io.almanac.NodeHealth;
import io.almanac.persistence.instances.InstanceQueries;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP endpoints, on pekko-http, configured by {@code almanac.http} (this module's
 * {@code reference.conf}): bound to 127.0.0.1 unless configured otherwise, and never beyond loopback
 * without a token.
 *
 * <ul>
 *   <li>{@code GET /health/live}: 200 while the node's ActorSystem runs, else 503 (a supervisor
 *       restarts a node that is not live);
 *   <li>{@code GET /health/ready}: 200 when the node can take work, else 503; the body lists every
 *       check with what it saw ({@link Almanac#health()}).
 *   <li>{@code GET /metrics}: the node's meters in Prometheus text format ({@link MetricsRoutes}).
 * </ul>
 *
 * Both answer {@code application/json}: {@code {"live":true,"ready":true,"checks":[{"name":..,"ok":..,"detail":..}]}}.
 */
public final class AlmanacHttp extends AllDirectives {

  private static final Logger LOG = LoggerFactory.getLogger(AlmanacHttp.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final Almanac almanac;

  private final ApiRoutes api;

  private AlmanacHttp(ActorSystem<?> system, Almanac almanac, ApiRoutes api) {
    this.system = system;
    this.almanac = almanac;
    this.api = api;
  }

  /**
   * The endpoints' settings, checked.
   *
   * @param iface the address to listen on
   * @param port the port
   * @param token the bearer token of mutating calls (at least {@value Settings#MIN_TOKEN_LENGTH} characters), or "":
   *     the {@code operate} token named {@code operator}; the named tokens of {@code almanac.http.tokens} are
   *     checked by {@link #from} too (see docs/http-api.md)
   */
  public record Settings(String iface, int port, String token) {

    /** The shortest token taken. */
    public static final int MIN_TOKEN_LENGTH = 16;

    /**
     * @param config the node's configuration
     * @return its {@code almanac.http} settings
     * @throws InvalidSpecException naming the key and the value when one is wrong
     */
    public static Settings from(Config config) {
      String iface = read(config, "almanac.http.interface", "a string", config::getString);
      int port = read(config, "almanac.http.port", "an integer", config::getInt);
      String token = read(config, "almanac.http.token", "a string", config::getString);
      if (port < 0 || port > 65535) {
        throw new InvalidSpecException("almanac.http.port", port, "must be between 0 and 65535");
      }
      if (iface.isBlank()) {
        throw new InvalidSpecException("almanac.http.interface", iface, "must be a host name or an IP address");
      }
      if (!token.isEmpty() && token.isBlank()) {
        // the token's value is never echoed: only its length
        throw InvalidSpecException.withoutValue("almanac.http.token", "is blank (" + token.length() + " white-space "
            + "characters): set a token of at least " + MIN_TOKEN_LENGTH + " characters, or leave it empty to refuse "
            + "every mutating call");
      }
      if (!token.isEmpty() && token.length() < MIN_TOKEN_LENGTH) {
        throw InvalidSpecException.withoutValue("almanac.http.token", "is " + token.length() + " characters long: it must "
            + "have at least " + MIN_TOKEN_LENGTH + " (e.g. openssl rand -base64 24)");
      }
      Tokens tokens = Tokens.from(config); // almanac.http.tokens and read-requires-token checked too
      if (tokens.isEmpty() && !loopback(iface)) {
        throw new InvalidSpecException("almanac.http.interface", iface, "is beyond loopback while almanac.http.token is "
            + "empty and almanac.http.tokens has none: set a token (e.g. token = ${?ALMANAC_TOKEN}) or listen on 127.0.0.1");
      }
      return new Settings(iface, port, token);
    }

    private static <T> T read(Config config, String key, String type, java.util.function.Function<String, T> get) {
      try {
        return get.apply(key);
      } catch (ConfigException.Missing e) {
        throw InvalidSpecException.missing(key, "this module's reference.conf sets it: is it on the class path?");
      } catch (ConfigException e) {
        throw new InvalidSpecException(key, config.getValue(key).unwrapped(), "must be " + type);
      }
    }

    /**
     * @param iface a host name or address
     * @return whether it is a loopback address (false for a name that does not resolve)
     */
    static boolean isLoopback(String iface) {
      try {
        return InetAddress.getByName(iface).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }

    private static boolean loopback(String iface) {
      try {
        return InetAddress.getByName(iface).isLoopbackAddress();
      } catch (UnknownHostException e) {
        throw new InvalidSpecException("almanac.http.interface", iface, "is not a known host name or address");
      }
    }
  }

  /**
   * Binds the endpoints as {@code almanac.http} says.
   *
   * @param system the node's ActorSystem
   * @param almanac the node
   * @return the binding (its local address says the port, when 0 was configured)
   * @throws InvalidSpecException when a setting is wrong, before anything is bound
   */
  public static CompletionStage<ServerBinding> start(ActorSystem<?> system, Almanac almanac) {
    Settings.from(system.settings().config()); // a wrong setting is refused before anything is created
    return start(system, almanac, windowSource(system, almanac));
  }

  /** Whether the node's journal is the JDBC plugin, whose table the node may read with SQL. */
  static boolean jdbcJournal(Config config) {
    return config.hasPath("pekko.persistence.journal.plugin")
        && "jdbc-journal".equals(config.getString("pekko.persistence.journal.plugin"));
  }

  /**
   * Where {@code /api/windows} reads on this node: the SQL instance table ({@link
   * InstanceWindowSource}) when the journal is JDBC ({@code pekko.persistence.journal.plugin =
   * "jdbc-journal"}) and {@code almanac.instances.enabled} is on, else the tasks' hot windows over the
   * Java API ({@link AlmanacWindowSource}). The table is kept only where {@code
   * InstanceProjection.start(system)} runs (in a cluster, on one node).
   *
   * @param system the node's ActorSystem
   * @param almanac the node
   * @return the source, said in the log at INFO
   */
  static WindowSource windowSource(ActorSystem<?> system, Almanac almanac) {
    Config config = system.settings().config();
    String plugin = config.hasPath("pekko.persistence.journal.plugin") ? config.getString("pekko.persistence.journal.plugin")
        : "";
    boolean instances = config.hasPath("almanac.instances.enabled") && config.getBoolean("almanac.instances.enabled");
    if ("jdbc-journal".equals(plugin) && instances) {
      LOG.info("GET /api/windows reads the SQL instance table (almanac_instance; journal {}, almanac.instances.enabled "
          + "= on)", plugin);
      return new InstanceWindowSource(InstanceQueries.create(system));
    }
    LOG.info("GET /api/windows reads the tasks' hot windows over the Java API (journal '{}', almanac.instances.enabled "
        + "= {}): the instance table serves it only on a jdbc-journal with the projection enabled", plugin,
        instances ? "on" : "off");
    return new AlmanacWindowSource(almanac);
  }

  /**
   * Binds the endpoints as {@code almanac.http} says, {@code GET /api/windows} reading from {@code windows}.
   *
   * @param system the node's ActorSystem
   * @param almanac the node
   * @param windows where {@code /api/windows} finds windows (the SQL instance table, or {@link AlmanacWindowSource})
   * @return the binding (its local address says the port, when 0 was configured)
   * @throws InvalidSpecException when a setting is wrong, before anything is bound
   */
  public static CompletionStage<ServerBinding> start(ActorSystem<?> system, Almanac almanac, WindowSource windows) {
    Settings settings = Settings.from(system.settings().config());
    Config config = system.settings().config();
    // On a JDBC journal, an id that is not registered is looked up in the journal (one index probe)
    // instead of starting its entity: a removed task stays readable, an unknown id is 404.
    java.util.function.Function<String, CompletionStage<Boolean>> journalHas = jdbcJournal(config)
        ? InstanceQueries.create(system)::hasTaskJournalAsync : null;
    Route route = new AlmanacHttp(system, almanac, ApiRoutes.of(almanac, windows, config, journalHas)).routes();
    org.apache.pekko.http.javadsl.settings.ServerSettings server = serverSettings(config);
    return Http.get(system).newServerAt(settings.iface(), settings.port()).withSettings(server).bind(route)
        .whenComplete((binding, error) -> {
          if (error != null) {
            LOG.error("HTTP endpoints could not listen on {}:{}: {}", settings.iface(), settings.port(), error.toString());
          } else {
            LOG.info("HTTP endpoints listening on http://{}:{} (health: /health/live, /health/ready)",
                binding.localAddress().getHostString(), binding.localAddress().getPort());
          }
        });
  }

  /**
   * pekko-http's server settings of {@code config}, with what the API's contract needs whatever the
   * configuration says: what the request parser refuses before any route runs (a URI or headers too
   * long, too many headers, no Host) is answered as problem+json ({@link ProblemParsingErrorHandler});
   * a header pekko-http cannot parse into its model (a malformed {@code Authorization}, which may
   * carry a token) is never logged ({@code illegal-header-warnings} off: pekko-http would log its
   * whole value at WARN); and a {@code HEAD} is answered as the {@code GET} of its path without the
   * body ({@code transparent-head-requests}, off in pekko-http's defaults).
   *
   * @param config the node's configuration
   * @return the settings the endpoints are bound with
   */
  static org.apache.pekko.http.javadsl.settings.ServerSettings serverSettings(Config config) {
    org.apache.pekko.http.javadsl.settings.ServerSettings server =
        org.apache.pekko.http.javadsl.settings.ServerSettings.create(config);
    return server.withParsingErrorHandler(ProblemParsingErrorHandler.class.getName())
        .withParserSettings(server.getParserSettings().withIllegalHeaderWarnings(false))
        .withTransparentHeadRequests(true);
  }

  /** The routes; every error (an unknown path too) as problem+json ({@link Problems}). */
  Route routes() {
    String iface = system.settings().config().getString("almanac.http.interface");
    // Built once, here: the Prometheus registry joins the node's meters now, not at the first request
    // (a recording made before a registry joins is lost to it).
    Route reads = concat(new MetricsRoutes(almanac).route(), HistoryRoutes.of(system).routes(), api.routes());
    // with almanac.http.read-requires-token on, every call under /api and /metrics needs a token (any role)
    Route inner = concat(extractUnmatchedPath(p -> p.equals("/metrics") || p.equals("/api") || p.startsWith("/api/")
            ? api.readable(() -> reads) : reads),
        new DashboardRoutes().routes(), // GET / and /dashboard/*: the web dashboard
        pathPrefix("health", () -> concat(
            path("live", () -> get(() -> onSuccess(almanac.health(), h -> answer(h.live(), h)))),
            path("ready", () -> get(() -> onSuccess(almanac.health(), h -> answer(h.ready(), h)))))));
    // outermost: every answer is timed, problems and refused hosts too
    return new HttpMeters(almanac.meterRegistry()).timed(Problems.handled(hostGuarded(iface, parametersChecked(inner))));
  }

  /**
   * Refuses a query parameter the endpoint does not take (400 naming it, before anything is
   * asked): only {@code GET /api/windows} ({@link WindowFilter} checks its own) and {@code GET
   * /api/tasks} ({@code latest}, checked by {@link ApiRoutes}) and a window's {@code /logs} ({@code
   * attempt}, checked by {@link HistoryRoutes}) take any, every other
   * endpoint of the API, the health checks and {@code /metrics} take none. The dashboard's files and
   * paths outside these are left to their routes (an unknown path stays 404).
   */
  private Route parametersChecked(Route inner) {
    return extractUri(uri -> {
      String path = uri.path();
      boolean endpoint = path.startsWith("/api/") || path.startsWith("/health/") || path.equals("/metrics");
      // GET /api/windows checks its own (WindowFilter), GET /api/tasks its latest (ApiRoutes)
      if (!endpoint || path.equals("/api/windows") || path.equals("/api/tasks")
          || path.equals("/api/alerts")) { // GET /api/alerts checks its own (AlertRoutes)
        return inner;
      }
      java.util.List<org.apache.pekko.japi.Pair<String, String>> given = uri.query().toList();
      if (path.startsWith("/api/tasks/") && path.endsWith("/logs") && given.stream().allMatch(p -> p.first().equals(
          "attempt"))) {
        return inner; // GET .../logs takes attempt (checked by HistoryRoutes)
      }
      java.util.Map<String, java.util.List<String>> params = uri.query().toMultiMap();
      if (params.isEmpty()) {
        return inner;
      }
      // the first one given, so that the answer names what the caller wrote first
      String name = uri.query().toList().get(0).first();
      return Problems.complete(Problem.unknownParameter(name, "is not a parameter of " + path + ": it takes none (only "
          + "GET /api/windows, GET /api/tasks and GET /api/tasks/{task}/windows/{window}/logs take query parameters)"));
    });
  }

  /**
   * On a node listening on loopback only, a request must name a loopback host ({@code localhost},
   * {@code 127.0.0.1}, {@code [::1]}) or the configured interface in its Host header: a web page on
   * another site cannot read the API through a name of its own that resolves to 127.0.0.1 (DNS
   * rebinding). A node listening beyond loopback has a token for its actions and no such check.
   */
  private Route hostGuarded(String iface, Route inner) {
    if (!Settings.isLoopback(iface)) {
      return inner;
    }
    return extractHost(host -> allowedHost(host, iface) ? inner
        : Problems.complete(new Problem(403, "forbidden-host", "Forbidden host",
            "this node listens on loopback and answers only requests to localhost, 127.0.0.1, [::1] or " + iface
                + " (a Host header naming another name is refused against DNS rebinding)", "Host", host)));
  }

  /**
   * @param host the request's host, without its port
   * @param iface the configured interface
   * @return whether a loopback-bound node answers it
   */
  static boolean allowedHost(String host, String iface) {
    String h = host.toLowerCase(java.util.Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.equals("localhost") || h.equals(iface.toLowerCase(java.util.Locale.ROOT))
        || h.equals("::1") || h.matches("127(\\.\\d{1,3}){3}");
  }

  private Route answer(boolean ok, NodeHealth health) {
    return complete(ok ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE,
        HttpEntities.create(ContentTypes.APPLICATION_JSON, json(health)));
  }

  /** The health as JSON. */
  static String json(NodeHealth health) {
    ObjectNode root = JSON.createObjectNode();
    root.put("live", health.live());
    root.put("ready", health.ready());
    ArrayNode checks = root.putArray("checks");
    for (NodeHealth.Check c : health.checks()) {
      checks.addObject().put("name", c.name()).put("ok", c.ok()).put("detail", c.detail());
    }
    return root.toString();
  }
}

package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import io.almanac.Almanac;
import io.almanac.InvalidSpecException;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The container image ({@code Dockerfile}) and the Kubernetes manifests ({@code deploy/k8s/*.yaml})
 * agree with the node they run: the pod's arguments are parsed by the demo node's own option parser
 * ({@link ClusterArgs}) and its configuration is loaded from the file the image names, as the node
 * does, and every port, probe, variable and count is checked against that configuration rather than
 * against a second copy of the numbers. docs/deployment.md describes both.
 */
class DeploymentManifestsTest {

  private static final Path ROOT = Path.of("..");
  private static final Path K8S = ROOT.resolve("deploy").resolve("k8s");
  private static final Pattern VAR_REF = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  @TempDir Path dir;

  // --- reading the files ---------------------------------------------------------------------------

  /** Every document of every manifest, in file order. */
  static List<Map<String, Object>> manifests() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(K8S)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no manifests under " + K8S.toAbsolutePath().normalize());
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
        for (Object doc : new Yaml().loadAll(r)) {
          if (doc != null) {
            docs.add(map(doc, f.getFileName().toString()));
          }
        }
      }
    }
    return docs;
  }

  static Map<String, Object> one(List<Map<String, Object>> docs, String kind, String name) {
    List<Map<String, Object>> found = docs.stream()
        .filter(d -> kind.equals(d.get("kind")) && name.equals(map(d.get("metadata"), kind).get("name"))).toList();
    assertEquals(1, found.size(), "exactly one " + kind + " named " + name + " in deploy/k8s");
    return found.get(0);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o, String what) {
    assertTrue(o instanceof Map, what + " is a mapping, not " + o);
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o, String what) {
    assertTrue(o instanceof List, what + " is a list, not " + o);
    return (List<Object>) o;
  }

  /** {@code at(doc, "spec", "template", "spec")}: the mapping at that path. */
  static Map<String, Object> at(Map<String, Object> doc, String... path) {
    Map<String, Object> m = doc;
    for (String p : path) {
      m = map(m.get(p), p);
    }
    return m;
  }

  /** The Dockerfile's instructions (continuation lines joined, comments left out), in order. */
  record Instruction(String keyword, String args) {}

  static List<Instruction> dockerfile() throws IOException {
    List<Instruction> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String raw : Files.readAllLines(ROOT.resolve("Dockerfile"), StandardCharsets.UTF_8)) {
      String t = raw.strip();
      if (line.isEmpty() && (t.isEmpty() || t.startsWith("#"))) {
        continue;
      }
      if (t.endsWith("\\")) {
        line.append(t, 0, t.length() - 1).append(' ');
        continue;
      }
      line.append(t);
      String full = line.toString().strip();
      line.setLength(0);
      int space = full.indexOf(' ');
      out.add(new Instruction(full.substring(0, space).toUpperCase(), full.substring(space + 1).strip()));
    }
    return out;
  }

  static List<String> instructions(List<Instruction> file, String keyword) {
    return file.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::args).toList();
  }

  /** The Dockerfile's ENV defaults. */
  static Map<String, String> dockerEnv(List<Instruction> file) {
    Map<String, String> env = new LinkedHashMap<>();
    Matcher m = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"([^\"]*)\"|(\\S+))").matcher(String.join(" ", instructions(file, "ENV")));
    while (m.find()) {
      env.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
    }
    return env;
  }

  /** The file of this repository that the image holds at {@code imagePath} (by the Dockerfile's COPY lines). */
  static Path inRepository(List<Instruction> file, String imagePath) {
    for (String copy : instructions(file, "COPY")) {
      if (copy.startsWith("--from=")) {
        continue; // from a build stage (the unpacked distribution), not from the repository
      }
      String[] parts = copy.split("\\s+");
      assertEquals(2, parts.length, "COPY " + copy + " has one source and one destination");
      String src = parts[0];
      String dest = parts[1];
      if (dest.endsWith("/") && imagePath.startsWith(dest)) {
        return ROOT.resolve(src).resolve(imagePath.substring(dest.length()));
      }
      if (dest.equals(imagePath)) {
        return ROOT.resolve(src);
      }
    }
    return fail("the Dockerfile copies nothing to " + imagePath);
  }

  // --- the node's container and its configuration ---------------------------------------------------

  /** The Almanac StatefulSet's container, its variables (resolved from the manifests) and its configuration. */
  record Node(Map<String, Object> statefulSet, Map<String, Object> container, Map<String, String> env, List<String> args,
      ClusterArgs cluster, Config config) {

    int replicas() {
      return ((Number) at(statefulSet, "spec").get("replicas")).intValue();
    }

    Map<String, Object> podSpec() {
      return at(statefulSet, "spec", "template", "spec");
    }

    /** The container's ports by name. */
    Map<String, Integer> ports() {
      Map<String, Integer> ports = new TreeMap<>();
      for (Object p : list(container.get("ports"), "ports")) {
        Map<String, Object> port = map(p, "port");
        ports.put((String) port.get("name"), ((Number) port.get("containerPort")).intValue());
      }
      return ports;
    }
  }

  /** The value of a container variable as the pod sees it: literal, or from the ConfigMap, Secret or the pod's name. */
  static String valueOf(List<Map<String, Object>> docs, Map<String, Object> statefulSet, Map<String, Object> var) {
    String name = (String) var.get("name");
    if (var.containsKey("value")) {
      return String.valueOf(var.get("value"));
    }
    Map<String, Object> from = map(var.get("valueFrom"), name + ".valueFrom");
    if (from.containsKey("fieldRef")) {
      assertEquals("metadata.name", map(from.get("fieldRef"), name).get("fieldPath"), name + ": the pod's name");
      return map(statefulSet.get("metadata"), "metadata").get("name") + "-0"; // the first pod of the StatefulSet
    }
    if (from.containsKey("configMapKeyRef")) {
      Map<String, Object> ref = map(from.get("configMapKeyRef"), name);
      Map<String, Object> data = map(one(docs, "ConfigMap", (String) ref.get("name")).get("data"), "data");
      assertTrue(data.containsKey(ref.get("key")), name + ": ConfigMap " + ref.get("name") + " has key " + ref.get("key"));
      return String.valueOf(data.get(ref.get("key")));
    }
    if (from.containsKey("secretKeyRef")) {
      Map<String, Object> ref = map(from.get("secretKeyRef"), name);
      Map<String, Object> secret = one(docs, "Secret", (String) ref.get("name"));
      Object plain = secret.get("stringData") == null ? null : map(secret.get("stringData"), "stringData").get(ref.get("key"));
      Object encoded = secret.get("data") == null ? null : map(secret.get("data"), "data").get(ref.get("key"));
      assertTrue(plain != null || encoded != null, name + ": Secret " + ref.get("name") + " has key " + ref.get("key"));
      return plain != null ? String.valueOf(plain) : new String(Base64.getDecoder().decode(String.valueOf(encoded)), StandardCharsets.UTF_8);
    }
    return fail(name + ": a value, or valueFrom a fieldRef, configMapKeyRef or secretKeyRef");
  }

  /** HOCON giving each variable as a top-level key: a {@code ${?NAME}} in the configuration then reads it, as it reads the environment. */
  static String asEnvironment(Map<String, String> env) {
    StringBuilder b = new StringBuilder();
    env.forEach((k, v) -> b.append(k).append(" = ").append(ConfigUtil.quoteString(v)).append('\n'));
    return b.toString();
  }

  static Node node() throws IOException {
    List<Map<String, Object>> docs = manifests();
    Map<String, Object> sts = one(docs, "StatefulSet", "almanac");
    List<Object> containers = list(at(sts, "spec", "template", "spec").get("containers"), "containers");
    assertEquals(1, containers.size(), "one container per node");
    Map<String, Object> container = map(containers.get(0), "container");
    Map<String, String> env = new LinkedHashMap<>();
    for (Object v : list(container.get("env"), "env")) {
      Map<String, Object> var = map(v, "env entry");
      assertNull(env.put((String) var.get("name"), valueOf(docs, sts, var)), "variable " + var.get("name") + " set twice");
    }
    List<String> args = new ArrayList<>();
    for (Object a : list(container.get("args"), "args")) {
      Matcher m = VAR_REF.matcher(String.valueOf(a));
      StringBuilder b = new StringBuilder();
      while (m.find()) {
        assertTrue(env.containsKey(m.group(1)), "argument " + a + " refers to $(" + m.group(1) + "), which the container sets");
        m.appendReplacement(b, Matcher.quoteReplacement(env.get(m.group(1))));
      }
      m.appendTail(b);
      args.add(b.toString());
    }
    assertEquals("demo", args.get(0), "the image's command line runs the demo node");
    ClusterArgs cluster = ClusterArgs.parse(args.subList(1, args.size()).toArray(String[]::new))
        .orElseGet(() -> fail("the pod's arguments select the cluster mode (--cluster)"));
    Config config = load(env, cluster);
    return new Node(sts, container, env, args, cluster, config);
  }

  static void assertNull(Object o, String message) {
    assertEquals(null, o, message);
  }

  /** The node's configuration as the pod loads it: the file ALMANAC_CONFIG names, with the cluster options over it. */
  static Config load(Map<String, String> env, ClusterArgs cluster) throws IOException {
    String configFile = env.get("ALMANAC_CONFIG");
    assertNotNull(configFile, "the container names the node's configuration file (ALMANAC_CONFIG)");
    Path file = inRepository(dockerfile(), configFile);
    assertTrue(Files.isRegularFile(file), configFile + " is " + file + " in this repository");
    return DemoNode.loadConfigFile(file.toFile(), asEnvironment(env) + cluster.hocon(), true).config();
  }

  // --- the checks ------------------------------------------------------------------------------------

  @Test
  @DisplayName("three replicas, a disruption budget that keeps a majority, seed nodes that are the StatefulSet's pods")
  void replicasAndSeeds() throws IOException {
    Node node = node();
    assertEquals(3, node.replicas());
    Map<String, Object> pdb = one(manifests(), "PodDisruptionBudget", "almanac");
    assertEquals(node.replicas() / 2 + 1, ((Number) at(pdb, "spec").get("minAvailable")).intValue(), "a majority stays up");
    Map<String, Object> podLabels = at(node.statefulSet(), "spec", "template", "metadata", "labels");
    assertTrue(podLabels.entrySet().containsAll(at(pdb, "spec", "selector", "matchLabels").entrySet()), "the budget selects the pods");
    assertEquals(at(node.statefulSet(), "spec", "selector", "matchLabels"), podLabels);

    String service = (String) at(node.statefulSet(), "spec").get("serviceName");
    String name = (String) map(node.statefulSet().get("metadata"), "metadata").get("name");
    int port = node.config().getInt("pekko.remote.artery.canonical.port");
    List<String> pods = IntStream.range(0, node.replicas()).mapToObj(i -> name + "-" + i + "." + service + ":" + port).toList();
    assertEquals(pods, node.cluster().seeds(), "every pod of the StatefulSet is a seed node, the same list on every pod");
    assertEquals(pods.stream().map(p -> "pekko://" + ClusterArgs.SYSTEM_NAME + "@" + p).toList(),
        node.config().getStringList("pekko.cluster.seed-nodes"));
    // the pod's own address is its name in the headless Service: the form the seed nodes use
    assertEquals(name + "-0." + service, node.config().getString("pekko.remote.artery.canonical.hostname"));
    assertEquals("0.0.0.0", node.config().getString("pekko.remote.artery.bind.hostname"));
    assertFalse(node.config().getBoolean("almanac.node.join-self"));

    Map<String, Object> headless = one(manifests(), "Service", service);
    assertEquals("None", at(headless, "spec").get("clusterIP"), service + " is headless");
    assertEquals(true, at(headless, "spec").get("publishNotReadyAddresses"),
        "a pod's name resolves before it is ready (it becomes ready only after joining through these names)");
    assertTrue(podLabels.entrySet().containsAll(at(headless, "spec", "selector").entrySet()));
    Map<String, Object> remoting = servicePort(headless, "remoting");
    assertEquals(port, ((Number) remoting.get("port")).intValue());
    assertEquals("remoting", remoting.get("targetPort"));
  }

  static Map<String, Object> servicePort(Map<String, Object> service, String name) {
    return list(at(service, "spec").get("ports"), "ports").stream().map(p -> map(p, "port"))
        .filter(p -> name.equals(p.get("name"))).findFirst().orElseGet(() -> fail("service port " + name));
  }

  @Test
  @DisplayName("an operator's file over the pods' kubernetes.conf, with the pods' --cluster arguments: its failover "
      + "settings apply (almanac-cluster.conf is under the file, not over it), the arguments still win")
  void anOperatorsFileOverTheImagesConfigurationIsApplied() throws IOException {
    Node node = node();
    Path image = inRepository(dockerfile(), node.env().get("ALMANAC_CONFIG"));
    Path mine = dir.resolve("failover.conf");
    Files.writeString(mine, "include file(" + ConfigUtil.quoteString(image.toAbsolutePath().toString()) + ")\n"
        + "almanac.lease.jdbc.safety-margin = 1500ms\n"
        + "pekko.cluster.split-brain-resolver.stable-after = 3s\n");
    Config c = DemoNode.loadConfigFile(mine.toFile(), asEnvironment(node.env()) + node.cluster().hocon(), true).config();
    assertEquals(Duration.ofMillis(1500), c.getDuration("almanac.lease.jdbc.safety-margin"));
    assertEquals(Duration.ofSeconds(3), c.getDuration("pekko.cluster.split-brain-resolver.stable-after"));
    assertEquals("lease-majority", c.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals(node.cluster().seedAddresses(), c.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(node.env().get("ALMANAC_DB_URL"), c.getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
  }

  @Test
  @DisplayName("the container's ports are the node's HTTP and cluster ports, by the same names everywhere")
  void ports() throws IOException {
    Node node = node();
    Config c = node.config();
    assertEquals(Map.of("http", c.getInt("almanac.http.port"), "remoting", c.getInt("pekko.remote.artery.canonical.port")),
        node.ports());
    assertEquals(node.cluster().port(), c.getInt("pekko.remote.artery.canonical.port"), "--port is the cluster port");

    Map<String, Object> http = one(manifests(), "Service", "almanac");
    Map<String, Object> port = servicePort(http, "http");
    assertEquals(c.getInt("almanac.http.port"), ((Number) port.get("port")).intValue());
    assertEquals("http", port.get("targetPort"));
    Map<String, Object> podLabels = at(node.statefulSet(), "spec", "template", "metadata", "labels");
    assertTrue(podLabels.entrySet().containsAll(at(http, "spec", "selector").entrySet()));
  }

  @Test
  @DisplayName("the probes and the image's HEALTHCHECK ask the node's health endpoints on its HTTP port")
  void probes() throws Exception {
    Node node = node();
    List<String> paths = new ArrayList<>();
    Map<String, String> byProbe = new TreeMap<>();
    for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
      Map<String, Object> get = at(node.container(), probe, "httpGet");
      assertEquals("http", get.get("port"), probe + " asks the port named http");
      byProbe.put(probe, (String) get.get("path"));
      paths.add((String) get.get("path"));
    }
    assertTrue(node.ports().containsKey("http"));
    assertNotEquals(byProbe.get("livenessProbe"), byProbe.get("readinessProbe"),
        "liveness (restart) and readiness (route, roll on) are different checks");

    List<Instruction> docker = dockerfile();
    List<String> healthchecks = instructions(docker, "HEALTHCHECK");
    assertEquals(1, healthchecks.size());
    Matcher url = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)(/\\S*)").matcher(healthchecks.get(0));
    assertTrue(url.find(), "the HEALTHCHECK asks http://127.0.0.1:<port>/<path>: " + healthchecks.get(0));
    assertEquals(node.config().getInt("almanac.http.port"), Integer.parseInt(url.group(1)));
    assertEquals(imageDefaultConfig(docker).getInt("almanac.http.port"), Integer.parseInt(url.group(1)));
    assertEquals(byProbe.get("readinessProbe"), url.group(2), "the image is healthy when the pod would be ready");
    paths.add(url.group(2));

    // Every path is a health endpoint of a real node (the http module's routes), not a copy of its name.
    try (ProbeNode real = new ProbeNode(dir)) {
      for (String path : new LinkedHashSet<>(paths)) {
        HttpResponse<String> r = real.get(path);
        assertEquals(200, r.statusCode(), "GET " + path + " on a ready node: " + r.body());
        assertTrue(r.body().contains("\"live\":true"), "GET " + path + " answers the node's health: " + r.body());
      }
      assertEquals(404, real.get("/health/nothing-here").statusCode(), "an unknown path would not pass for a probe");
    }
  }

  @Test
  @DisplayName("every variable of the container is read by the node, its arguments or the image's entrypoint")
  void variables() throws IOException {
    Node node = node();
    List<Instruction> docker = dockerfile();
    List<String> entrypoint = instructions(docker, "ENTRYPOINT");
    assertEquals(1, entrypoint.size());
    String rawArgs = String.join(" ", list(node.container().get("args"), "args").stream().map(String::valueOf).toList());
    Set<String> variables = node.env().keySet();
    for (Map.Entry<String, String> var : node.env().entrySet()) {
      String name = var.getKey();
      boolean inArgs = rawArgs.contains("$(" + name + ")");
      boolean inEntrypoint = readsVariable(entrypoint.get(0), name);
      Map<String, String> without = new LinkedHashMap<>(node.env());
      without.remove(name);
      Set<String> changed = inArgs || name.equals("ALMANAC_CONFIG") ? Set.of() : changedKeys(load(without, node.cluster()),
          node.config(), variables);
      assertTrue(inArgs || inEntrypoint || !changed.isEmpty(),
          name + " is read by nothing: not by the pod's arguments, the image's entrypoint nor the node's configuration");
      for (String key : changed) {
        assertEquals(var.getValue(), node.config().getString(key), key + " takes " + name);
      }
    }
    // the variables the image's entrypoint reads have defaults in the image
    Map<String, String> defaults = dockerEnv(docker);
    for (String name : List.of("ALMANAC_CONFIG", "JAVA_OPTS")) {
      assertTrue(readsVariable(entrypoint.get(0), name), "the entrypoint reads " + name);
      assertTrue(defaults.containsKey(name), "the image sets a default " + name);
    }
    assertEquals(node.env().get("ALMANAC_DB_URL"), node.config().getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
    assertEquals(node.env().get("ALMANAC_DB_USER"), node.config().getString("almanac.persistence.postgres.user"));
    assertEquals(node.env().get("ALMANAC_DB_PASSWORD"), node.config().getString("almanac.persistence.postgres.password"));
    assertEquals(node.env().get("ALMANAC_TOKEN"), node.config().getString("almanac.http.token"));
    // beyond loopback the HTTP endpoints need a token: the Secret's placeholder is refused, so no
    // cluster runs with it; a real one (16 characters or more) is taken
    InvalidSpecException refused = assertThrows(InvalidSpecException.class, () -> AlmanacHttp.Settings.from(node.config()));
    assertTrue(refused.getMessage().contains("almanac.http.token"), refused.getMessage());
    Config replaced = ConfigFactory.parseMap(Map.of("almanac.http.token", "t".repeat(24))).withFallback(node.config());
    assertEquals("0.0.0.0", AlmanacHttp.Settings.from(replaced).iface());

    // the journal's URL names the PostgreSQL Service of the manifests
    Matcher pg = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/").matcher(node.env().get("ALMANAC_DB_URL"));
    assertTrue(pg.find(), node.env().get("ALMANAC_DB_URL"));
    Map<String, Object> postgres = one(manifests(), "Service", pg.group(1));
    assertEquals(Integer.parseInt(pg.group(2)), ((Number) servicePort(postgres, "postgres").get("port")).intValue());
  }

  /** Where the image's distribution comes from: /opt/almanac is the unpacked tarball of the dist module. */
  static final String IMAGE_HOME = "/opt/almanac/";

  /**
   * Whether the entrypoint reads the variable: in its own text, or in a script of the distribution it
   * runs ({@code /opt/almanac/bin/x} is the dist module's {@code src/bin/x}).
   */
  static boolean readsVariable(String entrypoint, String name) {
    if (entrypoint.contains("$" + name)) {
      return true;
    }
    Matcher script = Pattern.compile(Pattern.quote(IMAGE_HOME) + "bin/([A-Za-z0-9_.-]+)").matcher(entrypoint);
    while (script.find()) {
      Path source = ROOT.resolve("dist").resolve("src").resolve("bin").resolve(script.group(1));
      assertTrue(Files.isRegularFile(source), "the entrypoint's script is dist/src/bin/" + script.group(1));
      String text;
      try {
        text = Files.readString(source);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      if (Pattern.compile("\\$\\{?" + name + "\\b").matcher(text).find()) {
        return true;
      }
    }
    return false;
  }

  /** The keys (other than the variables themselves) whose values differ between two configurations. */
  static Set<String> changedKeys(Config a, Config b, Set<String> variables) {
    Map<String, Object> left = flat(a, variables);
    Map<String, Object> right = flat(b, variables);
    Set<String> keys = new LinkedHashSet<>(left.keySet());
    keys.addAll(right.keySet());
    return keys.stream().filter(k -> !java.util.Objects.equals(left.get(k), right.get(k))).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  static Map<String, Object> flat(Config c, Set<String> variables) {
    Map<String, Object> out = new TreeMap<>();
    for (Map.Entry<String, ConfigValue> e : c.entrySet()) {
      if (!variables.contains(e.getKey()) && (e.getKey().startsWith("almanac") || e.getKey().startsWith("pekko"))) {
        out.put(e.getKey(), e.getValue().unwrapped());
      }
    }
    return out;
  }

  /** The configuration the image runs without Kubernetes: its default ALMANAC_CONFIG, no arguments. */
  static Config imageDefaultConfig(List<Instruction> docker) {
    String file = dockerEnv(docker).get("ALMANAC_CONFIG");
    assertNotNull(file, "the image sets ALMANAC_CONFIG");
    return DemoNode.loadConfigFile(inRepository(docker, file).toFile(), null, false).config();
  }

  @Test
  @DisplayName("the Dockerfile exposes the configured ports, runs as the pods' non-root user and holds the packaged distribution")
  void dockerfileAgreesWithTheConfiguration() throws IOException {
    Node node = node();
    List<Instruction> docker = dockerfile();
    Set<Integer> exposed = instructions(docker, "EXPOSE").stream().flatMap(e -> Stream.of(e.split("\\s+")))
        .map(p -> Integer.parseInt(p.replace("/tcp", ""))).collect(Collectors.toCollection(java.util.TreeSet::new));
    assertEquals(new java.util.TreeSet<>(node.ports().values()), exposed, "EXPOSE lists the container's ports");

    List<String> users = instructions(docker, "USER");
    assertEquals(1, users.size());
    int uid = Integer.parseInt(users.get(0).split(":")[0]);
    assertNotEquals(0, uid, "the image runs as a non-root user");
    Map<String, Object> security = at(node.podSpec(), "securityContext");
    assertEquals(true, security.get("runAsNonRoot"));
    assertEquals(uid, ((Number) security.get("runAsUser")).intValue(), "the pods run as the image's user");

    // the image holds the distribution the dist module packages (maven-assembly-plugin's finalName),
    // unpacked under /opt/almanac, and its entrypoint is the distribution's command line
    String pom = Files.readString(ROOT.resolve("dist").resolve("pom.xml"));
    Matcher finalName = Pattern.compile("<finalName>([^<]+)</finalName>").matcher(pom);
    assertTrue(finalName.find());
    String tarball = "dist/target/" + finalName.group(1).replace("${project.version}", "${ALMANAC_VERSION}") + ".tar.gz";
    assertTrue(instructions(docker, "ADD").stream().anyMatch(a -> a.startsWith(tarball + " ")), "the image unpacks " + tarball);
    assertTrue(instructions(docker, "COPY").contains("--from=dist " + IMAGE_HOME.replaceAll("/$", "") + " "
        + IMAGE_HOME.replaceAll("/$", "")), "the image keeps the unpacked distribution at " + IMAGE_HOME);
    assertTrue(Files.readString(ROOT.resolve(".dockerignore")).contains("!dist/target/almanac-*.tar.gz"),
        ".dockerignore lets the tarball into the build context");
    assertTrue(instructions(docker, "ENTRYPOINT").get(0).contains(IMAGE_HOME + "bin/almanac"),
        "the entrypoint is the distribution's bin/almanac");

    // the image's default configuration is a valid embedded node reachable from outside the container
    Config embedded = imageDefaultConfig(docker);
    assertTrue(embedded.getBoolean("almanac.node.join-self"), "without arguments the image runs the embedded node");
    assertEquals("0.0.0.0", AlmanacHttp.Settings.from(DemoNode.withActionToken(embedded)).iface());

    // what the node writes is on volumes (the root file system is read-only)
    assertEquals(true, at(node.container(), "securityContext").get("readOnlyRootFilesystem"));
    List<String> mounts = list(node.container().get("volumeMounts"), "volumeMounts").stream()
        .map(m -> (String) map(m, "mount").get("mountPath")).toList();
    for (String key : List.of("almanac-demo.data-dir", "almanac.persistence.h2.path")) {
      String path = node.config().getString(key);
      assertTrue(mounts.stream().anyMatch(m -> path.startsWith(m + "/")), key + " = " + path + " is on a volume " + mounts);
      assertTrue(path.startsWith("/var/lib/almanac/"), key + " is in the image's writable folder");
    }
    assertTrue(mounts.contains("/tmp"), "the JVM's temporary files have a volume");
  }

  @Test
  @DisplayName("the pod's grace period covers the shutdown grace of running attempts, the recording of what still runs and"
      + " the hand-over; the drain's shutdown phase holds the grace; the service account exists")
  void shutdownAndAccount() throws IOException {
    Node node = node();
    long grace = ((Number) node.podSpec().get("terminationGracePeriodSeconds")).longValue();
    Duration drain = node.config().getDuration("almanac.executor.shutdown-grace");
    Duration record = io.almanac.internal.executor.ExecutorSettings.INTERRUPT_MARGIN;
    assertTrue(grace >= drain.plus(record).toSeconds() + 10, "terminationGracePeriodSeconds " + grace + " leaves the "
        + "shutdown-grace (" + drain + "), " + record + " to record what still runs, and 10 s of hand-over before SIGKILL");
    Duration phase = node.config().getDuration(io.almanac.internal.executor.ExecutorSettings.DRAIN_PHASE_TIMEOUT);
    assertTrue(phase.compareTo(drain.plus(record)) >= 0, "the drain phase's timeout " + phase + " holds the grace");
    io.almanac.internal.executor.ExecutorSettings.from(node.config()).checkShutdownPhase(node.config());
    one(manifests(), "ServiceAccount", (String) node.podSpec().get("serviceAccountName"));
  }

  // --- a real node's HTTP endpoints -----------------------------------------------------------------

  /** An embedded node on an H2 file, serving the http module's routes on a free loopback port. */
  static final class ProbeNode implements AutoCloseable {
    private final ActorTestKit kit;
    private final String base;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    ProbeNode(Path dir) throws Exception {
      Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
          "include \"almanac-h2.conf\"",
          "include \"almanac-embedded.conf\"",
          "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
          // the trigger ticks and writes its watermark often, so the readiness checks hold soon after start
          "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms }",
          "almanac.http.port = 0")));
      kit = ActorTestKit.create("deploy-probes", config);
      try {
        SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(60));
        Almanac almanac = Almanac.builder(kit.system()).start();
        almanac.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        ServerBinding binding = AlmanacHttp.start(kit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
        base = "http://127.0.0.1:" + binding.localAddress().getPort();
      } catch (Exception | Error e) {
        kit.shutdownTestKit();
        throw e;
      }
    }

    /** GET path, once the node answers it with something other than 503 (its checks settle after start). */
    HttpResponse<String> get(String path) {
      HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET().build();
      return kit.createTestProbe().awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
        HttpResponse<String> r;
        try {
          r = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException | InterruptedException e) {
          throw new AssertionError("GET " + path + ": " + e, e);
        }
        assertNotEquals(503, r.statusCode(), "GET " + path + " still 503: " + r.body());
        return r;
      });
    }

    @Override
    public void close() {
      kit.shutdownTestKit();
    }
  }
}

package io.almanac.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM ({@code bom/pom.xml}, io.almanac:almanac-bom) lists every published module of the reactor
 * at the reactor's version, and manages nothing else. A module is published unless it sets {@code
 * maven.deploy.skip} (the tests, the demo, the benchmarks) or is a pom (the parent, the BOM, this
 * distribution). Reads the poms as files: it needs no build of the modules.
 */
class BomIT {

  private static final Path ROOT = Path.of("..");

  @Test
  void listsEveryPublishedModuleAtTheReactorsVersionAndNothingElse() throws Exception {
    Element root = pom(ROOT.resolve("pom.xml"));
    String version = child(root, "version");
    Map<String, Element> modules = new LinkedHashMap<>();
    for (Element module : all(root, "module")) { // <modules> and the profiles' (bench)
      Path dir = ROOT.resolve(module.getTextContent().strip());
      modules.put(dir.getFileName().toString(), pom(dir.resolve("pom.xml")));
    }
    assertTrue(modules.containsKey("runtime") && modules.containsKey("bom"), "read the reactor's modules: " + modules.keySet());

    Set<String> published = new TreeSet<>();
    for (Element module : modules.values()) {
      String packaging = child(module, "packaging");
      Element properties = first(module, "properties");
      boolean skipped = properties != null && "true".equals(child(properties, "maven.deploy.skip"));
      if (!skipped && (packaging == null || packaging.equals("jar"))) {
        published.add(child(module, "artifactId"));
      }
    }
    assertTrue(published.containsAll(Set.of("almanac-runtime", "almanac-persistence", "almanac-http", "almanac-testkit",
        "almanac-spring-boot-starter")),
        "the library modules are published: " + published);
    assertFalse(published.contains("almanac-samples") || published.contains("almanac-crash-tests")
        || published.contains("almanac-spring-boot-sample"), published.toString());

    Element bom = modules.get("bom");
    assertEquals("io.almanac", child(bom, "groupId"));
    assertEquals("almanac-bom", child(bom, "artifactId"));
    assertEquals("pom", child(bom, "packaging"));
    assertEquals(version, child(bom, "version"), "the BOM's version is the reactor's");
    assertEquals(null, first(bom, "parent"),
        "no parent: an imported BOM would hand its users the parent's management of Pekko, Jackson, JUnit ...");
    assertTrue(all(bom, "dependencies").size() == 1 && first(bom, "dependencyManagement") != null,
        "the BOM has dependencyManagement only, no dependencies of its own");

    Set<String> managed = new TreeSet<>();
    for (Element dependency : all(first(bom, "dependencyManagement"), "dependency")) {
      String artifact = child(dependency, "artifactId");
      assertEquals("io.almanac", child(dependency, "groupId"), artifact + ": the BOM manages Almanac's artifacts only");
      assertEquals("${project.version}", child(dependency, "version"), artifact + " at the BOM's own version");
      assertEquals(null, child(dependency, "scope"), artifact + ": no scope (no import of another BOM)");
      assertTrue(managed.add(artifact), artifact + " is listed once");
    }
    Set<String> missing = new TreeSet<>(published);
    missing.removeAll(managed);
    assertEquals(Set.of(), missing, "every published module is in bom/pom.xml");
    Set<String> extra = new TreeSet<>(managed);
    extra.removeAll(published);
    assertEquals(Set.of(), extra, "bom/pom.xml lists only modules the reactor publishes");
  }

  // --- reading poms ------------------------------------------------------------------------------------

  private static Element pom(Path file) throws Exception {
    assertTrue(Files.isRegularFile(file), file.toString());
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    return doc.getDocumentElement();
  }

  /** The text of a direct child element, or null. */
  private static String child(Element parent, String name) {
    Element e = first(parent, name);
    return e == null ? null : e.getTextContent().strip();
  }

  /** The first direct child element of that name, or null. */
  private static Element first(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  /** Every descendant element of that name. */
  private static List<Element> all(Element parent, String name) {
    NodeList list = parent.getElementsByTagName(name);
    List<Element> out = new ArrayList<>();
    for (int i = 0; i < list.getLength(); i++) {
      out.add((Element) list.item(i));
    }
    return out;
  }
}

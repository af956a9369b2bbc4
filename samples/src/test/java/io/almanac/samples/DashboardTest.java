package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.InstanceStatus;
import io.almanac.WindowView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web dashboard (served by the node at {@code /}) in a real headless Chromium, the system's
 * {@code /usr/bin/chromium} driven by {@code /usr/bin/chromedriver} (no driver download), against a
 * real node serving the HTTP API ({@link ApiTestNode}). Every wait has a deadline; nothing sleeps.
 *
 * <p>With {@code -Dalmanac.writeScreenshots=true} it saves docs/screenshots/{tasks-and-grid,queue,why}.png.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardTest {

  /** Debian's Chromium; elsewhere pass -Dalmanac.test.chromium=/path/to/chrome. */
  static final Path CHROMIUM = Path.of(System.getProperty("almanac.test.chromium", "/usr/bin/chromium"));
  /** Debian's ChromeDriver; elsewhere pass -Dalmanac.test.chromedriver=/path/to/chromedriver (same version). */
  static final Path CHROMEDRIVER = Path.of(System.getProperty("almanac.test.chromedriver", "/usr/bin/chromedriver"));
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private ApiTestNode node;
  private ChromeDriverService service;
  private ChromeDriver driver;
  private WebDriverWait wait;

  @BeforeAll
  void start() throws Exception {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      fail("the dashboard test needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
          + ": install them with `apt-get install -y chromium chromium-driver` (.ci/run does), or pass their paths "
          + "with -Dalmanac.test.chromium=... -Dalmanac.test.chromedriver=...");
    }
    node = ApiTestNode.start("dashboard-test", Files.createDirectories(dir.resolve("node")));
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")), "--window-size=1400,1050");
    driver = new ChromeDriver(service, options);
    wait = new WebDriverWait(driver, DEADLINE);
    driver.get(node.base + "/");
  }

  @AfterAll
  void stop() {
    try {
      if (driver != null) {
        driver.quit();
      }
      if (service != null) {
        service.stop();
      }
    } finally {
      if (node != null) {
        node.close();
      }
    }
  }

  private void loaded() {
    wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-loaded")));
  }

  /** Clicks what the selector finds, again if a refresh replaced it meanwhile. */
  private void click(By by) {
    wait.until(d -> {
      try {
        WebElement e = d.findElement(by);
        if (!e.isDisplayed() || !e.isEnabled()) {
          return false;
        }
        e.click();
        return true;
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
        return false;
      }
    });
  }

  private String text(By by) {
    return wait.until(d -> {
      try {
        return d.findElement(by).getText();
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
        return null;
      }
    });
  }

  private static By queueRow(String task, String window) {
    return By.cssSelector("#queue tr[data-task='" + task + "'][data-window='" + window + "']");
  }

  private void screenshot(String name, TakesScreenshot what) throws Exception {
    if (!Boolean.getBoolean("almanac.writeScreenshots")) {
      return;
    }
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.isRegularFile(root.resolve("docs/http-api.md"))) {
      root = root.getParent();
    }
    assertTrue(root != null, "cannot find the repository's docs/ above " + Path.of("").toAbsolutePath());
    Path file = Files.createDirectories(root.resolve("docs/screenshots")).resolve(name + ".png");
    Files.write(file, what.getScreenshotAs(OutputType.BYTES));
  }

  @Test
  @Order(1)
  @DisplayName("the page loads from the node: the tasks with their next fire in local time and UTC, each with its own "
      + "latest windows")
  void pageLoads() throws Exception {
    loaded();
    assertEquals("Almanac", driver.getTitle());
    List<WebElement> tasks = driver.findElements(By.cssSelector("#tasks tbody tr"));
    assertEquals(3, tasks.size(), driver.findElement(By.id("tasks")).getText());
    By digest = By.cssSelector("#tasks tr[data-task='" + ApiTestNode.DIGEST + "']");
    assertEquals("2026-11-30 08:00:00+08:00 Asia/Shanghai", text(new ByChained(digest, ".next-local")));
    assertEquals("2026-11-30 00:00:00Z", text(new ByChained(digest, ".next-utc")));
    assertEquals(4, driver.findElements(By.cssSelector("#tasks .cell")).size(), driver.findElement(By.id("tasks")).getText());
    assertEquals(1, driver.findElements(By.cssSelector("#tasks .cell.st-FINAL_FAILED[data-task='broken']")).size());
    wait.until(ExpectedConditions.textToBe(By.id("health"), "ready"));
    screenshot("tasks-and-grid", driver);
  }

  @Test
  @Order(2)
  @DisplayName("a SKIPPED window shows its reason's code on its cell and its reason in its title; clicked, the window's "
      + "page shows its why and timeline; Back returns to the list")
  void skippedShowsReason() throws Exception {
    loaded();
    By cell = By.cssSelector("#tasks .cell[data-task='" + ApiTestNode.MINUTELY + "'][data-window='" + ApiTestNode.SKIPPED_WINDOW + "']");
    // the cell is a small square: its status and reason's code are its attributes, its full reason its title
    assertEquals("SKIPPED", driver.findElement(cell).getAttribute("data-status"));
    assertEquals("PREVIOUS_RUNNING", driver.findElement(cell).getAttribute("data-reason"));
    String title = driver.findElement(cell).getAttribute("title");
    assertTrue(title.contains("PREVIOUS_RUNNING: window 2026-11-29T00:00:00Z is RUNNING"), title);
    click(cell);
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("detail")));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#why .verdict"), "skipped"));
    assertTrue(text(By.cssSelector("#why .verdict")).contains("PREVIOUS_RUNNING"), text(By.id("why")));
    wait.until(d -> !d.findElements(By.cssSelector("#timeline tbody tr")).isEmpty());
    // a skipped window opens a skip range (docs/skip-ranges.md): its event is SkipRangeOpened
    assertTrue(text(By.id("timeline")).contains("Skipped") || text(By.id("timeline")).contains("SkipRangeOpened"),
        text(By.id("timeline")));
    screenshot("why", driver);
    driver.navigate().back();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("tasks")));
    loaded();
  }

  @Test
  @Order(3)
  @DisplayName("a FINAL_FAILED window appears in the intervention queue with Retry and Resolve")
  void finalFailedInQueue() throws Exception {
    loaded();
    By row = queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY);
    wait.until(ExpectedConditions.visibilityOfElementLocated(row));
    assertTrue(text(row).contains("upstream schema changed"), text(row));
    assertEquals("Retry", text(new ByChained(row, "button.retry")));
    assertTrue(text(new ByChained(row, "button.resolve")).startsWith("Resolve"));
    driver.executeScript("document.getElementById('queue-section').scrollIntoView()");
    screenshot("queue", driver.findElement(By.id("queue-section")));
  }

  @Test
  @Order(4)
  @DisplayName("a mutating call without the token is refused (401) and the page shows the problem's detail; nothing changes")
  void refusedWithoutToken() {
    loaded();
    driver.findElement(By.id("token")).clear();
    driver.executeScript("sessionStorage.removeItem('almanac.token')");
    int before = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY).attempt();
    click(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "button.retry"));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "401"));
    String message = text(By.id("message"));
    assertTrue(message.startsWith("Refused: ") && message.contains("Bearer"), message);
    // the 401 names the Authorization header but no value: no "undefined" or "null" in the words
    assertTrue(message.contains("[field Authorization]"), message);
    assertTrue(!message.contains("undefined") && !message.contains("null"), message);
    assertTrue(driver.findElement(By.id("message")).getAttribute("class").contains("error"), message);
    WindowView w = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(InstanceStatus.FINAL_FAILED, w.status());
    assertEquals(before, w.attempt());
  }

  @Test
  @Order(5)
  @DisplayName("with the token typed in, Retry starts a new attempt: the Java API sees the attempt number grow")
  void retryStartsAnAttempt() {
    loaded();
    int before = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY).attempt();
    driver.findElement(By.id("token")).sendKeys(ApiTestNode.TOKEN);
    assertEquals(ApiTestNode.TOKEN, driver.executeScript("return sessionStorage.getItem('almanac.token')"));
    click(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "button.retry"));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "accepted"));
    node.node.createTestProbe().awaitAssert(DEADLINE, () -> {
      WindowView w = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY);
      assertEquals(before + 1, w.attempt(), w.toString());
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString()); // the job fails again
      return null;
    });
    // the page shows the new attempt after its next refresh
    click(By.id("refresh"));
    wait.until(ExpectedConditions.textToBe(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), ".attempt"),
        String.valueOf(before + 1)));
  }

  @Test
  @Order(6)
  @DisplayName("Resolve asks for a note (refused without one) and resolves the window with it")
  void resolveAsksForANote() {
    loaded();
    click(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "button.resolve"));
    click(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "button.confirm-resolve"));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "A note is needed"));
    driver.findElement(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "input.note")).sendKeys("schema fixed upstream");
    click(new ByChained(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY), "button.confirm-resolve"));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "Resolved"));
    assertEquals(InstanceStatus.RESOLVED, node.window(ApiTestNode.BROKEN, ApiTestNode.DAY).status());
    wait.until(ExpectedConditions.invisibilityOfElementLocated(queueRow(ApiTestNode.BROKEN, ApiTestNode.DAY)));
  }

  /** A CSS selector within what another locator finds. */
  private static final class ByChained extends By {
    private final By outer;
    private final String inner;

    ByChained(By outer, String inner) {
      this.outer = outer;
      this.inner = inner;
    }

    @Override
    public List<WebElement> findElements(org.openqa.selenium.SearchContext context) {
      return context.findElement(outer).findElements(By.cssSelector(inner));
    }

    @Override
    public String toString() {
      return outer + " " + inner;
    }
  }
}
